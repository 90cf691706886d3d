"""A refresh that reads a provider's own price list prices the catalog's shipped rows, not twins
of them, at the figures the catalog took from a public copy of that list (issue 49)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.models import CloudOffering
from catalog.models import RefreshStatus
from catalog.refresh.services import price_refresh_run
from tests.catalog.pricefeeds.conftest import SAMPLES
from tests.catalog.test_refresh_shipped_samples import SETTINGS

pytestmark = pytest.mark.django_db

# The A4 rows offerings.yaml took from SkyPilot's Google list (skypilot-catalog-gcp-v8).
A4_ROWS = {
    ("us-central1", "on_demand"): Decimal("90.216"),
    ("europe-west4", "on_demand"): Decimal("90.216"),
    ("us-central1", "spot"): Decimal("32.6064"),
    ("europe-west4", "spot"): Decimal("35.8672"),
}


def a4_offerings() -> dict[tuple[str, str], CloudOffering]:
    rows = CloudOffering.objects.filter(provider="gcp", instance_type="a4-highgpu-8g", team=None)
    return {(o.region, o.pricing_model): o for o in rows}


def test_googles_billing_catalog_prices_the_shipped_a4_rows_at_the_same_figures(catalog):
    shipped = a4_offerings()
    assert set(shipped) == set(A4_ROWS)

    job = price_refresh_run(provider="gcp", location=str(SAMPLES / "gcp-a4-skus-sample.json"),
                            feed_settings=SETTINGS)

    assert job.status == RefreshStatus.SUCCEEDED, job.error
    assert a4_offerings() == shipped  # the same offerings, none added beside them
    for key, amount in A4_ROWS.items():
        listed = shipped[key].prices.get(source__key="skypilot-catalog-gcp-v8")
        refreshed = shipped[key].prices.get(source__key="gcp-cloud-billing-catalog")
        # e.g. europe-west4 on demand: 8 slices x $11.277 = $90.216/h, as the catalog lists it
        assert (listed.amount, refreshed.amount) == (amount, amount), key
