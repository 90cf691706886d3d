"""Catalog API: filters (path and params -> count, on the small catalog), prices on a date, writes."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.urls import include
from django.urls import path
from django.utils import timezone
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema

from catalog.models import Accelerator
from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.models import Source
from catalog.models import SystemSku

API = "/api/v1"


def _count(client, path: str, params: dict) -> int:
    response = client.get(f"{API}/{path}/", params)
    assert response.status_code == 200, response.json()
    return response.json()["count"]


@pytest.mark.parametrize(
    ("path", "params", "count"),
    [
        ("accelerators", {}, 3),
        ("accelerators", {"vendor": "nvidia"}, 2),
        ("accelerators", {"vendor": ["nvidia", "amd"]}, 3),
        ("accelerators", {"memory_gb_min": 80}, 2),  # H100 80 GB and MI300X 192 GB
        ("accelerators", {"memory_gb_min": 100}, 1),
        ("accelerators", {"kind": "asic"}, 0),
        ("accelerators", {"slug": "l40s-pcie-48gb"}, 1),
        ("offerings", {}, 4),
        ("offerings", {"provider": "aws"}, 3),
        ("offerings", {"region": "us-east-1"}, 2),
        ("offerings", {"pricing_model": "spot"}, 1),
        ("offerings", {"pricing_model": ["on_demand", "spot"]}, 4),
        ("offerings", {"accelerator": "l40s-pcie-48gb"}, 1),
        ("offerings", {"provider": "aws", "region": "us-east-1", "pricing_model": "on_demand"}, 1),
        ("offerings", {"price_at": "2024-12-31"}, 0),  # no price before 2025-01-01
        ("offerings", {"price_at": "2025-06-01"}, 1),  # p5 us-east-1 on-demand only
        # + p5 us-west-2 (from 2026-03-01); spot starts 2026-07-01
        ("offerings", {"price_at": "2026-06-30"}, 2),
        ("price-points", {}, 5),
        ("price-points", {"offering_id": "p5_us_east"}, 2),
        ("price-points", {"system": "dgx-h100"}, 1),
        ("price-points", {"provider": "aws"}, 4),
        ("price-points", {"as_of_after": "2026-01-01"}, 3),  # 55.04, 60.00 and 20.00
        ("price-points", {"as_of_after": "2026-01-01", "as_of_before": "2026-06-30"}, 2),
    ],
)
def test_filters(client, small_catalog, path, params, count):
    if "offering_id" in params:
        params = {"offering_id": getattr(small_catalog, params["offering_id"]).pk}
    assert _count(client, path, params) == count


def test_offerings_carry_the_price_in_force_on_the_requested_date(client, small_catalog):
    offering_id = small_catalog.p5_us_east.pk

    before = client.get(f"{API}/offerings/{offering_id}/", {"price_at": "2026-06-17"}).json()["price"]
    after = client.get(f"{API}/offerings/{offering_id}/", {"price_at": "2026-06-18"}).json()["price"]

    assert (before["amount"], before["as_of"], before["source"]) == ("98.3200", "2025-01-01", "quote-acme")
    assert (after["amount"], after["as_of"]) == ("55.0400", "2026-06-18")


def test_offerings_carry_todays_price_without_price_at(client, small_catalog, monkeypatch):
    monkeypatch.setattr(timezone, "localdate", lambda: dt.date(2026, 12, 1))

    listed = {o["id"]: o["price"] for o in client.get(f"{API}/offerings/").json()["results"]}

    assert listed[small_catalog.p5_us_east.pk]["amount"] == "55.0400"
    assert listed[small_catalog.p5_spot.pk]["amount"] == "20.0000"
    assert listed[small_catalog.l40s_gcp.pk] is None  # never priced


def test_offering_filters_name_the_bad_parameter(client, small_catalog):
    response = client.get(f"{API}/offerings/", {"provider": "acme", "price_at": "yesterday"})

    assert response.status_code == 400
    assert set(response.json()) == {"provider", "price_at"}


def test_price_history_is_newest_first(client, small_catalog):
    results = client.get(f"{API}/price-points/", {"offering_id": small_catalog.p5_us_east.pk}).json()[
        "results"
    ]

    assert [(p["as_of"], p["amount"], p["unit"]) for p in results] == [
        ("2026-06-18", "55.0400", "per instance-hour"),
        ("2025-01-01", "98.3200", "per instance-hour"),
    ]


def test_accelerators_show_every_sources_figure_and_the_dense_ones(client, catalog):
    h100 = Accelerator.objects.get(slug="h100-sxm-80gb")

    body = client.get(f"{API}/accelerators/{h100.pk}/").json()

    assert body["dense_tflops"]["FP16"] == "989.00"
    sparse = {
        (t["source"], t["tflops"]) for t in body["throughputs"] if t["precision"] == "FP16" and t["is_sparse"]
    }
    assert sparse == {("seed-002", "1979.00"), ("seed-003", "1979.00")}
    assert body["field_sources"]["tdp_w"] == ["seed-000", "seed-002", "seed-003", "seed-004"]


@pytest.mark.parametrize(
    "path",
    [
        "sources",
        "accelerators",
        "systems",
        "offerings",
        "price-points",
        "cooling-technologies",
        "facility-profiles",
        "power-densities",
    ],
)
def test_every_catalog_list_reads_anonymously_and_pages(client, catalog, path):
    response = client.get(f"{API}/{path}/")

    assert response.status_code == 200
    assert {"count", "next", "previous", "results"} <= set(response.json())


def test_cooling_filter_finds_the_tiers_for_a_rack_density(client, catalog):
    slugs = [
        c["slug"] for c in client.get(f"{API}/cooling-technologies/", {"kw_per_rack": 120}).json()["results"]
    ]

    # 120 kW/rack: direct-to-chip (50-150) and single-phase immersion (100-200), seed-003
    assert sorted(slugs) == ["direct-to-chip", "immersion-single-phase"]


def _price_body(small_catalog, **overrides):
    return {
        "offering": small_catalog.p5_us_west.pk,
        "amount": "58.00",
        "currency": "USD",
        "as_of": "2026-10-01",
        "source": "quote-acme",
        **overrides,
    }


def test_staff_can_record_a_price(staff_client, small_catalog):
    response = staff_client.post(f"{API}/price-points/", _price_body(small_catalog), format="json")

    assert response.status_code == 201, response.json()
    price = PricePoint.objects.get(pk=response.json()["id"])
    assert (price.amount, price.offering, price.retrieved_at is not None) == (
        Decimal("58"),
        small_catalog.p5_us_west,
        True,
    )


@pytest.mark.parametrize("who", ["anonymous", "user"])
def test_only_staff_may_write(client, user_client, small_catalog, who):
    api = client if who == "anonymous" else user_client

    response = api.post(f"{API}/price-points/", _price_body(small_catalog), format="json")

    # Anonymous: 401 (authenticate with a token); signed in without staff rights: 403.
    assert response.status_code == (401 if who == "anonymous" else 403)
    assert PricePoint.objects.count() == 5


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"amount": "-1"}, "amount", "must be greater than zero"),
        ({"amount": "0"}, "amount", "must be greater than zero"),
        ({"currency": "XYZ"}, "currency", '"XYZ" is not a valid choice.'),
        ({"system": "dgx-h100"}, "offering", "give exactly one of offering or system"),
        ({"amount_high": "10"}, "amount_high", "must not be below amount"),
    ],
)
def test_a_bad_price_is_a_400_naming_the_field_and_writes_nothing(
    staff_client, small_catalog, overrides, field, message
):
    response = staff_client.post(
        f"{API}/price-points/", _price_body(small_catalog, **overrides), format="json"
    )

    assert response.status_code == 400
    assert message in response.json()[field]
    assert PricePoint.objects.count() == 5


def test_recorded_prices_cannot_be_overwritten(staff_client, small_catalog):
    price = small_catalog.p5_us_east.prices.first()

    response = staff_client.put(f"{API}/price-points/{price.pk}/", _price_body(small_catalog), format="json")

    assert response.status_code == 405


def test_staff_writes_are_validated_against_the_model_rules(staff_client, small_catalog):
    systems = f"{API}/systems/{small_catalog.dgx.pk}/"
    offering = {
        "provider": "acme",
        "instance_type": "x",
        "region": "r",
        "accelerator": "h100-sxm-80gb",
        "accelerators_per_instance": 1,
        "pricing_model": "hourly",
    }

    idle = staff_client.patch(systems, {"power_idle_kw": "11"}, format="json")
    memory = staff_client.patch(
        f"{API}/accelerators/{small_catalog.h100.pk}/", {"memory_gb": "-80"}, format="json"
    )
    unsourced = staff_client.patch(
        f"{API}/accelerators/{small_catalog.h100.pk}/", {"year": 2022}, format="json"
    )
    unknown = staff_client.post(f"{API}/offerings/", offering, format="json")

    assert (idle.status_code, idle.json()) == (400, {"power_idle_kw": ["must not exceed power_max_kw"]})
    assert (memory.status_code, memory.json()) == (400, {"memory_gb": ["must be greater than zero"]})
    assert unsourced.status_code == 400
    assert unsourced.json()["field_sources"] == ["figures without a source: year"]
    assert unknown.status_code == 400 and set(unknown.json()) == {"provider", "pricing_model"}
    assert SystemSku.objects.get(pk=small_catalog.dgx.pk).power_idle_kw == Decimal("3.06")


def test_staff_can_update_a_figure_with_its_source(staff_client, small_catalog):
    sources = {**small_catalog.h100.field_sources, "year": ["quote-acme"]}

    response = staff_client.patch(
        f"{API}/accelerators/{small_catalog.h100.pk}/",
        {"year": 2022, "field_sources": sources},
        format="json",
    )

    assert response.status_code == 200, response.json()
    small_catalog.h100.refresh_from_db()
    assert small_catalog.h100.year == 2022


def test_deleting_a_referenced_row_is_a_conflict(staff_client, small_catalog):
    response = staff_client.delete(f"{API}/accelerators/{small_catalog.h100.pk}/")

    assert response.status_code == 409
    assert Accelerator.objects.filter(pk=small_catalog.h100.pk).exists()


def test_the_catalog_schema_generates_valid_and_without_warnings(db):
    GENERATOR_STATS.reset()
    patterns = [path("api/v1/", include("catalog.api.urls"))]

    schema = SchemaGenerator(patterns=patterns).get_schema(request=None, public=True)

    validate_schema(schema)  # raises on an invalid OpenAPI document
    assert not GENERATOR_STATS._warn_cache and not GENERATOR_STATS._error_cache
    assert "/api/v1/offerings/" in schema["paths"]
    assert {"price_at", "provider", "region", "pricing_model"} <= {
        p["name"] for p in schema["paths"]["/api/v1/offerings/"]["get"]["parameters"]
    }


def test_the_api_docs_page_is_served(client, db):
    assert client.get("/api/docs/").status_code == 200


def test_a_key_already_taken_is_a_400_naming_what_exists_and_writes_nothing(staff_client, small_catalog):
    p5 = small_catalog.p5_us_east
    offering = {"provider": p5.provider, "instance_type": p5.instance_type, "region": p5.region,
                "pricing_model": p5.pricing_model, "accelerator": "h100-sxm-80gb",
                "accelerators_per_instance": 8}
    sources, offerings = Source.objects.count(), CloudOffering.objects.count()

    source = staff_client.post(f"{API}/sources/", {"key": "quote-acme", "kind": "quote", "title": "Again"},
                               format="json")
    twin = staff_client.post(f"{API}/offerings/", offering, format="json")

    assert (source.status_code, source.json()) == (
        400, {"key": ["A public source with this key already exists."]})
    assert (twin.status_code, twin.json()) == (400, {"non_field_errors": [
        "A public offering with this provider, instance type, region and pricing model already exists."]})
    assert (Source.objects.count(), CloudOffering.objects.count()) == (sources, offerings)
