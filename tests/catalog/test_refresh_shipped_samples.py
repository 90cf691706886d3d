"""Each provider's shipped sample payloads, refreshed from a folder as shipped (file names
unchanged), and from an AWS mirror that lacks one of its regions: the refresh succeeds, and the
catalog's own offering of a refreshed instance type (the seeds' row, no region) gets the price."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from django.utils import timezone

from catalog.models import CloudOffering
from catalog.models import RefreshStatus
from catalog.pricefeeds import HttpSettings
from catalog.refresh.feeds import FeedSettings
from catalog.refresh.services import price_refresh_run
from catalog.selectors import price_at
from tests.catalog.test_refresh import SAMPLES
from tests.catalog.test_refresh import aws_mirror

pytestmark = pytest.mark.django_db
SETTINGS = FeedSettings(aws_regions=("us-east-1", "us-west-2", "eu-west-1"), http=HttpSettings())


def shipped_folder(root: Path, prefix: str) -> Path:
    """The provider's sample files, copied into a folder of their own under their own names."""
    root.mkdir()
    for path in SAMPLES.glob(f"{prefix}*.json"):
        shutil.copy(path, root / path.name)
    return root


def catalog_offering(provider: str, instance_type: str, region: str = "unspecified") -> CloudOffering:
    return CloudOffering.objects.get(provider=provider, instance_type=instance_type, region=region,
                                     pricing_model="on_demand", team=None)


def price_today(offering: CloudOffering) -> Decimal:
    return price_at(offering, on=timezone.localdate()).amount


def test_azure_pages_as_shipped_are_read_in_their_link_order_and_price_the_catalogs_offering(
        catalog, tmp_path):
    folder = shipped_folder(tmp_path / "azure", "azure-retail-prices")
    # "...-page2.json" sorts before "....json" by name; the pages' own links put it second.
    assert sorted(p.name for p in folder.iterdir())[0] == "azure-retail-prices-sample-page2.json"

    job = price_refresh_run(provider="azure", location=str(folder), feed_settings=SETTINGS)

    assert job.status == RefreshStatus.SUCCEEDED, job.error
    # The seeds' ND H100 v5 ($90/h, 2024) takes the eastus Linux price of the sample, $98.32/h;
    # no "eastus" twin of it is added.
    h100 = catalog_offering("azure", "Standard_ND96isr_H100_v5")
    assert price_today(h100) == Decimal("98.32")
    assert "eastus" in h100.prices.get(source__key="azure-retail-prices-api").note
    assert not CloudOffering.objects.filter(instance_type="Standard_ND96isr_H100_v5", region="eastus",
                                            pricing_model="on_demand").exists()
    # Other regions are offerings of their own (uksouth is $122.90/h).
    assert price_today(catalog_offering("azure", "Standard_ND96isr_H100_v5", "uksouth")) == Decimal("122.90")


def test_gcp_pages_as_shipped_price_the_a3_machines(catalog, tmp_path):
    folder = shipped_folder(tmp_path / "gcp", "gcp-billing-skus")

    job = price_refresh_run(provider="gcp", location=str(folder), feed_settings=SETTINGS)

    assert job.status == RefreshStatus.SUCCEEDED, job.error
    # a3-highgpu-8g = 8 x H100 GPU $9.796550569 + 208 vCPU x $0.025498003 + 1,872 GiB x
    # $0.00222034 = 78.37240455 + 5.30358462 + 4.15647648 = 87.83246565 $/h (the sample has no
    # local SSD SKU: the price leaves the bundled SSD out and its note says so).
    a3 = catalog_offering("gcp", "a3-highgpu-8g")
    assert price_today(a3) == Decimal("87.8325")
    assert "local SSD" in a3.prices.get(source__key="gcp-cloud-billing-catalog").note
    assert not any("a3-highgpu-8g on_demand" in r["detail"] for r in job.rejections)


def test_lambda_and_runpod_answers_as_shipped_in_a_folder(catalog, tmp_path):
    job = price_refresh_run(provider="lambda", feed_settings=SETTINGS,
                            location=str(shipped_folder(tmp_path / "lambda", "lambda-instance-types")))
    assert job.status == RefreshStatus.SUCCEEDED, job.error
    assert price_today(catalog_offering("lambda", "gpu_8x_h100_sxm5", "global")) == Decimal("23.92")

    job = price_refresh_run(provider="runpod", feed_settings=SETTINGS,
                            location=str(shipped_folder(tmp_path / "runpod", "runpod-gpu-types")))
    assert job.status == RefreshStatus.SUCCEEDED, job.error
    assert job.prices_new > 0


def test_an_aws_mirror_missing_a_region_is_refreshed_with_a_warning(catalog, tmp_path):
    # The mirror holds us-east-1 and us-west-2; its region index also lists eu-west-1.
    root = aws_mirror(tmp_path / "mirror")

    job = price_refresh_run(provider="aws", location=str(root), feed_settings=SETTINGS)

    assert job.status == RefreshStatus.SUCCEEDED, job.error
    assert len(job.warnings) == 1 and job.warnings[0].startswith("Region eu-west-1 was not refreshed")
    assert set(job.source_versions) == {"us-east-1", "us-west-2"}
    # The seeds' p4d.24xlarge takes the us-east-1 on-demand price of the sample, $21.957642/h,
    # kept to the catalog's 4 decimals.
    assert price_today(catalog_offering("aws", "p4d.24xlarge")) == Decimal("21.9576")
    assert not CloudOffering.objects.filter(instance_type="p4d.24xlarge", region="us-east-1",
                                            pricing_model="on_demand").exists()


def test_a_mirror_with_none_of_the_regions_fails_and_says_so(catalog, tmp_path):
    root = aws_mirror(tmp_path / "mirror")
    settings = FeedSettings(aws_regions=("eu-west-1",), http=HttpSettings())

    job = price_refresh_run(provider="aws", location=str(root), feed_settings=settings)

    assert job.status == RefreshStatus.FAILED
    assert "holds none of the regions eu-west-1" in job.error
