"""AWS offer-file parsing (JSON and CSV): prices, reserved terms, decoys, bad input."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

from catalog.pricefeeds import AbsurdPrice
from catalog.pricefeeds import MalformedPayload
from catalog.pricefeeds import PricingModel
from catalog.pricefeeds import RejectionReason
from catalog.pricefeeds import TruncatedPayload
from catalog.pricefeeds import UnknownCurrency
from catalog.pricefeeds import parse_offer
from catalog.pricefeeds.records import FeedResult
from catalog.pricefeeds.records import ParsedPrice


def parse_sample(samples: Path, file_format: str, **kwargs: object) -> FeedResult:
    return parse_offer(samples / f"aws-ec2-offer-sample.{file_format}", file_format=file_format, **kwargs)


def price_of(
    result: FeedResult,
    instance_type: str,
    region: str,
    pricing_model: PricingModel = PricingModel.ON_DEMAND,
    purchase_option: str = "",
    offering_class: str = "",
) -> ParsedPrice:
    (found,) = (
        p
        for p in result.prices
        if (p.instance_type, p.region, p.pricing_model, p.purchase_option, p.offering_class)
        == (instance_type, region, pricing_model, purchase_option, offering_class)
    )
    return found


def reasons_by_sku(result: FeedResult) -> dict[str, RejectionReason]:
    return {r.sku: r.reason_code for r in result.rejections}


@pytest.mark.parametrize("file_format", ["json", "csv"])
def test_on_demand_prices_match_the_sample_offer_file(samples: Path, file_format: str) -> None:
    result = parse_sample(samples, file_format)

    p5 = price_of(result, "p5.48xlarge", "us-east-1")
    assert p5.price_per_instance_hour == Decimal("55.04")
    assert p5.price_per_accelerator_hour == Decimal("6.88")  # 55.04 / 8 GPUs
    assert (p5.accelerator_slug, p5.accelerators_per_instance) == ("h100-sxm-80gb", 8)
    assert p5.sku == "3D4V8UAYEMB38GU2.JRTCKXETXF"
    assert p5.effective_date == dt.date(2026, 9, 1)
    assert p5.source_version == "20260910195514"
    assert p5.currency == "USD"
    assert price_of(result, "p4d.24xlarge", "us-east-1").price_per_instance_hour == Decimal("21.957642")
    # us-west-2 differs in the last digits (price-feed-formats.md 1.3).
    assert price_of(result, "p4d.24xlarge", "us-west-2").price_per_instance_hour == Decimal("21.95764")
    assert price_of(result, "g6e.xlarge", "us-east-1").accelerator_slug == "l40s-pcie-48gb"
    assert price_of(result, "p5en.48xlarge", "us-east-1").accelerator_slug == "h200-sxm-141gb"


@pytest.mark.parametrize("file_format", ["json", "csv"])
def test_reserved_terms_spread_the_upfront_fee_over_the_term(samples: Path, file_format: str) -> None:
    result = parse_sample(samples, file_format)

    no_upfront = price_of(
        result, "p5.48xlarge", "us-east-1", PricingModel.RESERVED_1Y, "No Upfront", "standard"
    )
    assert no_upfront.price_per_instance_hour == Decimal("36.2264")
    assert no_upfront.upfront_fee is None
    # All Upfront 1 yr: 0 hourly + 297312 / 8760 h = 33.93972602739... -> 33.9397260274
    all_upfront = price_of(
        result, "p5.48xlarge", "us-east-1", PricingModel.RESERVED_1Y, "All Upfront", "standard"
    )
    assert all_upfront.upfront_fee == Decimal(297312)
    assert all_upfront.recurring_price_per_instance_hour == 0
    assert all_upfront.price_per_instance_hour == Decimal("33.9397260274")
    # Partial Upfront 3 yr: 12.026 + 316030 / 26280 h = 12.026 + 12.02549467... = 24.0514946728
    partial = price_of(
        result, "p5.48xlarge", "us-east-1", PricingModel.RESERVED_3Y, "Partial Upfront", "standard"
    )
    assert partial.recurring_price_per_instance_hour == Decimal("12.026")
    assert partial.upfront_fee == Decimal(316030)
    assert partial.price_per_instance_hour == Decimal("24.0514946728")
    assert partial.effective_date == dt.date(2025, 6, 1)
    convertible = price_of(
        result, "p5.48xlarge", "us-east-1", PricingModel.RESERVED_1Y, "No Upfront", "convertible"
    )
    assert convertible.price_per_instance_hour == Decimal("40.7296")


@pytest.mark.parametrize("file_format", ["json", "csv"])
def test_sample_decoys_are_rejected_with_their_reason(samples: Path, file_format: str) -> None:
    result = parse_sample(samples, file_format)

    assert reasons_by_sku(result) == {
        "7YQ2KXG4PZ9EB3DW": RejectionReason.LICENSED_OS,  # Windows p5
        "N8V3QW2ZCJ4T6KXE": RejectionReason.CAPACITY_RESERVATION,  # unused reservation p4d
        "5Q7AP3RH7KTVUNCJ": RejectionReason.CAPACITY_BLOCK_ZERO_PRICE,  # $0 capacity block p5
        "R3WPVNCD34N9W7UV": RejectionReason.FREE_TIER,
    }
    decoy_skus = {"7YQ2KXG4PZ9EB3DW", "N8V3QW2ZCJ4T6KXE", "5Q7AP3RH7KTVUNCJ", "R3WPVNCD34N9W7UV"}
    assert not {p.sku.split(".")[0] for p in result.prices} & decoy_skus
    # 8 on-demand rows (5 in us-east-1, 3 in us-west-2) + 8 reserved terms in the sample.
    assert len(result.prices) == 16


def test_json_and_csv_variants_give_the_same_prices(samples: Path) -> None:
    def key(p: ParsedPrice) -> tuple[object, ...]:
        return (p.sku, p.region, p.price_per_instance_hour, p.upfront_fee, p.effective_date)

    from_json = parse_sample(samples, "json")
    from_csv = parse_sample(samples, "csv")

    assert sorted(map(key, from_json.prices)) == sorted(map(key, from_csv.prices))


@pytest.mark.parametrize("file_format", ["json", "csv"])
def test_it_keeps_only_the_requested_region(samples: Path, file_format: str) -> None:
    result = parse_sample(samples, file_format, region="us-west-2")

    assert {p.region for p in result.prices} == {"us-west-2"}
    assert {p.instance_type for p in result.prices} == {"p5.48xlarge", "p4d.24xlarge", "g5.2xlarge"}
    # us-east-1 decoys are not reported for us-west-2; the global free-tier product is.
    assert reasons_by_sku(result) == {"R3WPVNCD34N9W7UV": RejectionReason.FREE_TIER}


def test_it_refuses_a_file_that_holds_only_other_regions(samples: Path) -> None:
    with pytest.raises(MalformedPayload, match="eu-west-1"):
        parse_sample(samples, "json", region="eu-west-1")


@pytest.mark.parametrize(
    ("attributes", "product_family", "reason"),
    [
        ({"operatingSystem": "Windows"}, "Compute Instance", RejectionReason.LICENSED_OS),
        (
            {"operatingSystem": "Red Hat Enterprise Linux"},
            "Compute Instance",
            RejectionReason.LICENSED_OS,
        ),
        ({"operatingSystem": "SUSE"}, "Compute Instance", RejectionReason.LICENSED_OS),
        ({"preInstalledSw": "SQL Std"}, "Compute Instance", RejectionReason.LICENSED_OS),
        (
            {"operatingSystem": "Windows", "licenseModel": "Bring your own license"},
            "Compute Instance",
            RejectionReason.BYOL,
        ),
        (
            {"tenancy": "Dedicated", "usagetype": "DedicatedUsage:p5.48xlarge"},
            "Compute Instance",
            RejectionReason.DEDICATED_TENANCY,
        ),
        ({"tenancy": "Host"}, "Compute Instance", RejectionReason.DEDICATED_TENANCY),
        ({"tenancy": "Host"}, "Dedicated Host", RejectionReason.DEDICATED_TENANCY),
        (
            {"capacitystatus": "AllocatedCapacityReservation"},
            "Compute Instance",
            RejectionReason.CAPACITY_RESERVATION,
        ),
    ],
)
def test_licensed_dedicated_and_reservation_rows_never_become_prices(
    write_offer: Callable[..., Path],
    attributes: dict[str, str],
    product_family: str,
    reason: RejectionReason,
) -> None:
    result = parse_offer(write_offer(price="60.0000000000", product_family=product_family, **attributes))

    assert result.prices == ()
    assert [(r.sku, r.reason_code) for r in result.rejections] == [("TESTSKU000000001", reason)]


def test_a_capacity_block_with_a_real_hourly_price_is_a_capacity_block_price(
    write_offer: Callable[..., Path],
) -> None:
    result = parse_offer(write_offer(price="31.4640000000", marketoption="CapacityBlock"))

    (price,) = result.prices
    assert price.pricing_model == PricingModel.CAPACITY_BLOCK
    assert price.price_per_instance_hour == Decimal("31.464")


def test_an_unmapped_gpu_instance_is_reported_not_dropped(
    write_offer: Callable[..., Path],
) -> None:
    result = parse_offer(
        write_offer(
            instanceType="p6e-gb200.36xlarge",  # in no instance map yet
            usagetype="BoxUsage:p6e-gb200.36xlarge",
            gpuMemory="2100 GB HBM3e",
        )
    )

    assert result.prices == ()
    (unmapped,) = result.unmapped()
    assert unmapped.sku == "TESTSKU000000001"
    assert "p6e-gb200.36xlarge" in unmapped.detail and "2100 GB HBM3e" in unmapped.detail


def test_a_gpu_count_that_disagrees_with_the_map_is_reported(
    write_offer: Callable[..., Path],
) -> None:
    result = parse_offer(write_offer(gpu="4"))

    assert result.prices == ()
    assert result.rejections[0].reason_code == RejectionReason.MAPPING_MISMATCH


def test_non_accelerator_products_are_ignored_silently(write_offer: Callable[..., Path]) -> None:
    result = parse_offer(write_offer(instanceType="m5.large", instanceFamily="General purpose", gpu=""))

    assert (result.prices, result.rejections) == ((), ())


@pytest.mark.parametrize("price", ["0.0000000000", "-1.0000000000", "8000.0100000000"])
def test_a_zero_negative_or_absurd_price_aborts_the_run(write_offer: Callable[..., Path], price: str) -> None:
    # 8000.01 / 8 GPUs = 1000.00125 per GPU-hour, just above the 1,000 ceiling.
    with pytest.raises(AbsurdPrice, match="TESTSKU000000001"):
        parse_offer(write_offer(price=price))


def test_a_price_of_exactly_1000_per_gpu_hour_is_accepted(
    write_offer: Callable[..., Path],
) -> None:
    result = parse_offer(write_offer(price="8000.0000000000"))  # 8000 / 8 = 1000

    assert result.prices[0].price_per_accelerator_hour == 1000


def test_a_price_in_an_unknown_currency_aborts_the_run(write_offer: Callable[..., Path]) -> None:
    with pytest.raises(UnknownCurrency, match="'XYZ'"):
        parse_offer(write_offer(currency="XYZ"))


@pytest.fixture
def edited(samples: Path, tmp_path: Path) -> Callable[[str, Callable[[str], str]], Path]:
    """A copy of the sample offer file (``"json"`` or ``"csv"``) with ``edit`` applied to its text."""

    def edited_copy(file_format: str, edit: Callable[[str], str]) -> Path:
        path = tmp_path / f"edited.{file_format}"
        path.write_text(edit((samples / f"aws-ec2-offer-sample.{file_format}").read_text()))
        return path

    return edited_copy


def test_a_truncated_json_file_raises_before_returning_anything(edited) -> None:
    # Cut inside terms.Reserved: every product and on-demand price has been read by then.
    cut = edited("json", lambda text: text[: text.index('"HNW4W6GM8AE2PCQX.4NA7Y494T4"')])

    with pytest.raises(TruncatedPayload, match="ends before its JSON is closed"):
        parse_offer(cut)


def test_a_malformed_json_file_raises_malformed_payload(edited) -> None:
    broken = edited("json", lambda text: text.replace('"unit" : "Hrs",', '"unit" : Hrs,', 1))

    with pytest.raises(MalformedPayload) as raised:
        parse_offer(broken)
    assert not isinstance(raised.value, TruncatedPayload)


def test_a_json_file_without_terms_is_malformed(edited) -> None:
    no_terms = edited("json", lambda text: text[: text.index('  "terms" : {')].rstrip().rstrip(",") + "\n}\n")

    with pytest.raises(MalformedPayload, match="no products or no OnDemand terms"):
        parse_offer(no_terms)


def test_a_csv_file_cut_inside_a_row_raises_truncated_payload(edited) -> None:
    cut = edited("csv", lambda text: text[: text.index('"HNW4W6GM8AE2PCQX","4NA7Y494T4"') + 60])

    with pytest.raises(TruncatedPayload):
        parse_offer(cut, file_format="csv")


def test_a_csv_file_missing_the_hourly_row_of_an_upfront_term_is_truncated(edited) -> None:
    hourly_row = '"3D4V8UAYEMB38GU2","6QCMYABX3D","3D4V8UAYEMB38GU2.6QCMYABX3D.6YS6EN2CT7"'

    def without_hourly_row(text: str) -> str:
        lines = text.splitlines(keepends=True)
        without = [line for line in lines if not line.startswith(hourly_row)]
        assert len(without) == len(lines) - 1
        return "".join(without)

    with pytest.raises(TruncatedPayload, match="3D4V8UAYEMB38GU2.6QCMYABX3D"):
        parse_offer(edited("csv", without_hourly_row), file_format="csv")


def test_a_csv_file_without_a_needed_column_is_malformed(edited) -> None:
    renamed = edited("csv", lambda text: text.replace('"Pre Installed S/W"', '"Preinstalled Software"', 1))

    with pytest.raises(MalformedPayload, match="Pre Installed S/W"):
        parse_offer(renamed, file_format="csv")


def test_a_csv_row_with_missing_fields_in_the_middle_is_malformed(edited) -> None:
    def p4d_row_short(text: str) -> str:
        lines = text.splitlines(keepends=True)
        p4d = next(i for i, line in enumerate(lines) if line.startswith('"H7NGEAC6UEHNTKSJ","JRTCKXETXF"'))
        lines[p4d] = lines[p4d].replace('"Compute Instance","AmazonEC2",', "", 1)
        return "".join(lines)

    with pytest.raises(MalformedPayload, match="before the end has too few fields") as raised:
        parse_offer(edited("csv", p4d_row_short), file_format="csv")
    assert not isinstance(raised.value, TruncatedPayload)
