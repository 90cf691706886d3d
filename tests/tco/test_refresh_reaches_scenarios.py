"""A scheduled price refresh on a real Celery worker re-prices the demo scenarios that use the
offerings it refreshed, and alerts as the price-alert rules say.

The demo's 8x H100 scenario rents AWS p5.48xlarge on-demand in its cheapest region and Lambda's
gpu_8x_h100_sxm5. Before the refresh the catalog prices them at $55.04 (seed-003; no region
stated) and $26.80 (seed-004), each billed for every hour the instances are held (issue 23):
buying breaks even in month 12 against AWS, and late against Lambda. The refreshes read the
sample feeds, changed where this test says:
AWS p5.48xlarge at $55.04 in us-east-1 and $44.00 in us-west-2, which becomes the cheapest
region (renting cheaper: buying breaks even later); Lambda at $35.00 an hour, on the same
'global' offering as the seed's price (renting dearer: buying breaks even sooner).
"""
from __future__ import annotations

import time
from decimal import Decimal

import pytest
from django.conf import settings

from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.models import PriceRefreshJob
from catalog.models import RefreshStatus
from catalog.tasks import refresh_prices_task
from core.queues import Queue
from tco.demo import load_demo
from tco.models import AlertKind
from tco.models import PriceAlert
from tco.models import ScenarioSnapshot
from tco.models import SnapshotReason
from tco.services.evaluation import scenario_evaluate
from tco.services.repricing import scenario_snapshot_save
from tests.catalog.test_refresh import aws_mirror
from tests.catalog.test_refresh import lambda_payload
from tests.catalog.test_refresh import sample
from tests.conftest import _load_catalog_once
from tests.worker import WorkerProcess

pytestmark = pytest.mark.worker
WAIT_S = 120
THRESHOLD_MONTHS = 3  # the worker's REPRICE_BREAKEVEN_THRESHOLD_MONTHS (the default)
H100_DEMO = "8x H100 training cluster"
# The sample's us-west-2 p5.48xlarge on-demand price dimension (SKU HNW4W6GM8AE2PCQX).
WEST_P5 = ("HNW4W6GM8AE2PCQX", "HNW4W6GM8AE2PCQX.JRTCKXETXF", "HNW4W6GM8AE2PCQX.JRTCKXETXF.6YS6EN2CT7")


@pytest.fixture
def demo(transactional_db):
    """The catalog and the demo scenarios, each evaluated once as its readers see it."""
    _load_catalog_once()
    scenarios = {scenario.name: scenario for scenario in load_demo()}
    for scenario in scenarios.values():
        scenario_snapshot_save(scenario=scenario, evaluation=scenario_evaluate(scenario=scenario))
    return scenarios


@pytest.fixture
def worker(demo, live_celery):
    live_celery.control.purge()
    process = WorkerProcess(broker_env={
        "DJANGO_SETTINGS_MODULE": "config.settings.base", "REDIS_URL": settings.REDIS_URL,
        "PRICE_REFRESH_AWS_REGIONS": "us-east-1,us-west-2",
        "REPRICE_BREAKEVEN_THRESHOLD_MONTHS": str(THRESHOLD_MONTHS)}).start()
    yield process
    process.stop()


def wait_for(query, what: str):
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        found = query()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"no {what} within {WAIT_S}s")


def two(rows) -> list | None:
    rows = list(rows)
    return rows if len(rows) == 2 else None


def aws_sample_with_cheaper_west(root):
    offer = sample("aws-ec2-offer-sample.json")
    sku, term, dimension = WEST_P5
    offer["terms"]["OnDemand"][sku][term]["priceDimensions"][dimension]["pricePerUnit"]["USD"] = "44.00"
    return aws_mirror(root, offer=offer)


def test_a_scheduled_refresh_reprices_and_alerts_the_demo_scenarios_using_the_offerings(
        demo, worker, tmp_path):
    h100 = demo[H100_DEMO]
    first = {name: s.snapshots.get() for name, s in demo.items()}
    old_options = {row["name"]: row for row in first[H100_DEMO].options}

    # What the daily schedule sends (catalog/migrations/0003), reading the samples.
    for provider, location in (("lambda", lambda_payload(tmp_path / "lambda.json", h100_cents=3500)),
                               ("aws", aws_sample_with_cheaper_west(tmp_path / "aws"))):
        refresh_prices_task.apply_async(kwargs={"provider": provider, "location": str(location)},
                                        queue=Queue.REFRESH)
    jobs = wait_for(lambda: two(PriceRefreshJob.objects.exclude(status=RefreshStatus.RUNNING)),
                    "two finished refresh jobs")
    assert [job.status for job in jobs] == [RefreshStatus.SUCCEEDED] * 2, [j.error for j in jobs]
    alerts = wait_for(lambda: two(PriceAlert.objects.order_by("rent_option")), "two price alerts")

    west = PricePoint.objects.get(offering__provider="aws", offering__instance_type="p5.48xlarge",
                                  offering__region="us-west-2", offering__pricing_model="on_demand")
    lambda_feed = PricePoint.objects.get(
        offering=CloudOffering.objects.get(provider="lambda", instance_type="gpu_8x_h100_sxm5"),
        source__kind="cloud_price_api")
    aws_alert, lambda_alert = alerts
    assert (aws_alert.rent_option, aws_alert.new_price_point) == (
        "AWS p5.48xlarge (8x H100 SXM5 80 GB), cheapest region, on-demand", west)
    assert (aws_alert.old_price_usd_per_instance_hour, aws_alert.new_price_usd_per_instance_hour) == (
        Decimal("55.04"), Decimal("44.00"))
    assert aws_alert.old_price_point.source.key == "seed-003"
    assert (lambda_alert.rent_option, lambda_alert.new_price_point) == (
        "Lambda gpu_8x_h100_sxm5 (8x H100 SXM5 80 GB), global, on-demand", lambda_feed)
    assert (lambda_alert.old_price_usd_per_instance_hour,
            lambda_alert.new_price_usd_per_instance_hour) == (Decimal("26.80"), Decimal("35.00"))
    assert lambda_alert.old_price_point.source.key == "seed-004"
    for alert in alerts:
        assert alert.scenario == h100 and alert.refresh_job in jobs
        old = old_options[alert.rent_option]
        assert (alert.old_breakeven_month, alert.old_winner) == (old["breakeven_month"], old["winner"])
    assert (aws_alert.kind, aws_alert.old_winner, aws_alert.new_winner) == (
        AlertKind.BREAKEVEN_MOVED, "buy", "buy")
    assert aws_alert.old_breakeven_month == 12
    assert aws_alert.new_breakeven_month - aws_alert.old_breakeven_month >= THRESHOLD_MONTHS
    assert (lambda_alert.kind, lambda_alert.old_winner, lambda_alert.new_winner) == (
        AlertKind.BREAKEVEN_MOVED, "buy", "buy")
    assert lambda_alert.old_breakeven_month - lambda_alert.new_breakeven_month >= THRESHOLD_MONTHS

    # The figures the alerts report are the new baseline: priced from the feeds.
    latest = h100.snapshots.order_by("-created_at", "-id").first()
    assert latest.reason == SnapshotReason.REPRICED
    assert {west, lambda_feed} <= set(latest.price_points.all())
    # Scenarios on offerings no refresh touched are neither re-priced nor alerted.
    for name in ("Inference fleet: 32x L40S vs cloud", "256x B200 build with liquid cooling"):
        assert list(ScenarioSnapshot.objects.filter(scenario=demo[name])) == [first[name]]
