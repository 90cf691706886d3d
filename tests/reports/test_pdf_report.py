"""The PDF report turned into text: the engine's figures to the cent, contents, pages and paper."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import shutil
import subprocess
from decimal import Decimal

import numpy as np
import pytest

from catalog.selectors import Citation
from costmodel import ApiOption
from costmodel import TokenMix
from costmodel.tests.scenarios import rich_scenario
from reports.builders.pdf import build_pdf
from reports.content import RecordedRun
from reports.formatting import format_usd_cents
from tco.services.engine_inputs import Assumption
from tco.services.engine_inputs import PriceUsed
from tco.services.evaluation import evaluation_of
from tests.reports.conftest import FORMULA_LIKE_NAME
from tests.reports.conftest import MONTE_CARLO
from tests.reports.conftest import SWEEP
from tests.reports.conftest import content_for

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
    # By hand from the rich scenario (costmodel/tests/test_evaluate.py agrees): buying costs
    # $28,974,447.93 over 60 months and breaks even against on-demand in month 6.
    assert "$28,974,447.93" in text
    assert "month 6" in text


def test_it_leads_with_the_recommendation_and_the_assumptions_that_move_it(rich_content, text):
    # The second "Executive summary" is the chapter; the first is its line in the contents.
    summary = joined(text[text.index("Executive summary", text.index("Executive summary") + 1) :])

    assert summary.index(joined(rich_content.result.recommendation)) < summary.index("Keyfigures")
    # The spot price moves it most, named by its label and the option's name.
    spot = rich_content.inputs.rent[2].name
    assert joined(f"Instance price, {spot}") in summary
    assert "Utilisation" in summary and "workload.utilisation" not in summary


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


def test_each_recorded_run_has_its_chapter_with_its_figures(tmp_path):
    content = content_for(rich_scenario(), sweeps=(RecordedRun(3, "sweep", SWEEP),),
                          monte_carlo=(RecordedRun(4, "monte_carlo", MONTE_CARLO),))
    path = tmp_path / "runs.pdf"
    path.write_bytes(build_pdf(content))
    cover, contents, body = poppler("pdftotext", "-layout", str(path), "-").split("\f", 2)

    assert re.search(r"Monte Carlo \.+ ?\d+\n Sweeps\.+ ?\d+", contents)
    assert [body.count(heading) for heading in ("Executive summary", "Monte Carlo run #4",
                                                "Sweep run #3: 2 points")] == [1, 1, 1]
    assert "100 draws (seed 7): buying beats every rent option in 61.0% of them." in body
    # The spot rows: P10/P50/P90 of the saving and the breakeven; the sweep's range and never share.
    assert re.search(r"spot +61\.0% +-\$1\.50 +\$2\.25 +\$4\.12 +month 12 +month 20 +never", body)
    assert re.search(r"spot +50\.0% +-\$5\.12 +\$1\.94 +\$9\.00 +month 20 +never +50\.0%", body)
    assert re.search(r"Instance price, spot +2 +\$20\.00 +\$40\.00", body)


def test_it_lists_the_assumptions_with_their_sources(tmp_path):
    recorded = Assumption("buy.system_price_usd", 0.0, "USD/system", "catalog",
                          "catalog system dgx-h100: seed-003", source_keys=("seed-003",))
    content = content_for(rich_scenario())
    content = dataclasses.replace(content, evaluation=evaluation_of(rich_scenario(), recorded=[recorded]))
    path = tmp_path / "sources.pdf"
    path.write_bytes(build_pdf(content))
    text = poppler("pdftotext", "-layout", str(path), "-")
    assumptions = text[text.rindex("Assumptions and sources") :]

    assert "System price" in assumptions and "buy.system_price_usd" not in assumptions
    assert "seed-003" in assumptions  # no catalog source cited: the text names it as recorded
    assert "not recorded" in assumptions  # an input nobody recorded says so


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_it_is_laid_out_on_the_requested_paper(paper, tmp_path):
    path = tmp_path / "report.pdf"
    path.write_bytes(build_pdf(content_for(rich_scenario(), paper_size=paper)))

    size = re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", poppler("pdfinfo", str(path)))
    assert (round(float(size.group(1))), round(float(size.group(2)))) == POINTS_PER_PAGE[paper]


ENGINE_PATH = re.compile(r"\b(workload|buy|facility|finance|cooling|rent|footprint)\.[a-z_0-9.*]+")
SNAKE_CASE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
FLOAT_NOISE = re.compile(r"\d\.\d{5,}")


def words_people_read(text: str) -> list[str]:
    """Engine paths, snake_case names and floats with more digits than any format shows."""
    return ENGINE_PATH.findall(text) + SNAKE_CASE.findall(text) + FLOAT_NOISE.findall(text)


@pytest.fixture(scope="module")
def signed_copy(rich_content, tmp_path_factory):
    """The rich report as approved, citing its source, with one price 691 days old."""
    meta = dataclasses.replace(
        rich_content.meta, status="Approved by Ada Lovelace on 2026-03-01 10:00 UTC",
        sources=(Citation("seed-003", "AI infrastructure costs in 2025", "https://example.org/costs",
                          dt.date(2025, 1, 1)),))
    old = PriceUsed(7, "AWS p5.48xlarge (8x H100 SXM5 80 GB), on-demand", Decimal("98.32"), "USD",
                    meta.generated_at.date() - dt.timedelta(days=691), "seed-003")
    content = dataclasses.replace(
        rich_content, meta=meta, evaluation=dataclasses.replace(rich_content.evaluation, prices=(old,)))
    path = tmp_path_factory.mktemp("signed") / "report.pdf"
    path.write_bytes(build_pdf(content))
    return poppler("pdftotext", "-layout", str(path), "-")


def test_the_cover_says_who_approved_it_and_warns_of_old_prices(signed_copy):
    cover = signed_copy.split("\f")[0]

    assert "Approved by Ada Lovelace on 2026-03-01 10:00 UTC" in cover
    assert "1 price used is older than 30 days" in cover


def test_a_draft_says_so_on_the_cover(text):
    assert "Draft" in text.split("\f")[0]


def test_every_old_price_carries_a_note_and_sources_have_titles(signed_copy):
    prices = signed_copy[signed_copy.rindex("Price snapshot"):]

    assert "691 days (stale)" in prices
    assert joined("is 691 days old") in joined(prices)
    sources = prices[prices.rindex("Sources"):]
    assert "[1]" in sources and "AI infrastructure costs in 2025" in sources
    assert "https://example.org/costs" in sources and "2025-01-01" in sources
    assert "seed-003" not in prices  # cited by number, not by key


def test_people_read_labels_not_engine_names_or_float_noise(signed_copy):
    assert words_people_read(signed_copy) == []


def test_dates_never_wrap(signed_copy):
    assert re.findall(r"\d{4}-\d{2}-\d(?:\s+\d)", signed_copy) == []


def test_it_shows_the_full_cost_of_useful_work_with_a_per_token_api(tmp_path):
    api = ApiOption("frontier API", usd_per_million_input=3.0, usd_per_million_cached_input=0.3,
                    usd_per_million_output=15.0)
    mix = TokenMix(input_share=0.6, cached_input_share=0.2, output_share=0.2)
    scenario = dataclasses.replace(rich_scenario(), api=(api,), tokens=mix)
    content = content_for(scenario)
    path = tmp_path / "report.pdf"
    path.write_bytes(build_pdf(content))
    text = joined(poppler("pdftotext", "-layout", str(path), "-"))
    result = content.result

    assert "Fullcostofusefulwork" in text
    # 0.6 x $3 + 0.2 x $0.30 + 0.2 x $15 = $4.86 per million tokens, flat prices: the same over the horizon.
    assert text.count("$4.86") >= 3  # the option's cost, the API's blended price and cost
    for fleet in (result.buy, *result.rent):
        assert money(fleet.cost_per_million_tokens_usd) in text
    volume = float(np.reshape(result.api[0].breakeven_tokens_per_month_buy, -1)[0])
    assert f"frontierAPIBuyabove{volume:,.0f}tokensamonth" in text
    assert f"{float(np.reshape(result.buy.goodput.share, -1)[0]):.1%}" in text
    assert f"resellfor{money(result.buy.residual.resale_value_usd)}" in text
    assert f"bookvalueis{money(result.buy.residual.book_value_usd)}" in text


def test_a_recorded_monte_carlo_run_lists_every_options_chance_of_being_the_cheapest(tmp_path):
    # Issue 46: a per-token API cheapest in every draw; buying and renting at 0 %.
    ranking = [
        {"kind": "buy", "name": "buy", "label": "Buy", "cheapest_share": 0.0,
         "npv_usd": {"p10": 900.0, "p50": 1000.0, "p90": 1100.0}},
        {"kind": "rent", "name": "spot", "label": "Rent spot", "cheapest_share": 0.0,
         "npv_usd": {"p10": 1200.0, "p50": 1300.0, "p90": 1400.0}},
        {"kind": "api", "name": "tokens", "label": "Pay per token: tokens", "cheapest_share": 1.0,
         "npv_usd": {"p10": 100.0, "p50": 200.0, "p90": 300.0}},
    ]
    summary = {**MONTE_CARLO, "buy_wins_probability": 0.0, "ranking": ranking,
               "margin_usd": {"p10": 700.0, "p50": 800.0, "p90": 900.0}}
    content = content_for(rich_scenario(), monte_carlo=(RecordedRun(4, "monte_carlo", summary),))
    path = tmp_path / "ranked.pdf"
    path.write_bytes(build_pdf(content))
    body = " ".join(poppler("pdftotext", str(path), "-").split())

    assert ("In 100 draws (seed 7), the cheapest option is Buy in 0.0%, Rent spot in 0.0% and Pay per "
            "token: tokens in 100.0% of them.") in body
    assert "buying beats every rent option" not in body
