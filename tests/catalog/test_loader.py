"""load_catalog: counts per model, spot-checked figures with their sources, idempotence."""

from __future__ import annotations

import datetime as dt
import shutil
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError
from django.core.management import call_command
from numpy.testing import assert_allclose

from catalog.datafiles import DATA_DIR
from catalog.models import Accelerator
from catalog.models import AcceleratorThroughput
from catalog.models import CloudOffering
from catalog.models import CoolingTechnology
from catalog.models import FacilityProfile
from catalog.models import PowerDensityReference
from catalog.models import PricePoint
from catalog.models import Source
from catalog.models import SystemSku
from catalog.models import TokenApiPrice
from catalog.selectors import dense_tflops
from catalog.selectors import price_at
from catalog.services import catalog_load

EXPECTED_COUNTS = {
    # Issue 49 added 11 sources, 4 accelerators (B300, GB300, MI355X, MI325X), 4 systems, 5
    # other sources' power figures beside the costed ones, 51 offerings with 53 prices and 23
    # per-token prices (Azure's uksouth spot H100 comes with a refresh of its price list); its
    # European B200 added SkyPilot's Google list with 4 offerings (A4 in us-central1 and
    # europe-west4, A3 Ultra spot) and 6 prices (A3 Ultra and A4 on demand and spot).
    "sources": 25,
    "accelerators": 36,
    "accelerator throughputs": 111,
    "accelerator power caps": 4,
    "system SKUs": 38,
    "system power figures": 5,
    "cloud offerings": 120,
    "price points": 157,
    "cooling technologies": 6,
    "facility profiles": 3,
    "power density references": 8,
    # 27 published prices (token_api_prices.yaml) and 2 shipped examples.
    "token API prices": 29,
    # AWS's published internet egress rate (egress_rates.yaml), with its source.
    "egress rates": 1,
    # 33 published measurements and 13 seed claims (throughput_measurements.yaml).
    "throughput measurements": 46,
}


def test_it_loads_every_model_with_the_expected_counts(empty_catalog):
    counts = catalog_load()

    assert {name: counter["created"] for name, counter in counts.items()} == EXPECTED_COUNTS
    assert Accelerator.objects.count() == 36
    assert SystemSku.objects.count() == 38
    assert CloudOffering.objects.count() == 120
    # 119 offering prices (offerings.yaml) + 38 purchase prices (systems.yaml)
    assert PricePoint.objects.filter(offering__isnull=False).count() == 119
    assert PricePoint.objects.filter(system__isnull=False).count() == 38


def test_loading_twice_creates_and_updates_nothing(catalog):
    second = catalog_load()

    for name, counter in second.items():
        assert counter["created"] == 0, name
        assert counter["updated"] == 0, name
        assert counter["unchanged"] == EXPECTED_COUNTS[name], name
    assert PricePoint.objects.count() == 157


def test_reloading_restores_an_edited_figure_and_keeps_added_price_history(catalog):
    SystemSku.objects.filter(slug="dgx-h100").update(power_max_kw=Decimal("99"))
    offering = CloudOffering.objects.get(instance_type="p4d.24xlarge", region="unspecified")
    PricePoint.objects.create(
        offering=offering,
        amount=Decimal("21.96"),
        as_of=dt.date(2026, 9, 10),
        source=Source.objects.get(key="seed-003"),
        retrieved_at=dt.datetime(2026, 9, 10, tzinfo=dt.UTC),
    )

    counts = catalog_load()

    assert counts["system SKUs"]["updated"] == 1
    assert SystemSku.objects.get(slug="dgx-h100").power_max_kw == Decimal("10.2")
    assert PricePoint.objects.count() == 158  # the added price is history, never removed


def test_h100_keeps_every_sources_figure_and_uses_the_dense_one(catalog):
    h100 = Accelerator.objects.get(slug="h100-sxm-80gb")
    fp16 = AcceleratorThroughput.objects.filter(accelerator=h100, precision="FP16")

    dense = fp16.get(is_sparse=False)
    assert (dense.tflops, dense.source.key, dense.is_preferred) == (Decimal("989"), "seed-004", True)
    assert sorted(fp16.filter(is_sparse=True).values_list("source__key", "tflops")) == [
        ("seed-002", Decimal("1979")),
        ("seed-003", Decimal("1979")),
    ]
    # seed-000's "1979 TFLOPS FP4" is kept for the record but never used.
    fp4 = AcceleratorThroughput.objects.get(accelerator=h100, precision="FP4")
    assert (fp4.source.key, fp4.is_preferred) == ("seed-000", False)
    assert dense_tflops(h100) == {
        "FP16": Decimal("989"),
        "BF16": Decimal("989"),
        "FP8": Decimal("1979"),
        "FP32": Decimal("60"),
        "FP64": Decimal("67"),
        "TF32": Decimal("494.5"),  # derived: seed-002's with-sparsity 989 / 2
    }


def test_blackwell_dense_figures_are_half_the_quoted_sparse_ones(catalog):
    b200 = dense_tflops(Accelerator.objects.get(slug="b200-sxm-192gb"))
    # seed-004: FP8 9 PFLOPS and FP16 4.5 PFLOPS with sparsity -> 4,500 and 2,250 dense
    assert (b200["FP8"], b200["FP16"]) == (Decimal("4500"), Decimal("2250"))


def test_accelerator_figures_name_their_sources(catalog):
    h100 = Accelerator.objects.get(slug="h100-sxm-80gb")
    assert (h100.memory_gb, h100.memory_bandwidth_gb_per_s, h100.tdp_w) == (80, 3350, 700)
    assert h100.field_sources["tdp_w"] == ["seed-000", "seed-002", "seed-003", "seed-004"]
    l40s = Accelerator.objects.get(slug="l40s-pcie-48gb")
    assert (l40s.tdp_w, l40s.field_sources["tdp_w"]) == (350, ["seed-002", "seed-003"])
    assert "seed-000 300 W" in l40s.notes  # the disagreeing source is recorded


def test_dgx_h100_has_the_seed_power_and_an_assumed_idle_power(catalog):
    dgx = SystemSku.objects.get(slug="dgx-h100")

    assert (dgx.accelerator.slug, dgx.accelerators_per_system) == ("h100-sxm-80gb", 8)
    assert (dgx.power_max_kw, dgx.field_sources["power_max_kw"]) == (Decimal("10.2"), ["seed-002"])
    # idle = 30 % of 10.2 kW = 3.06 kW (systems.yaml idle_power_share_of_max)
    assert (dgx.power_idle_kw, dgx.field_sources["power_idle_kw"]) == (
        Decimal("3.06"),
        ["catalog-assumptions"],
    )
    assert (dgx.purchase_price_low_usd, dgx.purchase_price_high_usd) == (450_000, 500_000)


def test_p4d_price_is_seed_004s_and_eight_days_cost_matches_the_design_doc(catalog):
    p4d = CloudOffering.objects.get(provider="aws", instance_type="p4d.24xlarge", region="unspecified")
    price = price_at(p4d, on=dt.date(2026, 11, 22))

    assert (price.amount, price.source.key, price.as_of) == (
        Decimal("32.77"),
        "seed-004",
        dt.date(2025, 1, 1),
    )
    # 8 days at $32.77/h: 32.77 x 24 x 8 = 6,291.84 (design doc)
    assert_allclose(float(price.amount) * 24 * 8, 6291.84)
    # seed-002's "~$32/hour" is kept as the earlier price
    assert price_at(p4d, on=dt.date(2024, 6, 1)).amount == Decimal("32")


def test_per_gpu_hour_prices_are_stored_per_instance_hour(catalog):
    p5 = CloudOffering.objects.get(provider="aws", instance_type="p5.48xlarge", region="unspecified")
    price = p5.prices.get(source__key="seed-003")

    assert price.amount == Decimal("55.04")  # $6.88 per GPU-hour x 8 GPUs
    assert "$6.88" in price.note
    a100 = CloudOffering.objects.get(provider="spheron", instance_type="1x-a100-sxm-80gb")
    # $1.07/h at ~520 tokens/s: 1.07 / (520 x 3,600) x 10^6 = $0.57 per million tokens (seed-003)
    amount = float(price_at(a100, on=dt.date(2026, 11, 22)).amount)
    assert_allclose(amount / (520 * 3600) * 1e6, 0.5716, atol=5e-5)


def test_cooling_facilities_and_power_density_are_loaded_with_sources(catalog):
    air = CoolingTechnology.objects.get(slug="air-crac")
    assert (air.min_kw_per_rack, air.max_kw_per_rack, air.capex_rating) == (None, 15, "low")
    assert air.field_sources["max_kw_per_rack"] == ["seed-003"]
    assert air.field_sources["capex_usd_per_kw"] == ["catalog-assumptions"]
    assert CoolingTechnology.objects.get(slug="immersion-two-phase").max_kw_per_rack is None
    colo = FacilityProfile.objects.get(slug="colo-air")
    assert (colo.electricity_usd_per_kwh, colo.field_sources["electricity_usd_per_kwh"]) == (
        Decimal("0.10"),
        ["seed-002"],
    )
    pod = PowerDensityReference.objects.get(configuration__startswith="DGX H100 POD")
    assert (pod.power_kw, pod.source.key) == (Decimal("326"), "seed-002")


def test_the_command_prints_counts_and_is_idempotent(empty_catalog):
    first, second = StringIO(), StringIO()

    call_command("load_catalog", stdout=first)
    call_command("load_catalog", stdout=second)

    assert "accelerators              created   36" in first.getvalue()
    assert "accelerators              created    0  updated    0  unchanged   36" in second.getvalue()
    assert Accelerator.objects.count() == 36


def test_the_command_refuses_a_bad_data_file_and_writes_nothing(empty_catalog, tmp_path):
    data_dir = tmp_path / "data"
    shutil.copytree(DATA_DIR, data_dir)
    systems = data_dir / "systems.yaml"
    systems.write_text(systems.read_text().replace("power_max_kw: 10.2", "power_max_kw: -10.2"))

    with pytest.raises(
        CommandError, match=r"systems.yaml: hgx-h100-8gpu-server: power_max_kw: must be greater than zero"
    ):
        call_command("load_catalog", data_dir=data_dir, stdout=StringIO())

    assert Source.objects.count() == 0
    assert Accelerator.objects.count() == 0


def test_the_instances_people_rent_carry_dated_list_prices_or_say_none_was_found(catalog):
    """Issue 23: hyperscaler 8-GPU instances like for like, each price with its list and date."""
    p5en = CloudOffering.objects.get(provider="aws", instance_type="p5en.48xlarge",
                                     region="us-east-1", pricing_model="on_demand")
    price = price_at(p5en, on=dt.date(2026, 11, 24))
    assert (price.amount, price.source.key) == (Decimal("63.2960"), "skypilot-catalog-aws-v8")
    assert p5en.accelerator.slug == "h200-sxm-141gb"
    spot = CloudOffering.objects.get(provider="aws", instance_type="g6e.48xlarge", pricing_model="spot",
                                     region="us-east-1")
    low_and_high = (spot.prices.get().amount, spot.prices.get().amount_high)
    assert low_and_high == (Decimal("8.0189"), Decimal("20.6400"))  # across the us-east-1 zones
    # Google's committed-use month is 730 hours: 44,810.08 / 730
    a3_1y = CloudOffering.objects.get(provider="gcp", instance_type="a3-highgpu-8g",
                                      pricing_model="reserved_1y", region="us-central1")
    a3_price = price_at(a3_1y, on=dt.date(2026, 11, 24))
    assert_allclose(float(a3_price.amount), 44810.08066464 / 730, atol=5e-5)
    assert a3_price.as_of == dt.date(2025, 3, 6)  # "generated: Thu Mar  6 03:53:56 2025"
    # Terms with no public figure are listed without a price, and say so.
    for instance_type, model in (("Standard_ND96isr_H200_v5", "on_demand"),
                                 ("p6-b200.48xlarge", "reserved_1y"), ("p5en.48xlarge", "reserved_3y")):
        offering = CloudOffering.objects.get(instance_type=instance_type, pricing_model=model)
        assert not offering.prices.exists()
        assert "No public figure found" in offering.notes


def test_published_per_token_prices_are_loaded_beside_the_examples(catalog):
    fireworks = TokenApiPrice.objects.get(provider="Fireworks AI", model_name="Llama 3.1 70B Instruct")
    # input_cost_per_token 9e-07 x 1,000,000 = $0.90 per million tokens
    prices = (fireworks.usd_per_million_input, fireworks.usd_per_million_output)
    assert prices == (Decimal("0.9"), Decimal("0.9"))
    assert (fireworks.is_example, fireworks.source.key) == (False, "litellm-model-prices")
    examples = TokenApiPrice.objects.filter(is_example=True).values_list("provider", flat=True)
    assert set(examples) == {"Example API"}


def test_offerings_a_source_prices_per_gpu_only_are_named_in_words(catalog):
    typical = CloudOffering.objects.get(instance_type="typical-1x-l40s-pcie-48gb")
    spheron = CloudOffering.objects.get(provider="spheron", instance_type="1x-l40s-pcie-48gb")
    g6e = CloudOffering.objects.get(instance_type="g6e.48xlarge", pricing_model="on_demand",
                                    region="us-east-1")

    assert str(typical) == "Market survey typical price per GPU (1x L40S 48 GB), on-demand"
    assert str(spheron) == "Spheron per-GPU price (1x L40S 48 GB), on-demand"
    assert str(g6e) == "AWS g6e.48xlarge (8x L40S 48 GB), us-east-1, on-demand"
