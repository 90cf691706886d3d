"""``manage.py refresh_prices --provider aws [--source PATH_OR_URL] [--force]``: one refresh, now."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.core.management.base import BaseCommand
from django.core.management.base import CommandError
from django.core.management.base import CommandParser
from tqdm import tqdm

from catalog.models import PriceRefreshJob
from catalog.models import RefreshStatus
from catalog.refresh.feeds import FEED_PROVIDERS
from catalog.refresh.services import price_refresh_run


class Command(BaseCommand):
    help = (
        "Refresh one provider's cloud prices from its price feed (or a local copy of it): "
        "new and changed prices are written in one transaction, and the job row says what happened."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--provider", required=True, choices=FEED_PROVIDERS)
        parser.add_argument(
            "--source",
            help="URL or local path to read instead of the live feed: the root of an AWS mirror, "
            "an Azure/GCP page file or directory of pages, a Lambda or RunPod answer file.",
        )
        parser.add_argument(
            "--force", action="store_true", help="Read AWS regions whose offer version has not changed."
        )
        parser.add_argument("--no-progress", action="store_true", help="No progress bar (logs, CI).")

    def handle(self, *args: Any, **options: Any) -> None:
        progress = partial(tqdm, file=self.stderr._out, leave=False, disable=options["no_progress"])
        job = price_refresh_run(
            provider=options["provider"],
            location=options["source"],
            force=options["force"],
            progress=progress,
        )
        if job.status != RefreshStatus.SUCCEEDED:
            raise CommandError(f"refresh {job.pk} of {job.provider} failed ({job.error_code}): {job.error}")
        self.stdout.write(self.style.SUCCESS(summary(job)))


def summary(job: PriceRefreshJob) -> str:
    """One line a person reads after a refresh."""
    skipped = f", regions unchanged: {', '.join(job.regions_skipped)}" if job.regions_skipped else ""
    return (
        f"refresh {job.pk} of {job.provider}: {job.prices_new} new, {job.prices_changed} changed, "
        f"{job.prices_unchanged} unchanged, {job.prices_rejected} rejected prices; "
        f"{job.offerings_new} new offerings; {job.prices_other_terms} other reservation terms not stored"
        f"{skipped} ({(job.finished_at - job.started_at).total_seconds():.1f} s)"
    )
