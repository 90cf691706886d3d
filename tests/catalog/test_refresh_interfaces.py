"""The refresh's ways in and out: the command, the task, price ages and history in the API, and
the admin pages (job list, price ages, the offering's price chart)."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from catalog.models import CloudOffering
from catalog.models import PriceCheck
from catalog.models import PricePoint
from catalog.models import PriceRefreshJob
from catalog.models import RefreshStatus
from catalog.models import Source
from catalog.refresh.feeds import FeedSettings
from catalog.tasks import UPSTREAM_RETRY_DELAYS_S
from catalog.tasks import refresh_prices_task
from tests.catalog.pricefeeds.conftest import Reply  # noqa: F401  (the local_server fixture)
from tests.catalog.pricefeeds.conftest import local_server  # noqa: F401  (the local_server fixture)
from tests.catalog.test_refresh import FEED_SETTINGS
from tests.catalog.test_refresh import SAMPLES
from tests.catalog.test_refresh import cut_in_half
from tests.catalog.test_refresh import refresh

API = "/api/v1"
LAMBDA_SAMPLE = SAMPLES / "lambda-instance-types-sample.json"


def lambda_h100() -> CloudOffering:
    return CloudOffering.objects.get(provider="lambda", instance_type="gpu_8x_h100_sxm5", region="global")


# The catalog's own price of that offering, in the same history as the feed's: seed-004's $26.80
# as of 2025-01-01 (catalog/data/offerings.yaml), never checked by a refresh.
SEED_AS_OF = dt.date(2025, 1, 1)


# --- the command -----------------------------------------------------------------------------


def test_the_command_refreshes_and_prints_the_counts(catalog):
    out, err = io.StringIO(), io.StringIO()

    call_command("refresh_prices", provider="lambda", source=str(LAMBDA_SAMPLE), stdout=out, stderr=err)

    job = PriceRefreshJob.objects.get()
    assert f"refresh {job.pk} of lambda: 4 new, 0 changed, 0 unchanged, 0 rejected prices" in out.getvalue()
    assert "compare prices" in err.getvalue()  # the progress bar


def test_the_command_fails_with_the_jobs_reason(catalog, tmp_path):
    cut = cut_in_half(LAMBDA_SAMPLE, tmp_path / "cut.json")

    with pytest.raises(CommandError, match="failed \\(truncated_payload\\)"):
        call_command("refresh_prices", provider="lambda", source=str(cut), no_progress=True,
                     stdout=io.StringIO())

    assert PriceRefreshJob.objects.get().status == RefreshStatus.FAILED


def test_the_command_refuses_an_unknown_provider(catalog):
    with pytest.raises(CommandError, match="invalid choice: 'oracle'"):
        call_command("refresh_prices", provider="oracle")


# --- the task (eager here; tests/catalog/test_refresh_worker.py runs it on a real worker) -----


@pytest.fixture
def fast_feeds(monkeypatch):
    """Tasks read the feed settings from Django; these fail HTTP requests in under a second."""
    monkeypatch.setattr(FeedSettings, "from_settings", classmethod(lambda cls: FEED_SETTINGS))


def test_the_task_returns_its_job(catalog, fast_feeds):
    job_id = refresh_prices_task.apply(kwargs={"provider": "lambda", "location": str(LAMBDA_SAMPLE)}).get()

    assert PriceRefreshJob.objects.get(pk=job_id).prices_new == 4


@pytest.fixture
def eager_retries():
    """Eagerly a retry runs at once (no countdown), unless the Retry is propagated first."""
    conf = refresh_prices_task.app.conf
    propagates = conf.task_eager_propagates
    conf.task_eager_propagates = False
    yield
    conf.task_eager_propagates = propagates


def test_the_task_tries_again_after_an_upstream_outage(
        catalog, fast_feeds, eager_retries, local_server):  # noqa: F811 (the imported fixture)
    local_server.routes["/types"] = Reply(status=503)

    refresh_prices_task.apply(kwargs={"provider": "lambda", "location": local_server.url("/types")})

    # The first attempt and one per retry delay; each leaves its own job row.
    jobs = PriceRefreshJob.objects.all()
    assert len(jobs) == 1 + len(UPSTREAM_RETRY_DELAYS_S)
    assert {(j.status, j.error_code) for j in jobs} == {(RefreshStatus.FAILED, "upstream_http_error")}


def test_the_task_does_not_retry_a_bad_payload(catalog, fast_feeds, tmp_path):
    cut = cut_in_half(LAMBDA_SAMPLE, tmp_path / "cut.json")

    refresh_prices_task.apply(kwargs={"provider": "lambda", "location": str(cut)})

    assert PriceRefreshJob.objects.get().error_code == "truncated_payload"


# --- age and staleness -----------------------------------------------------------------------


@pytest.fixture
def aged_prices(catalog, settings):
    """Three prices of one offering beside its seed price, known to hold 10, 2 and 0 days ago;
    stale after 5 days.

    - a quote as of 10 days ago, never checked: age 10, stale;
    - a feed price as of 100 days ago that a refresh found current 2 days ago: age 2;
    - the Lambda feed's price read today (as of today, checked today): age 0.
    """
    settings.PRICE_STALE_AFTER_DAYS = 5
    refresh("lambda", LAMBDA_SAMPLE)
    offering = lambda_h100()
    today = timezone.localdate()
    quote = Source.objects.create(key="quote-test", title="Quote", kind="quote")
    quoted = PricePoint.objects.create(offering=offering, amount=Decimal("20"),
                                       as_of=today - dt.timedelta(days=10), source=quote,
                                       retrieved_at=timezone.now())
    checked = PricePoint.objects.create(offering=offering, amount=Decimal("22"),
                                        as_of=today - dt.timedelta(days=100), source=quote,
                                        retrieved_at=timezone.now())
    PriceCheck.objects.create(price_point=checked, checked_at=timezone.now() - dt.timedelta(days=2))
    return {"quoted": quoted, "checked": checked, "fresh": offering.prices.get(amount=Decimal("23.92"))}


def ages(rows: list[dict]) -> dict[str, tuple[int, bool]]:
    return {row["amount"]: (row["age_days"], row["is_stale"]) for row in rows}


def test_price_points_in_the_api_carry_their_age(client, aged_prices):
    rows = client.get(f"{API}/price-points/", {"offering_id": lambda_h100().pk}).json()["results"]

    seed_age = (timezone.localdate() - SEED_AS_OF).days
    assert ages(rows) == {"20.0000": (10, True), "22.0000": (2, False), "23.9200": (0, False),
                          "26.8000": (seed_age, True)}
    checked = next(r for r in rows if r["amount"] == "22.0000")
    assert checked["checked_on"] == (timezone.localdate() - dt.timedelta(days=2)).isoformat()


def test_the_offerings_price_in_force_carries_its_age(client, aged_prices):
    # The Lambda price is as of today, the newest: it is the one in force.
    price = client.get(f"{API}/offerings/{lambda_h100().pk}/").json()["price"]

    assert (price["amount"], price["age_days"], price["is_stale"]) == ("23.9200", 0, False)
    assert price["checked_on"] == timezone.localdate().isoformat()


def test_a_refresh_that_finds_a_price_unchanged_makes_it_young_again(client, catalog, settings):
    settings.PRICE_STALE_AFTER_DAYS = 5
    refresh("lambda", LAMBDA_SAMPLE)
    point = lambda_h100().prices.get(source__kind="cloud_price_api")
    # Read 40 days ago: as of then and last found current then.
    PricePoint.objects.filter(pk=point.pk).update(as_of=timezone.localdate() - dt.timedelta(days=40))
    PriceCheck.objects.filter(price_point=point).update(checked_at=timezone.now() - dt.timedelta(days=40))
    before = client.get(f"{API}/price-points/{point.pk}/").json()

    refresh("lambda", LAMBDA_SAMPLE)

    after = client.get(f"{API}/price-points/{point.pk}/").json()
    assert (before["age_days"], before["is_stale"]) == (40, True)
    assert (after["age_days"], after["is_stale"]) == (0, False)


# --- history and "price at" ------------------------------------------------------------------


def test_the_history_of_an_offering_lists_its_prices_newest_first_with_their_age(client, aged_prices):
    today = timezone.localdate()

    everything = client.get(f"{API}/offerings/{lambda_h100().pk}/history/").json()
    last_week = client.get(f"{API}/offerings/{lambda_h100().pk}/history/",
                           {"start": (today - dt.timedelta(days=7)).isoformat()}).json()
    older = client.get(f"{API}/offerings/{lambda_h100().pk}/history/",
                       {"start": (today - dt.timedelta(days=200)).isoformat(),
                        "end": (today - dt.timedelta(days=7)).isoformat()}).json()

    assert [r["amount"] for r in everything] == ["23.9200", "20.0000", "22.0000", "26.8000"]
    assert [r["amount"] for r in last_week] == ["23.9200"]
    assert ages(older) == {"20.0000": (10, True), "22.0000": (2, False)}


def test_a_history_range_that_ends_before_it_starts_is_refused(client, aged_prices):
    response = client.get(f"{API}/offerings/{lambda_h100().pk}/history/",
                          {"start": "2026-02-01", "end": "2026-01-01"})

    assert response.status_code == 400
    assert set(response.json()) == {"end"}


def test_price_at_a_date_is_the_latest_as_of_on_or_before_it(client, aged_prices):
    url = f"{API}/offerings/{lambda_h100().pk}/price-at/"
    today = timezone.localdate()

    def amount_on(day: dt.date) -> str:
        return client.get(url, {"on": day.isoformat()}).json()["amount"]

    assert amount_on(today - dt.timedelta(days=50)) == "22.0000"  # as of 100 days ago
    assert amount_on(today - dt.timedelta(days=10)) == "20.0000"  # the quote from 10 days ago
    assert amount_on(today) == "23.9200"
    assert client.get(url).json()["amount"] == "23.9200"  # no date: today
    assert amount_on(today - dt.timedelta(days=101)) == "26.8000"  # the seed's, as of 2025-01-01
    assert client.get(url, {"on": (SEED_AS_OF - dt.timedelta(days=1)).isoformat()}).status_code == 404
    assert client.get(url, {"on": "yesterday"}).status_code == 400


def test_refresh_jobs_are_listed_with_their_counts(client, catalog, tmp_path):
    refresh("lambda", LAMBDA_SAMPLE)
    refresh("lambda", cut_in_half(LAMBDA_SAMPLE, tmp_path / "cut.json"))
    # Signed-in users only (issue 25): a job's error names feed files.
    client.force_login(get_user_model().objects.create_user("reader", password="pw"))

    rows = client.get(f"{API}/price-refresh-jobs/", {"provider": "lambda"}).json()["results"]

    failed, succeeded = rows  # newest first
    assert (succeeded["status"], succeeded["prices_new"], succeeded["error_code"]) == ("succeeded", 4, "")
    assert (failed["status"], failed["prices_new"]) == ("failed", 0)
    assert failed["error_code"] == "truncated_payload"
    assert client.post(f"{API}/price-refresh-jobs/", {}).status_code in (401, 403, 405)


# --- admin -----------------------------------------------------------------------------------


@pytest.fixture
def admin_client_(client, db):
    user = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(user)
    return client


def test_the_admin_lists_refresh_jobs_and_shows_their_rejections(admin_client_, catalog, tmp_path):
    from tests.catalog.test_refresh import aws_mirror

    job = refresh("aws", aws_mirror(tmp_path))

    listing = admin_client_.get(reverse("admin:catalog_pricerefreshjob_changelist"))
    page = admin_client_.get(reverse("admin:catalog_pricerefreshjob_change", args=[job.pk]))

    assert listing.status_code == page.status_code == 200
    assert "capacity_block_zero_price" in page.content.decode()
    assert "5Q7AP3RH7KTVUNCJ" in page.content.decode()


def test_the_offering_admin_charts_its_price_history(admin_client_, aged_prices):
    page = admin_client_.get(reverse("admin:catalog_cloudoffering_change", args=[lambda_h100().pk]))

    body = page.content.decode()
    assert page.status_code == 200
    assert "<svg" in body
    assert "(stale)" in body  # the quote, 10 days old, in the price history inline
    assert admin_client_.get(reverse("admin:catalog_cloudoffering_add")).status_code == 200


def test_the_price_point_list_shows_ages(admin_client_, aged_prices):
    page = admin_client_.get(reverse("admin:catalog_pricepoint_changelist"),
                             {"offering__provider__exact": "lambda"})

    body = page.content.decode()
    assert "10 days (stale)" in body
    assert "2 days" in body
