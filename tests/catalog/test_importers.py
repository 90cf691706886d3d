"""Quote files (CSV/XLSX): good imports, and refusals that name row, field and reason and write nothing."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal

import openpyxl
import pytest
from django.core.management import CommandError
from django.core.management import call_command

from catalog.importers import QuoteFileRejected
from catalog.importers import parse_quote_file
from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.models import Source
from catalog.models import SystemSku
from catalog.selectors import price_at
from catalog.services import quote_file_import

HEADER = (
    "kind,slug,provider,instance_type,region,pricing_model,amount,currency,as_of,source,"
    "accelerator,accelerators_per_instance"
)
GOOD_ROWS = [
    "system,dgx-h100,,,,,420000,USD,2026-10-01,ACME quote 2026-10,,",
    "offering,,aws,p5.48xlarge,us-east-1,on_demand,55.04,USD,2026-09-10,https://pricing.example/aws,h100-sxm-80gb,8",
    "offering,,aws,p5.48xlarge,us-east-1,reserved_1y,35.10,USD,2026-09-10,https://pricing.example/aws,h100-sxm-80gb,8",
]


def _csv(*rows: str, header: str = HEADER) -> bytes:
    return "\n".join([header, *rows]).encode()


def _rejection(content: bytes, file_name: str = "quote.csv") -> list[str]:
    with pytest.raises(QuoteFileRejected) as caught:
        quote_file_import(file_name=file_name, content=content, team=None)
    return [str(error) for error in caught.value.errors]


def test_a_good_csv_adds_prices_and_new_offerings(catalog):
    prices_before = PricePoint.objects.count()

    result = quote_file_import(file_name="quote.csv", content=_csv(*GOOD_ROWS), team=None)

    # One new offering: the quote's p5.48xlarge us-east-1 1-year reserved term prices the
    # catalog's row that no public price list gave a figure for (issue 23).
    assert (result.prices_created, result.prices_unchanged, result.offerings_created) == (3, 0, 1)
    assert PricePoint.objects.count() == prices_before + 3
    dgx = SystemSku.objects.get(slug="dgx-h100")
    price = price_at(dgx, on=dt.date(2026, 10, 2))
    assert (price.amount, price.source.key, price.source.kind) == (
        Decimal("420000"),
        "ACME quote 2026-10",
        "quote",
    )
    offering = CloudOffering.objects.get(
        instance_type="p5.48xlarge", region="us-east-1", pricing_model="reserved_1y"
    )
    assert (offering.accelerator.slug, offering.accelerators_per_instance) == ("h100-sxm-80gb", 8)
    assert offering.prices.get().source_url == "https://pricing.example/aws"


def test_importing_the_same_file_twice_adds_nothing_the_second_time(catalog):
    quote_file_import(file_name="quote.csv", content=_csv(*GOOD_ROWS), team=None)
    count = PricePoint.objects.count()

    result = quote_file_import(file_name="quote.csv", content=_csv(*GOOD_ROWS), team=None)

    assert (result.prices_created, result.prices_unchanged, result.offerings_created) == (0, 3, 0)
    assert PricePoint.objects.count() == count


def test_a_good_xlsx_with_typed_cells_imports_through_the_command(catalog, tmp_path):
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(
        [
            "kind",
            "provider",
            "instance_type",
            "region",
            "pricing_model",
            "amount",
            "currency",
            "as_of",
            "source",
        ]
    )
    sheet.append(
        [
            "offering",
            "aws",
            "p4d.24xlarge",
            "unspecified",
            "on_demand",
            21.96,
            "USD",
            dt.date(2026, 9, 10),
            "AWS price list",
        ]
    )
    path = tmp_path / "quote.xlsx"
    workbook.save(path)
    out = io.StringIO()

    call_command("load_catalog", file=path, stdout=out)

    assert "1 price(s) added" in out.getvalue()
    p4d = CloudOffering.objects.get(provider="aws", instance_type="p4d.24xlarge", region="unspecified")
    assert price_at(p4d, on=dt.date(2026, 9, 10)).amount == Decimal("21.96")


def test_it_refuses_a_file_missing_a_column_and_writes_nothing(catalog):
    count = PricePoint.objects.count()
    header = HEADER.replace(",amount,", ",price,")

    errors = _rejection(_csv(*GOOD_ROWS, header=header))

    assert errors == ["row 1, amount: missing column"]
    assert PricePoint.objects.count() == count


def test_it_refuses_the_whole_file_listing_every_bad_row(catalog):
    count, offerings, sources = (
        PricePoint.objects.count(),
        CloudOffering.objects.count(),
        Source.objects.count(),
    )
    rows = [
        GOOD_ROWS[0],  # row 2: good, and still not written
        "system,dgx-h100,,,,,-5,USD,2026-10-01,ACME,,",  # row 3
        "offering,,acme-cloud,x1,us-east-1,on_demand,3,USD,2026-10-01,ACME,h100-sxm-80gb,8",  # row 4
        "offering,,aws,p5.48xlarge,us-east-1,monthly,3,USD,2026-10-01,ACME,h100-sxm-80gb,8",  # row 5
        "system,dgx-h100,,,,,abc,USD,31/12/2026,ACME,,",  # row 6
        "offering,,aws,p5.48xlarge,us-east-1,spot,3,XYZ,2026-10-01,ACME,h100-sxm-80gb,2.5",  # row 7
    ]

    errors = _rejection(_csv(*rows))

    assert errors == [
        "row 3, amount: must be greater than zero",
        "row 4, provider: unknown provider 'acme-cloud'; expected one of aws, azure, gcp, oracle, "
        "lambda, coreweave, runpod, vastai, thunder, spheron, runcrate, tensorwave, vultr, nebius, market",
        "row 5, pricing_model: unknown pricing model 'monthly'; expected one of on_demand, "
        "reserved_1y, reserved_3y, spot, capacity_block",
        "row 6, amount: 'abc' is not a number",
        "row 6, as_of: '31/12/2026' is not a date in YYYY-MM-DD form",
        "row 7, accelerators_per_instance: '2.5' is not a whole number greater than zero",
        "row 7, currency: unknown currency 'XYZ'; expected one of USD, EUR, GBP, JPY, CNY, KRW, "
        "INR, CAD, AUD, CHF, SEK, SGD",
    ]
    assert (PricePoint.objects.count(), CloudOffering.objects.count(), Source.objects.count()) == (
        count,
        offerings,
        sources,
    )


def test_it_refuses_rows_naming_unknown_catalog_rows(catalog):
    rows = [
        "system,dgx-h999,,,,,1000,USD,2026-10-01,ACME,,",
        "offering,,aws,p9.huge,us-east-1,on_demand,3,USD,2026-10-01,ACME,,",
        "offering,,aws,p9.huge,us-east-1,spot,3,USD,2026-10-01,ACME,z100-sxm-1gb,8",
    ]

    errors = _rejection(_csv(*rows))

    assert errors == [
        "row 2, slug: unknown system 'dgx-h999'",
        "row 3, accelerator: is required for an offering not in the catalog",
        "row 3, accelerators_per_instance: is required for an offering not in the catalog",
        "row 4, accelerator: unknown accelerator 'z100-sxm-1gb'",
    ]


def test_row_numbers_count_blank_lines_as_a_spreadsheet_does(catalog):
    content = _csv(GOOD_ROWS[0], "", "system,dgx-h100,,,,,0,USD,2026-10-01,ACME,,")

    assert _rejection(content) == ["row 4, amount: must be greater than zero"]


def test_xlsx_errors_name_the_spreadsheet_row(catalog):
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["kind", "slug", "amount", "currency", "as_of", "source"])
    sheet.append(["system", "dgx-h100", 420000, "USD", dt.date(2026, 10, 1), "ACME"])
    sheet.append(["system", "dgx-h100", "four hundred", "USD", "soon", "ACME"])
    buffer = io.BytesIO()
    workbook.save(buffer)

    errors = _rejection(buffer.getvalue(), file_name="quote.xlsx")

    assert errors == [
        "row 3, amount: 'four hundred' is not a number",
        "row 3, as_of: 'soon' is not a date in YYYY-MM-DD form",
    ]


def test_the_command_exits_non_zero_with_every_error_on_stderr(catalog, tmp_path):
    path = tmp_path / "quote.csv"
    path.write_bytes(
        _csv("system,dgx-h100,,,,,-1,USD,2026-10-01,ACME,,", "system,nope,,,,,1,USD,2026-10-01,ACME,,")
    )
    err = io.StringIO()

    with pytest.raises(CommandError, match=r"quote.csv refused: 2 error\(s\); nothing was written"):
        call_command("load_catalog", file=path, stderr=err, stdout=io.StringIO())

    assert err.getvalue().splitlines() == [
        "row 2, amount: must be greater than zero",
        "row 3, slug: unknown system 'nope'",
    ]


def test_it_refuses_other_file_types():
    with pytest.raises(QuoteFileRejected, match="expected a .csv or .xlsx file"):
        parse_quote_file(file_name="quote.pdf", content=b"%PDF")


def test_it_refuses_an_unreadable_or_empty_file(catalog):
    assert _rejection(b"PK\x03\x04 not really a workbook", file_name="quote.xlsx")[0].startswith(
        "file: not a readable XLSX file"
    )
    assert _rejection(_csv(header=HEADER)) == ["file: has no price rows"]
