"""Run a provider's price refresh: a job row, one complete feed read, one write transaction.

    job = price_refresh_run(provider="aws")                       # live feed
    job = price_refresh_run(provider="lambda", location="/data/lambda.json")

1. A RUNNING job row is committed first, so a run that dies still leaves a trace.
2. The whole feed is read and checked before anything is written; a FeedError (truncated or
   malformed payload, HTTP errors after retries, unknown currency, absurd price) ends the run.
3. One transaction (on a new connection if the old one died while the feed was read), holding
   a lock on the feed's Source row so two runs of one provider cannot both add the same price,
   writes offerings, new and changed prices, checks and the job's counts. Its commit sends
   ``prices_refreshed`` when any price was written.
4. A failure rolls that transaction back and records the reason on the job row in a separate
   transaction: earlier prices stay as they were. When the failure is the database going away,
   recording it waits for the database to come back, so the row is never left RUNNING by a
   short outage; the task then retries (catalog/tasks.py).
"""

from __future__ import annotations

import datetime as dt
import logging
import time

from django.db import InterfaceError
from django.db import OperationalError
from django.db import connection
from django.db import transaction
from django.utils import timezone

from catalog.choices import SourceKind
from catalog.models import PriceRefreshJob
from catalog.models import RefreshStatus
from catalog.models import Source
from catalog.pricefeeds import FeedError
from catalog.refresh.feeds import FEED_PROVIDERS
from catalog.refresh.feeds import FEED_SOURCES
from catalog.refresh.feeds import FeedRun
from catalog.refresh.feeds import FeedSettings
from catalog.refresh.feeds import Progress
from catalog.refresh.feeds import feed_fetch
from catalog.refresh.feeds import no_progress
from catalog.refresh.limits import ABANDONED_AFTER_S
from catalog.refresh.limits import FAILURE_RECORD_PATIENCE_S
from catalog.refresh.limits import FAILURE_RECORD_RETRY_INTERVAL_S
from catalog.refresh.signals import prices_refreshed
from catalog.refresh.terms import TermPreference
from catalog.refresh.terms import preferred_prices
from catalog.refresh.writer import prices_write
from catalog.refresh.writer import rejection_row
from catalog.refresh.writer import unchanged_regions_check
from core import jobs
from core.shown_errors import without_paths

logger = logging.getLogger(__name__)

INTERNAL_ERROR = "internal_error"
ABANDONED = "abandoned"


def price_refresh_run(
    *,
    provider: str,
    location: str | None = None,
    force: bool = False,
    feed_settings: FeedSettings | None = None,
    preference: TermPreference | None = None,
    progress: Progress = no_progress,
    attempt: int = 1,
) -> PriceRefreshJob:
    """Refresh the prices of one provider from its feed; the job row says what happened.

    Parameters
    ----------
    provider : str
        One of FEED_PROVIDERS: aws, azure, gcp, lambda, runpod.
    location : str, optional
        URL or local path to read instead of the provider's live endpoint.
    force : bool
        Read every AWS region even when its version is the one the last refresh read.
    feed_settings : FeedSettings, optional
        AWS regions and API keys; default from the Django settings.
    preference : TermPreference, optional
        Which reservation purchase option prices an offering (default: no upfront, standard).
    progress : Progress
        Wraps the long loops (tqdm in the command).
    attempt : int
        Which try this is (the reaper tries again a refresh whose worker died).

    Returns
    -------
    PriceRefreshJob
        SUCCEEDED with its counts, or FAILED with ``error_code`` (a FeedError's code) and ``error``.
        Errors that are not the feed's (a database failure, a bug) are recorded and raised.
    """
    if provider not in FEED_PROVIDERS:
        raise ValueError(f"no price feed for provider {provider!r}; one of {', '.join(FEED_PROVIDERS)}")
    feed_settings = feed_settings or FeedSettings.from_settings()
    _abandoned_jobs_fail(provider)
    previous = last_succeeded_job(provider)
    job = PriceRefreshJob.objects.create(
        provider=provider, location=location or FEED_SOURCES[provider].url, started_at=timezone.now(),
        attempt=attempt, **jobs.claim_fields(),
    )
    try:
        run = feed_fetch(
            provider,
            location=location,
            last_versions=None if force or previous is None else previous.source_versions,
            feed_settings=feed_settings,
            progress=progress,
        )
        _replace_connection_if_lost()
        with transaction.atomic():
            _write(job, run, previous, preference or TermPreference(), progress)
    except FeedError as exc:
        _fail(job, exc.code, str(exc))
    except Exception as exc:
        _fail(job, INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
        raise
    return job


def last_succeeded_job(provider: str) -> PriceRefreshJob | None:
    """The provider's latest successful refresh."""
    return (
        PriceRefreshJob.objects.filter(provider=provider, status=RefreshStatus.SUCCEEDED)
        .order_by("-started_at", "-id")
        .first()
    )


def feed_source(provider: str) -> Source:
    """The Source row of a provider's feed, created on first use."""
    described = FEED_SOURCES[provider]
    source, _ = Source.objects.get_or_create(
        key=described.key,
        team=None,
        defaults={"title": described.title, "kind": SourceKind.CLOUD_PRICE_API, "url": described.url},
    )
    return source


def _write(
    job: PriceRefreshJob,
    run: FeedRun,
    previous: PriceRefreshJob | None,
    preference: TermPreference,
    progress: Progress,
) -> None:
    """Everything a successful run writes; inside the run's transaction."""
    source = Source.objects.select_for_update().get(pk=feed_source(job.provider).pk)
    observed_on = timezone.localdate(job.started_at)
    chosen, other_terms = preferred_prices(run.prices, preference)
    outcome = prices_write(
        job=job,
        source=source,
        prices=chosen,
        observed_on=observed_on,
        retrieved_at=job.started_at,
        progress=progress,
    )
    if run.regions_skipped and previous is not None:
        outcome.unchanged += unchanged_regions_check(
            job=job, previous_job=previous, regions=run.regions_skipped, checked_at=job.started_at
        )
    source.retrieved_on = observed_on
    source.save(update_fields=["retrieved_on"])
    rejections = [rejection_row(r.sku, r.reason_code, r.detail) for r in run.rejections] + outcome.rejections
    job.status = RefreshStatus.SUCCEEDED
    job.finished_at = timezone.now()
    job.prices_new = outcome.new
    job.prices_changed = outcome.changed
    job.prices_unchanged = outcome.unchanged
    job.prices_rejected = len(rejections)
    job.prices_other_terms = other_terms
    job.offerings_new = outcome.offerings_new
    job.source_versions = run.source_versions
    job.regions_skipped = list(run.regions_skipped)
    job.warnings = list(run.warnings)
    job.rejections = rejections
    job.save()
    if outcome.written:
        transaction.on_commit(lambda: prices_refreshed.send(sender=PriceRefreshJob, job_id=job.pk))


def _fail(job: PriceRefreshJob, code: str, message: str) -> None:
    logger.warning("price refresh %s of %s failed: %s", job.pk, job.provider, message)
    job.status = RefreshStatus.FAILED
    job.finished_at = timezone.now()
    job.error_code = code
    job.error = without_paths(message)  # the job row is public; the log above has the paths
    deadline = time.monotonic() + FAILURE_RECORD_PATIENCE_S
    while True:
        try:
            job.save(update_fields=["status", "finished_at", "error_code", "error"])
            return
        except (OperationalError, InterfaceError):
            # The run's own error may be the database going away: wait for it to come back.
            # Inside a caller's transaction the connection cannot be replaced.
            if connection.in_atomic_block or time.monotonic() >= deadline:
                raise
            connection.close()  # the next query opens a new connection
            time.sleep(FAILURE_RECORD_RETRY_INTERVAL_S)


def _replace_connection_if_lost() -> None:
    """Reconnect if the connection died while the feed was read (minutes for AWS, the connection
    idle): a database restart or an idle timeout meanwhile must not fail a refresh whose feed
    was read whole. Inside a caller's transaction the connection is left alone."""
    if not connection.in_atomic_block and connection.connection is not None and not connection.is_usable():
        connection.close()


def _abandoned_jobs_fail(provider: str) -> None:
    """Fail the provider's jobs still RUNNING long after any run could have ended (lost worker)."""
    cutoff = timezone.now() - dt.timedelta(seconds=ABANDONED_AFTER_S)
    PriceRefreshJob.objects.filter(
        provider=provider, status=RefreshStatus.RUNNING, started_at__lt=cutoff
    ).update(
        status=RefreshStatus.FAILED,
        finished_at=timezone.now(),
        error_code=ABANDONED,
        error=f"still running {ABANDONED_AFTER_S} s after it started: its worker was lost",
    )
