"""``manage.py export_report SCENARIO_ID --xlsx PATH --pdf PATH``: build report files directly."""

from __future__ import annotations

import getpass
import os
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand
from django.core.management.base import CommandError
from django.core.management.base import CommandParser

from reports.choices import PaperSize
from reports.choices import ReportFormat
from reports.services import report_build
from reports.services import report_content_for
from tco.models import Scenario
from tco.services.engine_inputs import ScenarioInputError


class Command(BaseCommand):
    help = (
        "Write a scenario's Excel workbook and/or PDF report to files, without the job queue. "
        "The scenario is evaluated once; a scenario that cannot be evaluated writes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("scenario_id", type=int)
        parser.add_argument("--xlsx", type=Path, help="Where to write the Excel workbook.")
        parser.add_argument("--pdf", type=Path, help="Where to write the PDF report.")
        parser.add_argument(
            "--paper",
            choices=PaperSize.values,
            default=PaperSize.A4,
            help="Paper of the PDF and of the workbook's print setup (default a4).",
        )
        parser.add_argument("--author", default=None, help="Author on the cover (default: the OS user).")

    def handle(
        self,
        *args,
        scenario_id: int,
        xlsx: Path | None,
        pdf: Path | None,
        paper: str,
        author: str | None,
        **options,
    ) -> None:
        targets = {ReportFormat.XLSX: xlsx, ReportFormat.PDF: pdf}
        targets = {fmt: path for fmt, path in targets.items() if path is not None}
        if not targets:
            raise CommandError("give --xlsx PATH, --pdf PATH or both")
        scenario = (
            Scenario.objects.select_related("accelerator", "system", "facility")
            .filter(pk=scenario_id)
            .first()
        )
        if scenario is None:
            raise CommandError(f"no scenario with id {scenario_id}")
        try:
            content = report_content_for(
                scenario=scenario, paper_size=paper, author=author or getpass.getuser()
            )
        except ScenarioInputError as exc:
            raise CommandError(f"scenario {scenario_id} cannot be evaluated: {exc}") from exc
        # Build every file before writing any, so a failure leaves nothing half done.
        payloads = {fmt: report_build(content=content, format=fmt) for fmt in targets}
        for fmt, path in targets.items():
            _write_atomically(path, payloads[fmt])
            self.stdout.write(f"{fmt}: {path} ({len(payloads[fmt]):,} bytes)")


def _write_atomically(path: Path, payload: bytes) -> None:
    """Write to a temporary file beside ``path`` and rename it: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
