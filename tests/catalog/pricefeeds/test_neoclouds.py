"""Lambda Cloud and RunPod price lists."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from catalog.pricefeeds import AbsurdPrice
from catalog.pricefeeds import HttpClient
from catalog.pricefeeds import LambdaCloudFeed
from catalog.pricefeeds import MalformedPayload
from catalog.pricefeeds import PricingModel
from catalog.pricefeeds import RejectionReason
from catalog.pricefeeds import RunPodFeed

from .conftest import LocalServer
from .conftest import Reply

LAMBDA = "lambda-instance-types-sample.json"
RUNPOD = "runpod-gpu-types-sample.json"


def test_lambda_prices_are_per_instance_in_cents(samples: Path) -> None:
    result = LambdaCloudFeed(location=samples / LAMBDA).fetch()

    prices = {p.instance_type: p for p in result.prices}
    h100 = prices["gpu_8x_h100_sxm5"]
    assert h100.price_per_instance_hour == Decimal("23.92")  # 2392 cents
    assert h100.price_per_accelerator_hour == Decimal("2.99")  # 23.92 / 8
    assert (h100.accelerator_slug, h100.region, h100.effective_date) == (
        "h100-sxm-80gb",
        "global",
        None,
    )
    # Sold out (no region with capacity) still has a list price.
    assert prices["gpu_1x_h100_pcie"].price_per_instance_hour == Decimal("2.49")
    assert prices["gpu_8x_a100_80gb_sxm4"].price_per_instance_hour == Decimal("14.32")
    assert prices["gpu_1x_a10"].accelerator_slug == "a10-pcie-24gb"
    assert result.rejections == ()


def write_lambda(samples: Path, tmp_path: Path, name: str, **changes: object) -> Path:
    document = json.loads((samples / LAMBDA).read_text())
    entry = document["data"].pop("gpu_8x_h100_sxm5")
    entry["instance_type"].update(changes)
    document["data"] = {name: entry}
    path = tmp_path / "lambda.json"
    path.write_text(json.dumps(document))
    return path


def test_an_unmapped_lambda_instance_is_reported(samples: Path, tmp_path: Path) -> None:
    result = LambdaCloudFeed(location=write_lambda(samples, tmp_path, "gpu_1x_gh200")).fetch()

    assert result.prices == ()
    assert [(r.sku, r.reason_code) for r in result.rejections] == [
        ("gpu_1x_gh200", RejectionReason.UNMAPPED_ACCELERATOR)
    ]


def test_a_lambda_gpu_count_that_disagrees_with_the_map_is_reported(samples: Path, tmp_path: Path) -> None:
    specs = {"vcpus": 208, "memory_gib": 1800, "storage_gib": 22528, "gpus": 4}
    path = write_lambda(samples, tmp_path, "gpu_8x_h100_sxm5", specs=specs)

    result = LambdaCloudFeed(location=path).fetch()

    assert [r.reason_code for r in result.rejections] == [RejectionReason.MAPPING_MISMATCH]


def test_a_lambda_price_above_the_ceiling_aborts_the_run(samples: Path, tmp_path: Path) -> None:
    # 800100 cents = 8001 USD / 8 GPUs = 1000.125 per GPU-hour
    path = write_lambda(samples, tmp_path, "gpu_8x_h100_sxm5", price_cents_per_hour=800100)

    with pytest.raises(AbsurdPrice, match="1000.125"):
        LambdaCloudFeed(location=path).fetch()


def test_runpod_prices_per_gpu_hour_for_each_cloud_and_kind(samples: Path) -> None:
    result = RunPodFeed(location=samples / RUNPOD).fetch()

    prices = {(p.instance_type, p.pricing_model): p.price_per_instance_hour for p in result.prices}
    h100 = "NVIDIA H100 80GB HBM3"
    assert prices[(f"{h100} (secure cloud)", PricingModel.ON_DEMAND)] == Decimal("2.69")
    assert prices[(f"{h100} (secure cloud)", PricingModel.SPOT)] == Decimal("1.75")
    assert prices[(f"{h100} (community cloud)", PricingModel.SPOT)] == Decimal("1.55")
    assert prices[("NVIDIA L40S (community cloud)", PricingModel.SPOT)] == Decimal("0.4")
    # A100 SXM is not on community cloud (communityPrice null): no community rows.
    assert ("NVIDIA A100-SXM4-80GB (community cloud)", PricingModel.ON_DEMAND) not in prices
    assert len(prices) == 14  # 4 + 4 + 2 + 4
    assert {p.accelerators_per_instance for p in result.prices} == {1}


def test_an_unmapped_runpod_gpu_is_reported(samples: Path, json_file) -> None:
    document = json.loads((samples / RUNPOD).read_text())
    document["data"]["gpuTypes"][3]["id"] = "NVIDIA RTX PRO 6000 Blackwell"
    path = json_file(document)

    result = RunPodFeed(location=path).fetch()

    assert [(r.sku, r.reason_code) for r in result.rejections] == [
        ("NVIDIA RTX PRO 6000 Blackwell", RejectionReason.UNMAPPED_ACCELERATOR)
    ]


def test_runpod_graphql_errors_are_a_malformed_payload(json_file) -> None:
    path = json_file({"errors": [{"message": "Unauthorized"}]})

    with pytest.raises(MalformedPayload, match="Unauthorized"):
        RunPodFeed(location=path).fetch()


@pytest.mark.parametrize(
    ("feed", "sample", "route", "prices"),
    [(LambdaCloudFeed, LAMBDA, "/api/v1/instance-types", 4), (RunPodFeed, RUNPOD, "/graphql", 14)],
)
def test_each_is_fetched_over_http_with_a_bearer_key(
    feed, sample: str, route: str, prices: int,
    samples: Path, local_server: LocalServer, fast_client: HttpClient,
) -> None:
    local_server.routes[route] = Reply((samples / sample).read_bytes())

    result = feed(location=local_server.url(route), api_key="k", client=fast_client).fetch()

    assert len(result.prices) == prices
    assert local_server.requests[0][1]["Authorization"] == "Bearer k"
