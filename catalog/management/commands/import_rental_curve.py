"""Import an accelerator's rental term structure from a CSV file (date, term, price, source)."""
from __future__ import annotations

import datetime
from pathlib import Path

from django.core.management.base import BaseCommand
from django.core.management.base import CommandError

from catalog.models import Accelerator
from catalog.rental_curves import import_rental_curve
from core.currency import Currency
from costmodel.term_structure import CurveError


class Command(BaseCommand):
    help = ("Import a rental curve for an accelerator: a CSV with the columns date, term, price, "
            "source (prices per accelerator-hour in --currency, US dollars by default; terms spot, "
            "on demand, 1, 3, 6, 12, 24, 36 months). A file with any bad row is refused whole, each "
            "row and column named.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("accelerator", help="the accelerator's slug, e.g. h100-sxm5-80gb")
        parser.add_argument("file", type=Path)
        parser.add_argument("--currency", default=Currency.USD, choices=Currency.values,
                            help="the currency the file's prices are quoted in (default USD)")

    def handle(self, *args, accelerator: str, file: Path, currency: str, **options) -> None:
        found = Accelerator.objects.filter(slug=accelerator).first()
        if found is None:
            raise CommandError(f"accelerator: no accelerator {accelerator!r} in the catalog")
        if not file.exists():
            raise CommandError(f"file: {file}: no such file")
        try:
            created = import_rental_curve(accelerator=found, text=file.read_text(encoding="utf-8"),
                                          today=datetime.date.today(), currency=currency)
        except CurveError as exc:
            raise CommandError(f"{file.name} refused, nothing written:\n" +
                               "\n".join(str(problem) for problem in exc.problems)) from exc
        self.stdout.write(f"{created} new rental curve prices for {found.name} from {file.name}")
