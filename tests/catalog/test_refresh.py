"""Price refresh jobs on the sample payloads: what is written, what a second run adds (nothing),
and bad input that writes nothing and leaves earlier prices intact."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from catalog.models import Accelerator
from catalog.models import CloudOffering
from catalog.models import PriceCheck
from catalog.models import PricePoint
from catalog.models import PriceRefreshJob
from catalog.models import RefreshStatus
from catalog.pricefeeds import HttpSettings
from catalog.refresh.feeds import FeedSettings
from catalog.refresh.limits import ABANDONED_AFTER_S
from catalog.refresh.services import price_refresh_run
from catalog.refresh.signals import prices_refreshed
from catalog.refresh.terms import TermPreference
from catalog.selectors import price_at
from tests.catalog.pricefeeds.conftest import Reply  # noqa: F401  (the local_server fixture)
from tests.catalog.pricefeeds.conftest import local_server  # noqa: F401  (the local_server fixture)

SAMPLES = Path(__file__).resolve().parent / "pricefeeds" / "samples"
VERSION = "/offers/v1.0/aws/AmazonEC2/20260910195514/{region}/index.json"
NEW_VERSION = "/offers/v1.0/aws/AmazonEC2/20261001000000/{region}/index.json"
REGIONS = ("us-east-1", "us-west-2")
# Fast HTTP failures: one retry without backoff sleep, 0.3 s to read.
FAST_HTTP = HttpSettings(connect_timeout_seconds=1.0, read_timeout_seconds=0.3, max_retries=1,
                         backoff_factor_seconds=0.0)
FEED_SETTINGS = FeedSettings(aws_regions=REGIONS, http=FAST_HTTP)


# --- payloads --------------------------------------------------------------------------------


def sample(name: str) -> Any:
    return json.loads((SAMPLES / name).read_text())


def write_json(path: Path, document: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2))
    return path


def aws_mirror(root: Path, *, offer: dict | None = None, versions: dict[str, str] | None = None) -> Path:
    """A local copy of the bulk API tree: the sample offer file for each region, at ``versions``."""
    region_index = sample("aws-ec2-region-index-sample.json")
    offer = offer or sample("aws-ec2-offer-sample.json")
    for region in REGIONS:
        version = (versions or {}).get(region, VERSION).format(region=region)
        region_index["regions"][region]["currentVersionUrl"] = version
        write_json(root / version.lstrip("/"), offer)
    write_json(root / "offers/v1.0/aws/index.json", sample("aws-offer-index-sample.json"))
    write_json(root / "offers/v1.0/aws/AmazonEC2/current/region_index.json", region_index)
    return root


def page_dir(root: Path, *names: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for number, name in enumerate(names, start=1):
        shutil.copy(SAMPLES / name, root / f"page-{number}.json")
    return root


def lambda_payload(path: Path, *, h100_cents: int | None = None, a10_cents: int | None = None) -> Path:
    """The Lambda sample with the 8x H100 and 1x A10 prices replaced (US cents per hour)."""
    document = sample("lambda-instance-types-sample.json")
    for name, cents in (("gpu_8x_h100_sxm5", h100_cents), ("gpu_1x_a10", a10_cents)):
        if cents is not None:
            document["data"][name]["instance_type"]["price_cents_per_hour"] = cents
    return write_json(path, document)


def sample_location(provider: str, root: Path) -> Path:
    """Where a refresh of ``provider`` reads the unmodified samples from."""
    return {
        "aws": lambda: aws_mirror(root / "aws"),
        "azure": lambda: page_dir(root / "azure", "azure-retail-prices-sample.json",
                                  "azure-retail-prices-sample-page2.json"),
        "gcp": lambda: page_dir(root / "gcp", "gcp-billing-skus-sample.json",
                                "gcp-billing-skus-sample-page2.json"),
        "lambda": lambda: SAMPLES / "lambda-instance-types-sample.json",
        "runpod": lambda: SAMPLES / "runpod-gpu-types-sample.json",
    }[provider]()


def refresh(provider: str, location: Path | str, **kwargs: Any) -> PriceRefreshJob:
    kwargs.setdefault("feed_settings", FEED_SETTINGS)
    return price_refresh_run(provider=provider, location=str(location), **kwargs)


def feed_price(provider: str, instance_type: str, region: str,
               pricing_model: str = "on_demand") -> PricePoint:
    """The price in force today of an offering, as the feed wrote it."""
    offerings = CloudOffering.objects.filter(provider=provider, instance_type=instance_type,
                                             pricing_model=pricing_model)
    # The catalog's own offering of an instance type (no region) takes the price of the
    # provider's catalog region instead of a twin offering in that region (issue 24).
    own = offerings.filter(region="unspecified").first()
    catalog_region = settings.PRICE_REFRESH_CATALOG_REGIONS.get(provider)
    offering = own if own is not None and region == catalog_region else offerings.get(region=region)
    point = price_at(offering, on=timezone.localdate())
    assert point is not None and point.source.kind == "cloud_price_api"
    return point


def counts(job: PriceRefreshJob) -> dict[str, int]:
    return {name: getattr(job, f"prices_{name}") for name in ("new", "changed", "unchanged", "rejected")}


# --- the samples -----------------------------------------------------------------------------


def test_the_aws_sample_gives_one_price_per_offering_with_the_feed_figures(catalog, tmp_path):
    job = refresh("aws", aws_mirror(tmp_path))

    assert job.status == RefreshStatus.SUCCEEDED, job.error
    # us-east-1: 5 on-demand + 7 reserved terms, us-west-2: 3 + 1 = 16 prices for 14 offerings:
    # the p5 1-year reservation comes as No Upfront / All Upfront standard and No Upfront
    # convertible; No Upfront standard is kept, the 2 others are "other terms".
    assert counts(job) == {"new": 14, "changed": 0, "unchanged": 0, "rejected": 5}
    # 8 new offerings: the catalog's own p4d.24xlarge and p5.48xlarge on demand take the
    # us-east-1 prices instead of twins, the catalog's us-east-1 rows of the p5 reserved terms
    # and p5en.48xlarge get theirs, and so does one more row the shipped catalog now lists.
    assert (job.prices_other_terms, job.offerings_new) == (2, 8)
    assert job.source_versions == {r: VERSION.format(region=r) for r in REGIONS}
    p5 = feed_price("aws", "p5.48xlarge", "us-east-1")
    assert (p5.amount, p5.currency, p5.as_of) == (Decimal("55.0400"), "USD", dt.date(2026, 9, 1))
    assert p5.source.key == "aws-price-list-api"
    assert "3D4V8UAYEMB38GU2.JRTCKXETXF" in p5.note and "offer version 20260910195514" in p5.note
    reserved = feed_price("aws", "p5.48xlarge", "us-east-1", "reserved_1y")
    assert reserved.amount == Decimal("36.2264")
    assert "No Upfront standard" in reserved.note
    # p4d 3-year All Upfront: 240391 / 26280 h = 9.14729832572... -> 9.1472983257 in the feed,
    # 9.1473 at the 4 decimals a price point keeps (the exact figure stays in the note).
    p4d_3y = feed_price("aws", "p4d.24xlarge", "us-east-1", "reserved_3y")
    assert p4d_3y.amount == Decimal("9.1473")
    assert "feed figure 9.1472983257 rounded" in p4d_3y.note
    # us-west-2 quotes 21.95764 where us-east-1 quotes 21.957642; both keep 21.9576.
    assert feed_price("aws", "p4d.24xlarge", "us-west-2").amount == Decimal("21.9576")
    assert p5.offering.accelerator.slug == "h100-sxm-80gb"
    assert p5.offering.accelerators_per_instance == 8


@pytest.mark.parametrize(
    ("provider", "written", "rejected", "offering", "amount"),
    [
        # 551221 / 8760 h = 62.92477168949... -> 62.9248
        ("azure", 10, 5, ("Standard_ND96isr_H100_v5", "eastus", "reserved_1y"), "62.9248"),
        ("azure", 10, 5, ("Standard_ND96isr_H100_v5", "uksouth", "spot"), "22.7119"),
        # a2-highgpu-1g = A100 GPU 2.933908 + 12 cores x 0.031611 + 85 GiB x 0.004237
        # = 2.933908 + 0.379332 + 0.360145 = 3.673385 -> 3.6734
        # 75 written, 25 rejected: the A2 Ultra and A3 machines, priced without the bundled
        # local SSD the sample has no SKU for, are no longer rejected (issue 24).
        ("gcp", 75, 25, ("a2-highgpu-1g", "us-central1", "on_demand"), "3.6734"),
        ("lambda", 4, 0, ("gpu_8x_h100_sxm5", "global", "on_demand"), "23.9200"),  # 2392 cents
        ("runpod", 14, 0, ("NVIDIA H100 80GB HBM3 (community cloud)", "global", "spot"), "1.5500"),
    ],
)
def test_each_providers_sample_is_stored_with_its_figures(
    catalog, tmp_path, provider, written, rejected, offering, amount
):
    job = refresh(provider, sample_location(provider, tmp_path))

    assert job.status == RefreshStatus.SUCCEEDED, job.error
    assert counts(job) == {"new": written, "changed": 0, "unchanged": 0, "rejected": rejected}
    assert job.written_prices.count() == written
    assert feed_price(provider, *offering).amount == Decimal(amount)


def test_prices_without_an_effective_date_are_as_of_the_day_read(catalog):
    job = refresh("lambda", SAMPLES / "lambda-instance-types-sample.json")

    point = feed_price("lambda", "gpu_1x_a10", "global")
    assert point.as_of == timezone.localdate(job.started_at)
    assert "no effective date in the feed" in point.note
    assert point.source_url == ""  # a local file is named in the note, not as a URL
    assert "lambda-instance-types-sample.json" in point.note


def test_decoys_are_rejected_and_named_on_the_job(catalog, tmp_path):
    job = refresh("aws", aws_mirror(tmp_path))

    reasons = {row["sku"]: row["reason"] for row in job.rejections}
    assert reasons == {
        "7YQ2KXG4PZ9EB3DW": "licensed_os",  # Windows p5
        "N8V3QW2ZCJ4T6KXE": "capacity_reservation",  # unused capacity reservation p4d
        "5Q7AP3RH7KTVUNCJ": "capacity_block_zero_price",  # $0 capacity block p5
        "R3WPVNCD34N9W7UV": "free_tier",  # in both regions' parse, so 5 rows for 4 skus
    }
    notes = " ".join(PricePoint.objects.filter(source__key="aws-price-list-api")
                     .values_list("note", flat=True))
    assert not any(sku in notes for sku in reasons)


def test_azure_decoys_are_rejected_with_their_reason(catalog, tmp_path):
    job = refresh("azure", sample_location("azure", tmp_path))

    assert sorted(row["reason"] for row in job.rejections) == [
        "dev_test", "licensed_os", "licensed_os", "low_priority", "low_priority"]


# --- a second refresh ------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["aws", "azure", "gcp", "lambda", "runpod"])
def test_a_second_refresh_of_the_same_feed_adds_no_price_point(catalog, tmp_path, provider):
    location = sample_location(provider, tmp_path)
    first = refresh(provider, location)
    stored = PricePoint.objects.count()

    second = refresh(provider, location)

    assert second.status == RefreshStatus.SUCCEEDED, second.error
    assert (second.prices_new, second.prices_changed, second.offerings_new) == (0, 0, 0)
    assert second.prices_unchanged == first.prices_new
    assert PricePoint.objects.count() == stored
    assert second.written_prices.count() == 0
    # Every price the first run wrote was found current again by the second.
    checks = PriceCheck.objects.filter(price_point__in=first.written_prices.all())
    assert set(checks.values_list("job", flat=True)) == {second.pk}


def test_an_unchanged_aws_version_is_not_read_again(catalog, tmp_path):
    root = aws_mirror(tmp_path)
    refresh("aws", root)
    for region in REGIONS:  # proves the offer files are not even opened
        (root / VERSION.format(region=region).lstrip("/")).unlink()

    second = refresh("aws", root)

    assert second.status == RefreshStatus.SUCCEEDED, second.error
    assert second.regions_skipped == list(REGIONS)
    assert (second.prices_new, second.prices_changed, second.prices_unchanged) == (0, 0, 14)


def test_force_reads_an_unchanged_aws_version(catalog, tmp_path):
    root = aws_mirror(tmp_path)
    refresh("aws", root)

    forced = refresh("aws", root, force=True)

    assert forced.regions_skipped == []
    assert (forced.prices_new, forced.prices_unchanged) == (0, 14)


# --- changed prices --------------------------------------------------------------------------


def test_a_changed_price_is_a_new_point_and_the_old_one_stays_in_the_history(catalog, tmp_path):
    refresh("lambda", lambda_payload(tmp_path / "day1.json"))
    old = feed_price("lambda", "gpu_8x_h100_sxm5", "global")

    job = refresh("lambda", lambda_payload(tmp_path / "day2.json", h100_cents=2100))

    assert counts(job) == {"new": 0, "changed": 1, "unchanged": 3, "rejected": 0}
    new = feed_price("lambda", "gpu_8x_h100_sxm5", "global")
    assert (old.amount, new.amount) == (Decimal("23.9200"), Decimal("21.0000"))
    assert list(job.written_prices.all()) == [new]
    assert set(old.offering.prices.filter(source=old.source)) == {old, new}
    # One offering, one history: the catalog's own seed price is in it too.
    assert old.offering.prices.filter(source__key="seed-004", amount=Decimal("26.80")).exists()
    assert PricePoint.objects.filter(pk=old.pk, amount=Decimal("23.92")).exists()  # never overwritten


def test_a_new_aws_version_with_a_changed_price_writes_only_that_price(catalog, tmp_path):
    refresh("aws", aws_mirror(tmp_path / "v1"))
    offer = sample("aws-ec2-offer-sample.json")
    dimensions = offer["terms"]["OnDemand"]["3D4V8UAYEMB38GU2"]["3D4V8UAYEMB38GU2.JRTCKXETXF"]
    (dimension,) = dimensions["priceDimensions"].values()
    dimension["pricePerUnit"]["USD"] = "49.5000000000"
    root = aws_mirror(tmp_path / "v2", offer=offer,
                      versions={"us-east-1": NEW_VERSION, "us-west-2": VERSION})

    job = refresh("aws", root)

    # Only us-east-1 has a new version; us-west-2's 4 prices are carried over unread.
    assert job.regions_skipped == ["us-west-2"]
    assert counts(job) == {"new": 0, "changed": 1, "unchanged": 13, "rejected": 4}
    assert feed_price("aws", "p5.48xlarge", "us-east-1").amount == Decimal("49.5000")
    assert feed_price("aws", "p5.48xlarge", "us-west-2").amount == Decimal("55.0400")


def azure_pages(root: Path, *, nd96asr_eastus: float) -> Path:
    """The two Azure sample pages with the ND96asr_v4 eastus on-demand price replaced."""
    first_page = sample("azure-retail-prices-sample.json")
    (item,) = [i for i in first_page["Items"] if i["meterName"] == "ND96asr v4"]
    item["retailPrice"] = item["unitPrice"] = nd96asr_eastus
    write_json(root / "page-1.json", first_page)
    shutil.copy(SAMPLES / "azure-retail-prices-sample-page2.json", root / "page-2.json")
    return root


def test_a_price_back_to_an_earlier_figure_is_recorded_as_of_the_day_seen(catalog, tmp_path):
    refresh("azure", azure_pages(tmp_path / "a", nd96asr_eastus=27.197))
    refresh("azure", azure_pages(tmp_path / "b", nd96asr_eastus=30.0))  # same effective date 2023-11-01
    job = refresh("azure", azure_pages(tmp_path / "c", nd96asr_eastus=27.197))

    assert job.prices_changed == 1
    back = feed_price("azure", "Standard_ND96asr_v4", "eastus")
    assert back.amount == Decimal("27.1970")
    assert back.as_of == timezone.localdate(job.started_at)
    assert back.offering.prices.count() == 3


def test_an_other_purchase_option_can_be_preferred(catalog, tmp_path):
    prefer_all_upfront = TermPreference(purchase_options=("", "All Upfront", "No Upfront"))

    refresh("aws", aws_mirror(tmp_path), preference=prefer_all_upfront)

    # 0 per hour + 297312 / 8760 h = 33.93972602739... -> 33.9397
    assert feed_price("aws", "p5.48xlarge", "us-east-1", "reserved_1y").amount == Decimal("33.9397")


def test_a_feed_offering_the_catalog_knows_with_another_accelerator_is_rejected(catalog):
    CloudOffering.objects.create(provider="lambda", instance_type="gpu_1x_a10", region="global",
                                 pricing_model="on_demand",
                                 accelerator=Accelerator.objects.get(slug="h100-sxm-80gb"),
                                 accelerators_per_instance=1)

    job = refresh("lambda", SAMPLES / "lambda-instance-types-sample.json")

    assert (job.prices_new, job.prices_rejected) == (3, 1)
    assert job.rejections[0]["reason"] == "offering_conflict"


# --- bad input: nothing written, the job says why --------------------------------------------


def cut_in_half(path: Path, target: Path) -> Path:
    text = path.read_text()
    target.write_text(text[: len(text) // 2])
    return target


def lambda_with(tmp_path: Path, **changes: Any) -> Path:
    document = sample("lambda-instance-types-sample.json")
    document["data"]["gpu_1x_a10"]["instance_type"].update(changes)
    return write_json(tmp_path / "bad.json", document)


BAD_LAMBDA_PAYLOADS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "truncated": (lambda tmp: cut_in_half(SAMPLES / "lambda-instance-types-sample.json", tmp / "cut.json"),
                  "truncated_payload"),
    "malformed": (lambda tmp: write_json(tmp / "bad.json", {"data": "not an object"}), "malformed_payload"),
    # 1 GPU at 150000 cents = 1,500 USD per GPU-hour, above the 1,000 ceiling.
    "absurd": (lambda tmp: lambda_with(tmp, price_cents_per_hour=150000), "absurd_price"),
    "negative": (lambda tmp: lambda_with(tmp, price_cents_per_hour=-75), "absurd_price"),
}


@pytest.mark.parametrize("case", BAD_LAMBDA_PAYLOADS)
def test_a_bad_payload_writes_nothing_and_keeps_earlier_prices(catalog, tmp_path, case):
    refresh("lambda", lambda_payload(tmp_path / "good.json", h100_cents=2392))
    before = set(PricePoint.objects.values_list("pk", "amount"))
    make, code = BAD_LAMBDA_PAYLOADS[case]

    job = refresh("lambda", make(tmp_path))

    assert (job.status, job.error_code) == (RefreshStatus.FAILED, code)
    assert job.error.startswith("lambda: ")
    assert job.finished_at is not None
    assert counts(job) == {"new": 0, "changed": 0, "unchanged": 0, "rejected": 0}
    assert set(PricePoint.objects.values_list("pk", "amount")) == before
    assert feed_price("lambda", "gpu_8x_h100_sxm5", "global").amount == Decimal("23.9200")


def test_a_truncated_aws_offer_file_writes_nothing(catalog, tmp_path):
    root = aws_mirror(tmp_path)
    offer_file = root / VERSION.format(region="us-west-2").lstrip("/")
    cut_in_half(offer_file, offer_file)

    before = set(CloudOffering.objects.values_list("pk", flat=True))
    job = refresh("aws", root)

    # us-east-1 parsed fine, but the run is all or nothing.
    assert (job.status, job.error_code) == (RefreshStatus.FAILED, "truncated_payload")
    assert set(CloudOffering.objects.values_list("pk", flat=True)) == before
    assert not PricePoint.objects.filter(source__key="aws-price-list-api").exists()


def test_a_price_in_an_unknown_currency_writes_nothing(catalog, tmp_path):
    root = sample_location("azure", tmp_path)
    page = json.loads((root / "page-2.json").read_text())
    page["Items"][0]["currencyCode"] = "EUR"
    write_json(root / "page-2.json", page)

    job = refresh("azure", root)

    assert (job.status, job.error_code) == (RefreshStatus.FAILED, "unknown_currency")
    assert "EUR" in job.error
    assert not PricePoint.objects.filter(source__key="azure-retail-prices-api").exists()


@pytest.mark.parametrize(("reply_kwargs", "reason"), [
    ({"status": 503}, "HTTP 503"),
    ({"delay_seconds": 1.0, "body": b"{}"}, "timed out"),
])
def test_an_upstream_error_or_timeout_fails_the_job_after_the_retries(
        catalog, local_server, reply_kwargs, reason):  # noqa: F811 (the imported fixture)
    refresh("lambda", SAMPLES / "lambda-instance-types-sample.json")
    before = PricePoint.objects.count()
    local_server.routes["/api/v1/instance-types"] = Reply(**reply_kwargs)

    job = refresh("lambda", local_server.url("/api/v1/instance-types"))

    assert (job.status, job.error_code) == (RefreshStatus.FAILED, "upstream_http_error")
    assert reason in job.error
    assert local_server.hits("/api/v1/instance-types") == 2  # the request and its one retry
    assert PricePoint.objects.count() == before


# --- job rows --------------------------------------------------------------------------------


def test_a_job_left_running_by_a_lost_worker_is_failed_by_the_next_run(catalog):
    started = timezone.now() - dt.timedelta(seconds=ABANDONED_AFTER_S + 60)
    lost = PriceRefreshJob.objects.create(provider="lambda", started_at=started)
    recent = PriceRefreshJob.objects.create(provider="lambda", started_at=timezone.now())

    refresh("lambda", SAMPLES / "lambda-instance-types-sample.json")

    lost.refresh_from_db()
    recent.refresh_from_db()
    assert (lost.status, lost.error_code) == (RefreshStatus.FAILED, "abandoned")
    assert recent.status == RefreshStatus.RUNNING


def test_the_refreshed_signal_is_sent_after_commit_only_when_prices_were_written(
    catalog, django_capture_on_commit_callbacks
):
    received: list[int] = []

    def receiver(sender, job_id, **kwargs):
        received.append(job_id)

    prices_refreshed.connect(receiver, dispatch_uid="test-refresh-signal")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            first = refresh("lambda", SAMPLES / "lambda-instance-types-sample.json")
        with django_capture_on_commit_callbacks(execute=True):
            refresh("lambda", SAMPLES / "lambda-instance-types-sample.json")  # nothing new
    finally:
        prices_refreshed.disconnect(dispatch_uid="test-refresh-signal")

    assert received == [first.pk]


def test_an_unknown_provider_is_refused_before_any_job_row(catalog):
    with pytest.raises(ValueError, match="oracle"):
        price_refresh_run(provider="oracle")
    assert not PriceRefreshJob.objects.exists()


def test_the_feed_source_is_dated_by_its_last_refresh(catalog):
    job = refresh("lambda", SAMPLES / "lambda-instance-types-sample.json")

    point = feed_price("lambda", "gpu_8x_h100_sxm5", "global")
    assert point.source.retrieved_on == timezone.localdate(job.started_at)
    assert point.source.kind == "cloud_price_api"

