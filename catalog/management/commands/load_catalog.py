"""``manage.py load_catalog``: fill the catalog from its data files, or import a vendor quote file."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

from django.core.management.base import BaseCommand
from django.core.management.base import CommandError
from django.core.management.base import CommandParser

from catalog.datafiles import DATA_DIR
from catalog.datafiles import CatalogDataError
from catalog.importers import QuoteFileRejected
from catalog.importers import quote_file_check
from catalog.services import catalog_load
from catalog.services import quote_file_import
from teams.models import Team


class Command(BaseCommand):
    help = (
        "Load the catalog from catalog/data/*.yaml (idempotent: a second run changes nothing), "
        "or with --file import a vendor quote file (CSV or XLSX) of purchase or cloud prices. "
        "Quote columns: kind (system|offering); slug (system) or provider, instance_type, region, "
        "pricing_model (offering); amount (> 0; per unit or per instance-hour); currency (ISO "
        "code); as_of (YYYY-MM-DD); source (name or URL); optional accelerator and "
        "accelerators_per_instance (needed for an offering not yet in the catalog), amount_high, "
        "note (full reference: catalog/importers.py). A file with any bad row is refused whole: "
        "every error is printed and nothing is written. With --team the quotes are that team's "
        "confidential prices; without it they are public."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--file", type=Path, help="A quote file (.csv or .xlsx) to import.")
        parser.add_argument(
            "--data-dir", type=Path, default=DATA_DIR, help="Directory of the catalog data files."
        )
        parser.add_argument("--team", help="Slug of the team whose confidential quotes --file holds.")

    def handle(self, *args, file: Path | None, data_dir: Path, team: str | None, **options) -> None:
        if file is not None:
            owner = Team.objects.filter(slug=team).first() if team else None
            if team and owner is None:
                raise CommandError(f"no team '{team}'")
            self._import_quotes(file, owner)
        else:
            self._load(data_dir)

    def _load(self, data_dir: Path) -> None:
        try:
            counts = catalog_load(data_dir=data_dir)
        except CatalogDataError as exc:
            raise CommandError(f"catalog not loaded, nothing written: {exc}") from exc
        width = max(len(name) for name in counts)
        for name, counter in counts.items():
            self.stdout.write(
                f"{name:<{width}}  created {counter['created']:>4}  updated {counter['updated']:>4}"
                f"  unchanged {counter['unchanged']:>4}"
            )

    def _import_quotes(self, path: Path, team: Team | None) -> None:
        try:
            # Name and size first: an over-size file is refused before any of it is read.
            quote_file_check(file_name=path.name, size_bytes=path.stat().st_size)
            content = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        except QuoteFileRejected as exc:
            self._refuse(path, exc)
        try:
            result = quote_file_import(file_name=path.name, content=content, team=team)
        except QuoteFileRejected as exc:
            self._refuse(path, exc)
        self.stdout.write(
            f"{path.name}: {result.prices_created} price(s) added, {result.prices_unchanged} already "
            f"known, {result.offerings_created} new offering(s)"
        )

    def _refuse(self, path: Path, rejected: QuoteFileRejected) -> NoReturn:
        for error in rejected.errors:
            self.stderr.write(str(error))
        raise CommandError(
            f"{path.name} refused: {len(rejected.errors)} error(s); nothing was written"
        ) from rejected
