"""The instance map data file and the Decimal helpers."""

from __future__ import annotations

import copy
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from catalog.pricefeeds import InstanceMap
from catalog.pricefeeds import InstanceMapError
from catalog.pricefeeds import MalformedPayload
from catalog.pricefeeds.mapping import DEFAULT_INSTANCE_MAP_PATH
from catalog.pricefeeds.money import decimal_amount
from catalog.pricefeeds.money import spread_over_term
from catalog.pricefeeds.money import units_nanos_amount

# The accelerator slugs the catalog uses (catalog convention <model>-<form factor>-<memory>gb).
CATALOG_SLUGS = {
    "h100-sxm-80gb", "h100-pcie-80gb", "a100-sxm-80gb", "a100-sxm-40gb", "a100-pcie-80gb",
    "h200-sxm-141gb", "b200-sxm-192gb", "b300-sxm-288gb", "l40s-pcie-48gb", "l4-pcie-24gb",
    "a10g-pcie-24gb", "a10-pcie-24gb", "v100-sxm-16gb", "t4-pcie-16gb", "rtx-4090-24gb", "rtx-a6000-48gb",
    "mi300x-oam-192gb", "gaudi3-oam-128gb", "trainium-32gb", "inferentia2-32gb",
}  # fmt: skip


@pytest.fixture
def map_data() -> dict:
    return yaml.safe_load(DEFAULT_INSTANCE_MAP_PATH.read_text())


def test_the_shipped_map_uses_only_catalog_slugs() -> None:
    instance_map = InstanceMap.load()

    assert instance_map.slugs_in_use() <= CATALOG_SLUGS
    assert instance_map.lookup("aws", "p5.48xlarge").accelerators_per_instance == 8
    assert instance_map.lookup("azure", "Standard_NC24ads_A100_v4").accelerator_slug == ("a100-pcie-80gb")
    a3 = next(m for m in instance_map.gcp_machine_types if m.name == "a3-highgpu-8g")
    assert (a3.accelerator_slug, a3.vcpus, a3.memory_gib) == ("h100-sxm-80gb", 208, 1872)


def test_a_slug_missing_from_the_accelerator_list_is_refused(map_data: dict) -> None:
    bad = copy.deepcopy(map_data)
    bad["aws"]["instances"]["p5.48xlarge"]["accelerator"] = "h100-sxm5-80gb"

    with pytest.raises(InstanceMapError, match="aws.p5.48xlarge.*'h100-sxm5-80gb'"):
        InstanceMap.from_data(bad)


@pytest.mark.parametrize("count", [0, -8, "8", 2.5, True])
def test_a_count_that_is_not_a_positive_integer_is_refused(map_data: dict, count: object) -> None:
    bad = copy.deepcopy(map_data)
    bad["lambda"]["instances"]["gpu_8x_h100_sxm5"]["count"] = count

    with pytest.raises(InstanceMapError, match="gpu_8x_h100_sxm5.count"):
        InstanceMap.from_data(bad)


def test_a_gcp_machine_type_must_name_a_known_gpu(map_data: dict) -> None:
    bad = copy.deepcopy(map_data)
    bad["gcp"]["machine_types"]["a3-highgpu-8g"]["gpu"] = "Nvidia H100"

    with pytest.raises(InstanceMapError, match="a3-highgpu-8g: gpu 'Nvidia H100'"):
        InstanceMap.from_data(bad)


def test_a_map_file_can_be_loaded_from_another_path(map_data: dict, tmp_path: Path) -> None:
    smaller = copy.deepcopy(map_data)
    smaller["aws"]["instances"] = {"p5.48xlarge": {"accelerator": "h100-sxm-80gb", "count": 8}}
    path = tmp_path / "map.yaml"
    path.write_text(yaml.safe_dump(smaller))

    assert InstanceMap.load(path).lookup("aws", "p4d.24xlarge") is None


@pytest.mark.parametrize(
    ("money", "expected"),
    [
        ({"units": "2", "nanos": 933908000}, Decimal("2.933908")),
        ({"units": "0", "nanos": 4237000}, Decimal("0.004237")),
        ({"nanos": 560040239}, Decimal("0.560040239")),  # missing units count as 0
        ({"units": "12"}, Decimal("12")),  # missing nanos count as 0
    ],
)
def test_units_plus_nanos_is_exact(money: dict, expected: Decimal) -> None:
    assert units_nanos_amount(money, provider="gcp", record="x") == expected


def test_nanos_of_a_billion_or_more_are_malformed() -> None:
    with pytest.raises(MalformedPayload, match="nanos"):
        units_nanos_amount({"units": "1", "nanos": 1_000_000_000}, provider="gcp", record="x")


def test_a_float_price_is_refused_so_no_binary_rounding_creeps_in() -> None:
    with pytest.raises(MalformedPayload, match="not a decimal number"):
        decimal_amount(55.04, provider="aws", record="x")
    assert decimal_amount("55.0400000000", provider="aws", record="x") == Decimal("55.04")


def test_a_term_fee_is_spread_over_8760_hours_a_year() -> None:
    # 1085220 / (3 x 8760) = 41.29452054794... -> 10 decimals
    assert spread_over_term(Decimal(1085220), 3) == Decimal("41.2945205479")
