"""Evaluate a scenario JSON file (the API's scenario shape) and print the result."""
import json
from pathlib import Path

from django.core.management.base import BaseCommand
from django.core.management.base import CommandError

from core.csv_cells import inert_frame
from tco.services.engine_inputs import ScenarioInputError
from tco.services.evaluation import monthly_frame
from tco.services.scenario_documents import scenario_document_data
from tco.services.scenarios import unsaved_evaluate


class Command(BaseCommand):
    help = ("Evaluate FILE.json (the same shape as POST /api/v1/evaluate/) and print the result "
            "as JSON, or the monthly cash-flow lines as CSV with --csv.")

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--csv", action="store_true", help="print the monthly lines as CSV")

    def handle(self, *args, file: Path, csv: bool, **options):
        try:
            data = json.loads(file.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise CommandError(f"{file}: cannot read scenario JSON: {exc}") from exc
        try:
            data, rent_options, api_options = scenario_document_data(data)
            evaluation = unsaved_evaluate(data=data, rent_options=rent_options,
                                          api_options=api_options, user=None)
        except ScenarioInputError as exc:
            raise CommandError(f"{file}: invalid scenario: {exc}") from exc
        if csv:
            self.stdout.write(inert_frame(monthly_frame(evaluation.result))
                              .to_csv(index=False, float_format="%.2f"), ending="")
        else:
            self.stdout.write(json.dumps(evaluation.to_dict(), indent=2))
