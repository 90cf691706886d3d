"""Export services with eager Celery: done with the API's figures, failures, redelivery, runs."""

from __future__ import annotations

import datetime as dt
import io
import re

import pytest
from django.test import TestCase
from openpyxl import load_workbook

from reports.choices import ExportStatus
from reports.choices import FailureType
from reports.choices import ReportFormat
from reports.models import ReportExport
from reports.services import report_build
from reports.services import report_content_for
from reports.services import report_export_regenerate
from reports.services import report_export_request
from reports.services import report_export_run
from tco.models import RunKind
from tco.models import RunStatus
from tco.services.evaluation import scenario_evaluate
from tco.services.runs import sweep_run_start
from tests.reports.test_pdf_report import ENGINE_PATH
from tests.reports.test_pdf_report import SNAKE_CASE
from tests.reports.test_pdf_report import poppler
from tests.reports.test_workbook_as_viewers_see_it import visible_cells

pytestmark = pytest.mark.django_db


def export_now(scenario, format=ReportFormat.XLSX, **kwargs) -> ReportExport:
    """Request an export and let its queued task run inline, as eager Celery does on commit."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        export = report_export_request(scenario=scenario, format=format, **kwargs)
    export.refresh_from_db()
    return export


def cents(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def test_an_export_runs_to_done_and_records_the_api_figures(scenario, planner):
    export = export_now(scenario, requested_by=planner)

    assert export.status == ExportStatus.DONE, export.error
    assert export.file.name.endswith(f"8x-h100-training-cluster-report-{export.pk}.xlsx")
    assert export.size_bytes == export.file.size
    api = scenario_evaluate(scenario=scenario).to_dict()
    assert export.engine_version == api["engine_version"]
    assert export.key_figures["buy"]["total_usd"] == cents(api["result"]["buy"]["total_usd"])
    assert export.key_figures["buy"]["npv_usd"] == cents(api["result"]["buy"]["npv_usd"])
    for ours, theirs in zip(export.key_figures["rent"], api["result"]["rent"], strict=True):
        assert ours["name"] == theirs["name"]
        assert ours["npv_saving_usd"] == cents(theirs["npv_saving_usd"])
        assert ours["breakeven_month"] == theirs["breakeven_month"]
    # The demo takes the DGX H100, p5 on-demand and Lambda prices from the catalog; its p5
    # reserved price is typed in.
    assert [p["price_point_id"] for p in export.price_snapshot] == [
        p["price_point_id"] for p in api["prices"]
    ]
    assert [p["target"].split()[0] for p in export.price_snapshot] == ["NVIDIA", "AWS", "Lambda"]
    assert export.scenario_updated_at == scenario.updated_at
    with export.file.open("rb") as handle:
        workbook = load_workbook(io.BytesIO(handle.read()))
    assert workbook["Summary"]["B9"].value == "Pat Planner"


def test_regenerating_an_export_gives_the_same_figures_and_price_date(scenario):
    first = export_now(scenario, prices_as_of=dt.date(2026, 1, 15))

    with TestCase.captureOnCommitCallbacks(execute=True):
        again = report_export_regenerate(export=first)
    again.refresh_from_db()

    assert again.pk != first.pk
    assert (again.status, again.format, again.prices_as_of) == (
        ExportStatus.DONE,
        "xlsx",
        dt.date(2026, 1, 15),
    )
    assert again.key_figures == first.key_figures
    assert again.price_snapshot == first.price_snapshot


def test_a_scenario_without_a_price_fails_with_the_reason_and_offers_no_file(scenario, media):
    # No catalog price is in force this early, and the demo's p5 on-demand option has no typed price.
    export = export_now(scenario, prices_as_of=dt.date(2000, 1, 1))

    assert (export.status, export.failure_type) == (ExportStatus.FAILED, FailureType.USER)
    assert "rent_options[0].price_usd_per_instance_hour" in export.error
    assert ("no price for AWS p5.48xlarge (8x H100 SXM5 80 GB), on-demand on or before 2000-01-01"
            in export.error)
    assert export.file.name == ""
    assert not list(media.rglob("*.xlsx"))


def test_a_redelivered_export_is_left_as_it_was(scenario, media):
    export = export_now(scenario)

    again = report_export_run(export_id=export.pk)

    assert (again.status, again.file.name, again.finished_at) == (
        ExportStatus.DONE,
        export.file.name,
        export.finished_at,
    )
    assert len(list(media.rglob("*.xlsx"))) == 1


def test_an_export_interrupted_while_running_is_built_when_delivered_again(scenario, media):
    export = export_now(scenario)
    # As if the worker had died after claiming it: running, no file yet.
    ReportExport.objects.filter(pk=export.pk).update(status=ExportStatus.RUNNING, file="", finished_at=None)
    export.file.storage.delete(export.file.name)

    again = report_export_run(export_id=export.pk)

    assert again.status == ExportStatus.DONE
    assert again.key_figures == export.key_figures
    assert len(list(media.rglob("*.xlsx"))) == 1


def test_exports_include_the_scenarios_latest_sweep_and_monte_carlo(scenario):
    price = "rent.0.price_usd_per_instance_hour"
    with TestCase.captureOnCommitCallbacks(execute=True):
        sweep = sweep_run_start(
            scenario=scenario,
            kind=RunKind.SWEEP,
            spec={
                "axes": [
                    {"path": price, "values": [40, 60, 80]},
                    {"path": "workload.utilisation", "values": [0.4, 0.8]},
                ]
            },
        )
        monte_carlo = sweep_run_start(
            scenario=scenario,
            kind=RunKind.MONTE_CARLO,
            spec={
                "samples": 200,
                "distributions": [{"path": price, "kind": "uniform", "low": 40, "high": 80}],
            },
        )
    sweep.refresh_from_db()
    monte_carlo.refresh_from_db()
    assert (sweep.status, monte_carlo.status) == (RunStatus.DONE, RunStatus.DONE)

    workbook_export = export_now(scenario)
    pdf_export = export_now(scenario, format=ReportFormat.PDF)

    with workbook_export.file.open("rb") as handle:
        workbook = load_workbook(io.BytesIO(handle.read()))
    assert workbook.sheetnames[-2:] == ["Sweep", "Monte Carlo"]
    assert workbook["Sweep"]["A1"].value == f"Sweep run #{sweep.pk}"
    # Six grid points are listed one per row, under the heat maps.
    listed = [row for row in workbook["Sweep"].iter_rows(values_only=True) if row[0] in (40, 60, 80)]
    assert len(listed) == 6
    assert workbook_export.key_figures["runs"] == [sweep.pk, monte_carlo.pk]
    assert pdf_export.status == ExportStatus.DONE, pdf_export.error


def test_a_sized_scenario_shows_how_its_accelerator_count_was_derived(scenario):
    # Llama 3.1 8B served at 20,000 tokens/s on H100s, 32 requests in flight a replica: 8
    # one-accelerator replicas (tests/tco/test_scenario_sizing.py).
    scenario.accelerators = None
    scenario.sizing = {"mode": "inference", "model": "llama-3.1-8b", "tokens_per_s": 20000,
                       "concurrency": 32}
    scenario.save()

    export = export_now(scenario)

    with export.file.open("rb") as handle:
        workbook = load_workbook(io.BytesIO(handle.read()))
    sizing = {row[0]: row[1] for row in workbook["Sizing"].iter_rows(min_row=5, values_only=True)}
    assert (sizing["fits"], sizing["accelerators"]) == ("yes", 8)
    # The estimate's range and the measurements it rests on travel with it.
    assert sizing["tokens_per_s_per_accelerator_range"] == "1,808 to 4,019"
    assert sizing["nearest_measurement_1"] > 0
    assumptions = {
        row[1]: row for row in workbook["Assumptions"].iter_rows(values_only=True) if row[0] == "Workload"
    }
    assert assumptions["Accelerators needed"][2:5] == (8, "count", "sizing")


def test_the_demo_pdf_speaks_as_people_do(scenario, tmp_path):
    """The 8x H100 demo's report, priced from the catalog: labels, not field names or slugs;
    prices as money with their units; quantities as people count them."""
    path = tmp_path / "report.pdf"
    path.write_bytes(report_build(content=report_content_for(scenario=scenario), format="pdf"))
    text = poppler("pdftotext", "-layout", str(path), "-")

    # Lambda's own instance name has underscores (and wraps in a narrow heading); nothing else may.
    own_names = [option.offering.instance_type for option in scenario.rent_options.all()]
    snake = ENGINE_PATH.findall(text) + SNAKE_CASE.findall(text)
    assert [word for word in snake if not any(name.startswith(word) for name in own_names)] == []
    assert re.search(r"System\s+NVIDIA DGX H100 \(8x H100 SXM5 80 GB\)", text)  # the cover
    assert "dgx-h100" not in text and "scenario.storage_usd" not in text
    assert re.search(r"\$320,000\.00\s+per system", text)  # the price snapshot
    assert re.search(r"Spares\s+2\.0%\s+of systems\s", text)  # the bill of materials
    assert re.search(r"Systems\s+1\s+systems\s", text)
    # The sensitivity table's prices stand apart: its columns fit $320,000.00 with room to spare.
    assert re.search(r"System price\s+\$320,000\.00\s{2,}\$288,000\.00\s{2,}\$352,000\.00", text)


def test_the_demo_workbook_names_where_each_input_came_from_in_words(scenario):
    """The Assumptions sheet of the demo: a typed-in figure is 'entered in the scenario', not the
    field it was stored in (scenario.storage_usd, scenario.rent_options[1].commitment_months)."""
    workbook = load_workbook(io.BytesIO(report_build(content=report_content_for(scenario=scenario),
                                                     format="xlsx")), data_only=True)
    own_names = [option.offering.instance_type for option in scenario.rent_options.all()]
    words = [
        word for _, cell in visible_cells(workbook) if isinstance(cell.value, str)
        for word in ENGINE_PATH.findall(cell.value) + SNAKE_CASE.findall(cell.value)
        if not any(name.startswith(word) for name in own_names)
    ]

    assert words == []
    sources = [row[5] for row in workbook["Assumptions"].iter_rows(values_only=True)]
    assert "entered in the scenario" in sources
