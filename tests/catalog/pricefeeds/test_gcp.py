"""GCP Cloud Billing Catalog: units+nanos, machine prices from components, decoys, paging."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from catalog.pricefeeds import AbsurdPrice
from catalog.pricefeeds import GcpBillingCatalogFeed
from catalog.pricefeeds import HttpClient
from catalog.pricefeeds import MalformedPayload
from catalog.pricefeeds import PricingModel
from catalog.pricefeeds import RejectionReason
from catalog.pricefeeds import UnknownCurrency
from catalog.pricefeeds.records import FeedResult
from catalog.pricefeeds.records import ParsedPrice

from .conftest import LocalServer
from .conftest import Reply

PAGE_1 = "gcp-billing-skus-sample.json"
PAGE_2 = "gcp-billing-skus-sample-page2.json"
A3_REGIONS = ["us-central1", "us-east4", "us-east5", "us-south1", "us-west1", "us-west4"]


def sku(
    sku_id: str,
    description: str,
    *,
    group: str,
    usage_type: str = "OnDemand",
    units: str = "0",
    nanos: int = 0,
    usage_unit: str = "h",
    currency: str = "USD",
    regions: list[str] | None = None,
) -> dict[str, Any]:
    """A SKU in the Cloud Billing Catalog shape (prices in these extra SKUs are made up)."""
    regions = regions or A3_REGIONS
    return {
        "name": f"services/6F81-5844-456A/skus/{sku_id}",
        "skuId": sku_id,
        "description": description,
        "category": {
            "serviceDisplayName": "Compute Engine",
            "resourceFamily": "Compute",
            "resourceGroup": group,
            "usageType": usage_type,
        },
        "serviceRegions": regions,
        "pricingInfo": [
            {
                "summary": "",
                "pricingExpression": {
                    "usageUnit": usage_unit,
                    "displayQuantity": 1,
                    "tieredRates": [
                        {
                            "startUsageAmount": 0,
                            "unitPrice": {"currencyCode": currency, "units": units, "nanos": nanos},
                        }
                    ],
                },
                "currencyConversionRate": 1,
                "effectiveTime": "2026-09-10T07:42:18.391Z",
            }
        ],
        "serviceProviderName": "Google",
    }


def with_extra_page(samples: Path, tmp_path: Path, *extra: dict[str, Any]) -> list[Path]:
    """The two sample pages plus a third page of extra SKUs (page 2 made to link to it)."""
    page_2 = json.loads((samples / PAGE_2).read_text())
    page_2["nextPageToken"] = "page-3"
    (tmp_path / "page-2.json").write_text(json.dumps(page_2))
    (tmp_path / "page-3.json").write_text(json.dumps({"skus": list(extra), "nextPageToken": ""}))
    return [samples / PAGE_1, tmp_path / "page-2.json", tmp_path / "page-3.json"]


def machine_price(result: FeedResult, machine: str, region: str, model: PricingModel) -> ParsedPrice:
    (found,) = (
        p for p in result.prices if (p.instance_type, p.region, p.pricing_model) == (machine, region, model)
    )
    return found


def test_units_and_nanos_become_exact_decimals(samples: Path) -> None:
    result = GcpBillingCatalogFeed(location=[samples / PAGE_1, samples / PAGE_2]).fetch()

    by_sku = {(c.sku, c.region): c for c in result.components}
    # "units": "9", "nanos": 796550569 -> 9 + 796550569 / 1e9 = 9.796550569 exactly
    h100 = by_sku[("F1B7-2C9E-4D60", "us-central1")]
    assert h100.price_per_unit == Decimal("9.796550569")
    assert (h100.component, h100.usage_unit) == ("gpu", "h")
    # "units": "2", "nanos": 933908000 -> 2.933908 (a float would give 2.9339079999...)
    assert by_sku[("039F-D0DA-4055", "us-east1")].price_per_unit == Decimal("2.933908")
    assert by_sku[("9C2B-47E0-A6D3", "us-west4")].pricing_model == PricingModel.RESERVED_1Y
    assert by_sku[("3F7D-B91A-0C5E", "us-west4")].price_per_unit == Decimal("4.302645")
    assert by_sku[("AEC2-3D5C-61BF", "us-central1")].pricing_model == PricingModel.SPOT


def test_a2_highgpu_1g_is_priced_from_its_gpu_cpu_and_ram_skus(samples: Path) -> None:
    result = GcpBillingCatalogFeed(location=[samples / PAGE_1, samples / PAGE_2]).fetch()

    price = machine_price(result, "a2-highgpu-1g", "us-central1", PricingModel.ON_DEMAND)
    # 12 vCPU x 0.031611 + 85 GiB x 0.004237 + 1 A100 x 2.933908
    # = 0.379332 + 0.360145 + 2.933908 = 3.673385 USD/h (price-feed-formats.md 3.3)
    assert price.price_per_instance_hour == Decimal("3.673385")
    assert price.sku == "039F-D0DA-4055+2922-40C5-B19F+2390-DCAF-DA38"
    assert (price.accelerator_slug, price.accelerators_per_instance) == ("a100-sxm-40gb", 1)
    eight = machine_price(result, "a2-highgpu-8g", "us-west1", PricingModel.ON_DEMAND)
    assert eight.price_per_instance_hour == 8 * Decimal("3.673385")  # 96 vCPU, 680 GiB, 8 GPUs


def test_a3_highgpu_1g_includes_its_bundled_local_ssd(samples: Path, tmp_path: Path) -> None:
    ssd = sku(
        "LSSD-0000-0001",
        "SSD backed Local Storage in Americas",
        group="LocalSSD",
        nanos=80_000_000,
        usage_unit="GiBy.mo",
    )
    result = GcpBillingCatalogFeed(location=with_extra_page(samples, tmp_path, ssd)).fetch()

    price = machine_price(result, "a3-highgpu-1g", "us-east4", PricingModel.ON_DEMAND)
    # 26 x 0.025498003 + 234 x 0.00222034 + 9.796550569 + 750 GiB x 0.08 / 730 h
    # = 0.662948078 + 0.51955956 + 9.796550569 + 0.0821917808 = 11.0612499878 USD/h
    # (the a3-highgpu-1g check figure of 11.0612 in price-feed-formats.md 3.3)
    assert price.price_per_instance_hour == Decimal("11.0612499878")
    assert price.price_per_accelerator_hour == Decimal("11.0612499878")


def test_a4_is_priced_from_its_b200_slices_alone(samples: Path) -> None:
    """A4 has no vCPU or RAM SKUs: a "1 gpu slice" includes them, so 8 slices are the machine."""
    result = GcpBillingCatalogFeed(location=samples / "gcp-a4-skus-sample.json").fetch()

    netherlands = machine_price(result, "a4-highgpu-8g", "europe-west4", PricingModel.ON_DEMAND)
    # 8 x $11.277 per slice-hour = $90.216/h, SkyPilot's B200 x 8 row for europe-west4
    assert netherlands.price_per_instance_hour == Decimal("90.216")
    assert (netherlands.accelerator_slug, netherlands.accelerators_per_instance) == ("b200-sxm-192gb", 8)
    spot = machine_price(result, "a4-highgpu-8g", "us-central1", PricingModel.SPOT)
    assert spot.price_per_instance_hour == 8 * Decimal("4.0758")  # 32.6064
    assert not any(r.reason == RejectionReason.INCOMPLETE_COMPONENTS for r in result.rejections)


def test_spot_and_commitment_prices_use_components_of_the_same_usage_type(
    samples: Path, tmp_path: Path
) -> None:
    extra = [
        sku(
            "LSSD-0000-0002",
            "SSD backed Local Storage attached to Spot Preemptible VMs in Americas",
            group="LocalSSD",
            usage_type="Preemptible",
            nanos=48_000_000,
            usage_unit="GiBy.mo",
        ),
        sku(
            "CCPU-0000-0001",
            "Commitment v1: A3 Cpu in Americas for 1 Year",
            group="CPU",
            usage_type="Commit1Yr",
            nanos=16_000_000,
        ),
        sku(
            "CRAM-0000-0001",
            "Commitment v1: A3 Ram in Americas for 1 Year",
            group="RAM",
            usage_type="Commit1Yr",
            nanos=1_400_000,
            usage_unit="GiBy.h",
        ),
        sku(
            "CSSD-0000-0001",
            "Commitment v1: Local SSD In Americas for 1 Year",
            group="LocalSSD",
            usage_type="Commit1Yr",
            nanos=50_000_000,
            usage_unit="GiBy.mo",
        ),
    ]
    result = GcpBillingCatalogFeed(location=with_extra_page(samples, tmp_path, *extra)).fetch()

    spot = machine_price(result, "a3-highgpu-8g", "us-central1", PricingModel.SPOT)
    # 8 x 4.8534 + 208 x 0.01263 + 1872 x 0.0011 + 6000 GiB x 0.048 / 730 h
    # = 38.8272 + 2.62704 + 2.0592 + 0.3945205479 = 43.9079605479 USD/h
    assert spot.price_per_instance_hour == Decimal("43.9079605479")
    committed = machine_price(result, "a3-highgpu-1g", "us-south1", PricingModel.RESERVED_1Y)
    # 6.79880857 + 26 x 0.016 + 234 x 0.0014 + 750 x 0.05 / 730
    # = 6.79880857 + 0.416 + 0.3276 + 0.0513698630 = 7.5937784330 USD/h
    assert committed.price_per_instance_hour == Decimal("7.5937784330")
    # No 3-year CPU/RAM/SSD commitment SKUs: reported, not priced from the GPU alone.
    assert (
        "a3-highgpu-1g",
        RejectionReason.INCOMPLETE_COMPONENTS,
    ) in {(r.sku, r.reason_code) for r in result.rejections if "reserved_3y" in r.detail}
    assert not [p for p in result.prices if p.pricing_model == PricingModel.RESERVED_3Y]


def test_machines_missing_a_component_are_reported_not_priced(samples: Path) -> None:
    result = GcpBillingCatalogFeed(location=[samples / PAGE_1, samples / PAGE_2]).fetch()

    incomplete = {
        r.sku: r.detail for r in result.rejections if r.reason_code == RejectionReason.INCOMPLETE_COMPONENTS
    }
    # The sample has no A3 commitment core/RAM SKUs, nor G2 core/RAM SKUs: those are not priced.
    assert "reserved_3y: no A3 ram, A3 vcpu" in incomplete["a3-highgpu-8g"]
    assert "G2 vcpu" in incomplete["g2-standard-4"]
    # Bundled local SSD is optional (issue 24): the sample has no SSD SKU, and the A2 Ultra and
    # A3 machines are priced from their GPU, core and RAM SKUs (their notes say the SSD is left out).
    assert {p.instance_type for p in result.prices} == {
        "a2-highgpu-1g", "a2-highgpu-2g", "a2-highgpu-4g", "a2-highgpu-8g", "a2-megagpu-16g",
        "a2-ultragpu-1g", "a2-ultragpu-2g", "a2-ultragpu-4g", "a2-ultragpu-8g",
        "a3-highgpu-1g", "a3-highgpu-2g", "a3-highgpu-4g", "a3-highgpu-8g",
    }
    a3 = next(p for p in result.prices
              if (p.instance_type, p.pricing_model) == ("a3-highgpu-1g", "on_demand"))
    # 1 x H100 9.796550569 + 26 x 0.025498003 + 234 x 0.00222034 = 9.796550569 + 0.662948078
    # + 0.51955956 = 10.979058207 (11.0612 with the SSD)
    assert abs(a3.price_per_instance_hour - Decimal("10.979058207")) < Decimal("0.000001")
    assert "without its 750 GiB local SSD" in a3.sku


@pytest.mark.parametrize(
    ("description", "units", "reason"),
    [
        ("Reserved Nvidia H100 80GB Mega GPU in Americas", "0", RejectionReason.RESERVATION_ONLY),
        (
            "Nvidia H100 80GB GPU attached to Sole Tenancy VMs running in Americas",
            "0",
            RejectionReason.DEDICATED_TENANCY,
        ),
        ("DWS Calendar Mode Nvidia H100 80GB GPU running in Americas", "4", RejectionReason.OTHER_OFFER),
        ("Nvidia Tesla P100 GPU running in Americas", "1", RejectionReason.UNMAPPED_ACCELERATOR),
    ],
)
def test_gpu_sku_decoys_are_rejected_with_their_reason(
    json_file, description: str, units: str, reason: RejectionReason
) -> None:
    page = json_file({"skus": [sku("DCOY-0000-0001", description, group="GPU", units=units)]})

    result = GcpBillingCatalogFeed(location=page).fetch()

    assert (result.prices, result.components) == ((), ())
    assert [(r.sku, r.reason_code) for r in result.rejections] == [("DCOY-0000-0001", reason)]


def test_the_sample_dws_sku_is_not_an_on_demand_price(samples: Path) -> None:
    result = GcpBillingCatalogFeed(location=[samples / PAGE_1, samples / PAGE_2]).fetch()

    assert ("D4E6-1A8C-F092", RejectionReason.OTHER_OFFER) in {
        (r.sku, r.reason_code) for r in result.rejections
    }
    assert "D4E6-1A8C-F092" not in {c.sku for c in result.components}


def test_a_mapped_gpu_no_machine_type_uses_is_reported(json_file) -> None:
    t4 = sku("T4T4-0000-0001", "Nvidia Tesla T4 GPU running in Americas", group="GPU", nanos=350_000_000)
    page = json_file({"skus": [t4]})

    result = GcpBillingCatalogFeed(location=page).fetch()

    assert result.prices == ()
    assert {(r.sku, r.reason_code) for r in result.rejections} == {
        ("T4T4-0000-0001", RejectionReason.UNMAPPED_ACCELERATOR)
    }


def test_a_zero_priced_gpu_that_is_no_known_decoy_aborts_the_run(json_file) -> None:
    free = sku("FREE-0000-0001", "Nvidia H100 80GB GPU running in Americas", group="GPU")
    page = json_file({"skus": [free]})

    with pytest.raises(AbsurdPrice, match="FREE-0000-0001"):
        GcpBillingCatalogFeed(location=page).fetch()


def test_a_gpu_price_in_an_unknown_currency_aborts_the_run(json_file) -> None:
    priced = sku(
        "CURR-0000-0001",
        "Nvidia H100 80GB GPU running in Americas",
        group="GPU",
        units="9",
        currency="JPY",
    )
    page = json_file({"skus": [priced]})

    with pytest.raises(UnknownCurrency, match="JPY"):
        GcpBillingCatalogFeed(location=page).fetch()


def test_an_empty_listing_is_an_error_not_an_empty_price_list(json_file) -> None:
    page = json_file({"skus": [], "nextPageToken": ""})

    with pytest.raises(MalformedPayload, match="no SKUs"):
        GcpBillingCatalogFeed(location=page).fetch()


def test_it_follows_next_page_token_over_http_with_the_key_in_a_header(
    samples: Path, local_server: LocalServer, fast_client: HttpClient
) -> None:
    page_1 = (samples / PAGE_1).read_bytes()
    token = json.loads(page_1)["nextPageToken"]
    page_2 = (samples / PAGE_2).read_bytes()
    local_server.routes["/v1/services/6F81-5844-456A/skus"] = lambda query: Reply(
        page_2 if query.get("pageToken") == token else page_1
    )
    url = local_server.url("/v1/services/6F81-5844-456A/skus?currencyCode=USD&pageSize=5000")

    result = GcpBillingCatalogFeed(location=url, api_key="test-key", client=fast_client).fetch()

    assert len(local_server.requests) == 2
    second_path, second_headers = local_server.requests[1]
    assert "currencyCode=USD" in second_path and "pageToken=" in second_path
    assert second_headers["X-Goog-Api-Key"] == "test-key"
    assert "test-key" not in second_path
    # A price from page 2 (the 1-year H100 commitment component) made it in.
    assert "9C2B-47E0-A6D3" in {c.sku for c in result.components}
