"""Catalog fixtures. tests/conftest.py loads the real catalog once per session (fixture
``catalog``); ``empty_catalog`` removes it inside the test's transaction, and ``small_catalog``
puts a handful of hand-countable rows in its place."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from catalog.models import Accelerator
from catalog.models import AcceleratorPowerCap
from catalog.models import AcceleratorThroughput
from catalog.models import CloudOffering
from catalog.models import CoolingTechnology
from catalog.models import EgressRate
from catalog.models import FacilityProfile
from catalog.models import PowerDensityReference
from catalog.models import PricePoint
from catalog.models import Source
from catalog.models import SystemSku
from catalog.models import ThroughputMeasurement
from catalog.models import TokenApiPrice

RETRIEVED = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
# Referencing rows first, so PROTECT foreign keys never block a delete.
CATALOG_MODELS = (
    ThroughputMeasurement,
    PricePoint,
    CloudOffering,
    AcceleratorPowerCap,
    AcceleratorThroughput,
    SystemSku,
    FacilityProfile,
    CoolingTechnology,
    PowerDensityReference,
    TokenApiPrice,
    EgressRate,
    Accelerator,
    Source,
)


@pytest.fixture
def empty_catalog(db) -> None:
    """No catalog rows at all (the test's transaction restores the session's catalog after)."""
    for model in CATALOG_MODELS:
        model.objects.all().delete()


@dataclass
class SmallCatalog:
    """A handful of rows whose filter counts can be checked by eye."""

    source: Source
    h100: Accelerator
    l40s: Accelerator
    mi300x: Accelerator
    dgx: SystemSku
    p5_us_east: CloudOffering
    p5_us_west: CloudOffering
    p5_spot: CloudOffering
    l40s_gcp: CloudOffering
    cooling: CoolingTechnology
    facility: FacilityProfile


@pytest.fixture
def small_catalog(empty_catalog) -> SmallCatalog:
    """3 accelerators, 1 system, 4 offerings with dated prices, 1 cooling tier and facility.

    Prices: p5 us-east-1 on-demand 98.32 from 2025-01-01 and 55.04 from 2026-06-18;
    p5 us-west-2 on-demand 60.00 from 2026-03-01; p5 us-east-1 spot 20.00 from 2026-07-01;
    GCP L40S none. DGX H100: 450,000 from 2024-01-01.
    """
    source = Source.objects.create(
        key="quote-acme", title="ACME quote", kind="quote", retrieved_on=dt.date(2026, 1, 1)
    )

    def sourced(model, **columns):
        """A catalog entry whose figures all come from the ACME quote."""
        figures = [name for name in columns if name in model.FIGURE_FIELDS]
        return model.objects.create(**columns, field_sources={name: ["quote-acme"] for name in figures})

    def gpu(slug, vendor, family, name, memory_gb, tdp_w):
        return sourced(
            Accelerator, slug=slug, vendor=vendor, family=family, name=name, kind="gpu",
            memory_gb=Decimal(memory_gb), tdp_w=tdp_w,
        )

    h100 = gpu("h100-sxm-80gb", "nvidia", "H100", "H100", 80, 700)
    l40s = gpu("l40s-pcie-48gb", "nvidia", "L40S", "L40S", 48, 350)
    mi300x = gpu("mi300x-oam-192gb", "amd", "MI300", "MI300X", 192, 750)
    dgx = sourced(
        SystemSku,
        slug="dgx-h100",
        name="DGX H100",
        vendor="NVIDIA",
        kind="dgx_node",
        accelerator=h100,
        accelerators_per_system=8,
        power_max_kw=Decimal("10.2"),
        power_idle_kw=Decimal("3.06"),
        rack_units=8,
    )

    def offering(provider, instance_type, region, model, accelerator, count):
        return CloudOffering.objects.create(
            provider=provider,
            instance_type=instance_type,
            region=region,
            pricing_model=model,
            accelerator=accelerator,
            accelerators_per_instance=count,
        )

    p5_us_east = offering("aws", "p5.48xlarge", "us-east-1", "on_demand", h100, 8)
    p5_us_west = offering("aws", "p5.48xlarge", "us-west-2", "on_demand", h100, 8)
    p5_spot = offering("aws", "p5.48xlarge", "us-east-1", "spot", h100, 8)
    l40s_gcp = offering("gcp", "g2-standard-48", "us-central1", "on_demand", l40s, 4)

    def price(amount, as_of, **target):
        PricePoint.objects.create(
            amount=Decimal(amount),
            as_of=dt.date.fromisoformat(as_of),
            source=source,
            retrieved_at=RETRIEVED,
            **target,
        )

    price("98.32", "2025-01-01", offering=p5_us_east)
    price("55.04", "2026-06-18", offering=p5_us_east)
    price("60.00", "2026-03-01", offering=p5_us_west)
    price("20.00", "2026-07-01", offering=p5_spot)
    price("450000", "2024-01-01", system=dgx)
    cooling = sourced(
        CoolingTechnology,
        slug="air-crac",
        name="Air",
        max_kw_per_rack=Decimal(15),
        capex_rating="low",
        opex_rating="medium",
        complexity="low",
        relative_capex_per_kw=1,
        relative_opex_per_kw=1,
        capex_usd_per_kw=1500,
        opex_usd_per_kw_month=8,
    )
    facility = sourced(
        FacilityProfile,
        slug="colo-air",
        name="Colo",
        kind="colocation",
        electricity_usd_per_kwh=Decimal("0.10"),
        pue=Decimal("1.5"),
        colocation_usd_per_kw_month=150,
        rack_power_limit_kw=15,
        rack_units_per_rack=42,
        max_cooling=cooling,
    )
    PowerDensityReference.objects.create(configuration="DGX H100", power_kw=Decimal("10.2"), source=source)
    return SmallCatalog(
        source, h100, l40s, mi300x, dgx, p5_us_east, p5_us_west, p5_spot, l40s_gcp, cooling, facility
    )


@pytest.fixture
def staff_client(db) -> APIClient:
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_user("staff", is_staff=True))
    return client


@pytest.fixture
def user_client(db) -> APIClient:
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_user("analyst"))
    return client
