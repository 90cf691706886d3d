"""The PDF report turned into text: the engine's figures to the cent, contents, pages and paper."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from reports.builders.pdf import build_pdf
from reports.formatting import format_usd_cents
from tests.reports.conftest import FORMULA_LIKE_NAME, content_for
from tests.tco.engine.scenarios import rich_scenario

POINTS_PER_PAGE = {"a4": (595, 842), "letter": (612, 792)}


def poppler(tool: str, *args: str) -> str:
    if shutil.which(tool) is None:
        raise RuntimeError(f"{tool} is needed to read PDFs: apt-get install poppler-utils")
    return subprocess.run([tool, *args], capture_output=True, text=True, check=True, timeout=60).stdout


@pytest.fixture(scope="module")
def pdf_file(rich_content, tmp_path_factory):
    path = tmp_path_factory.mktemp("pdf") / "report.pdf"
    path.write_bytes(build_pdf(rich_content))
    return path


@pytest.fixture(scope="module")
def text(pdf_file) -> str:
    return poppler("pdftotext", "-layout", str(pdf_file), "-")


def joined(text: str) -> str:
    """The text without white space, so a phrase wrapped inside a table cell is found whole."""
    return re.sub(r"\s+", "", text)


def money(value) -> str:
    return format_usd_cents(float(np.reshape(value, -1)[0]))


def test_it_shows_the_engines_key_figures_to_the_cent(rich_content, text):
    result = rich_content.result

    expected = [money(result.buy.total_usd), money(result.buy.npv_usd), money(result.buy.total_capex_usd)]
    for option in result.rent:
        expected += [
            money(option.total_usd),
            money(option.npv_usd),
            money(option.npv_saving_usd),
            money(option.saving_usd),
        ]
    missing = [figure for figure in expected if figure not in text]
    assert missing == []
    # By hand from the rich scenario (tests/tco/engine/test_evaluate.py agrees): buying costs
    # $28,974,447.93 over 60 months and breaks even against on-demand in month 6.
    assert "$28,974,447.93" in text
    assert "month 6" in text


def test_it_leads_with_the_recommendation_and_the_assumptions_that_move_it(rich_content, text):
    # The second "Executive summary" is the chapter; the first is its line in the contents.
    summary = joined(text[text.index("Executive summary", text.index("Executive summary") + 1) :])

    assert summary.index(joined(rich_content.result.recommendation)) < summary.index("Keyfigures")
    # The spot price moves it most; its path wraps inside the table cell.
    assert "2.price_usd_per_instance_hour" in summary and "(spot)" in summary
    assert "workload.utilisation" in summary


def test_it_has_a_cover_contents_and_numbered_pages(text, pdf_file):
    pages = int(re.search(r"Pages:\s+(\d+)", poppler("pdfinfo", str(pdf_file))).group(1))

    cover = text.split("\f")[0]
    assert FORMULA_LIKE_NAME in cover
    assert "Test Author" in cover and "2026-03-02 09:30 UTC" in cover and "engine test" in cover
    contents = re.findall(
        r"^\s*(Executive summary|Bill of materials|Price snapshot) ?\.+ ?(\d+)$", text, re.M
    )
    assert [name for name, _ in contents] == ["Executive summary", "Bill of materials", "Price snapshot"]
    assert all(2 < int(page) <= pages for _, page in contents)
    assert f"Page 1 of {pages}" in text and f"Page {pages} of {pages}" in text


def test_it_lists_the_assumptions_with_their_sources(text):
    assumptions = text[text.rindex("Assumptions and sources") :]

    assert "buy.system_price_usd" in assumptions
    assert "seed-003" in assumptions


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_it_is_laid_out_on_the_requested_paper(paper, tmp_path):
    path = tmp_path / "report.pdf"
    path.write_bytes(build_pdf(content_for(rich_scenario(), paper_size=paper)))

    size = re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", poppler("pdfinfo", str(path)))
    assert (round(float(size.group(1))), round(float(size.group(2)))) == POINTS_PER_PAGE[paper]
