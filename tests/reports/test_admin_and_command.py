"""The admin's Export Excel / Export PDF actions and list of past exports, and `export_report`."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.core.management import CommandError
from django.core.management import call_command
from openpyxl import load_workbook

from reports.choices import ExportStatus
from reports.models import ReportExport

pytestmark = pytest.mark.django_db


def test_the_scenario_actions_queue_exports_listed_with_their_files(
    admin_client, admin_user, scenario, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            "/admin/tco/scenario/", {"action": "export_excel", "_selected_action": [scenario.pk]}, follow=True
        )

    assert "Queued 1 export(s) as Excel workbook" in response.content.decode()
    export = ReportExport.objects.get()
    assert (export.format, export.status, export.requested_by) == ("xlsx", ExportStatus.DONE, admin_user)
    listing = admin_client.get("/admin/reports/reportexport/").content.decode()
    download_url = f"/admin/reports/reportexport/{export.pk}/download/"
    assert download_url in listing
    download = admin_client.get(download_url)
    assert (
        load_workbook(io.BytesIO(b"".join(download.streaming_content)))["Summary"]["B4"].value
        == scenario.name
    )
    change_page = admin_client.get(f"/admin/tco/scenario/{scenario.pk}/change/").content.decode()
    assert download_url in change_page


def test_the_pdf_action_queues_one_export_per_selected_scenario(admin_client, demo_scenarios):
    selected = [scenario.pk for scenario in demo_scenarios.values()]

    admin_client.post("/admin/tco/scenario/", {"action": "export_pdf", "_selected_action": selected})

    assert sorted(ReportExport.objects.values_list("scenario", "format", "status")) == sorted(
        (pk, "pdf", ExportStatus.PENDING) for pk in selected
    )


def test_export_report_writes_both_files(scenario, tmp_path):
    xlsx, pdf = tmp_path / "out" / "report.xlsx", tmp_path / "out" / "report.pdf"
    out = io.StringIO()

    call_command(
        "export_report",
        scenario.pk,
        "--xlsx",
        xlsx,
        "--pdf",
        pdf,
        "--paper",
        "letter",
        "--author",
        "Finance",
        stdout=out,
    )

    workbook = load_workbook(xlsx)
    assert workbook["Summary"]["B9"].value == "Finance"
    assert pdf.read_bytes().startswith(b"%PDF-")
    assert f"xlsx: {xlsx}" in out.getvalue() and f"pdf: {pdf}" in out.getvalue()
    assert sorted(path.name for path in xlsx.parent.iterdir()) == ["report.pdf", "report.xlsx"]


def test_export_report_writes_nothing_for_a_scenario_that_cannot_be_evaluated(scenario, tmp_path):
    scenario.prices_as_of = dt.date(2000, 1, 1)  # before any catalog price
    scenario.save()

    with pytest.raises(CommandError, match=r"no price for AWS p5.48xlarge \(8x H100 SXM5 80 GB\), on-demand"):
        call_command("export_report", scenario.pk, "--xlsx", tmp_path / "report.xlsx")

    assert list(tmp_path.iterdir()) == []


def test_export_report_needs_a_scenario_and_a_target(scenario, tmp_path):
    with pytest.raises(CommandError, match="no scenario with id 0"):
        call_command("export_report", 0, "--xlsx", tmp_path / "report.xlsx")
    with pytest.raises(CommandError, match="give --xlsx PATH, --pdf PATH or both"):
        call_command("export_report", scenario.pk)
