"""Parse vendor quote files (CSV or XLSX) into validated rows, without touching the database.

A quote file has a header row and one price per row:

==========================  ===================================================================
column                      meaning
==========================  ===================================================================
kind                        ``system`` (a purchase price) or ``offering`` (a cloud price)
slug                        system SKU slug (kind=system)
provider                    cloud provider code, e.g. ``aws`` (kind=offering)
instance_type               provider's instance name, e.g. ``p5.48xlarge`` (kind=offering)
region                      region code, e.g. ``us-east-1`` (kind=offering)
pricing_model               on_demand, reserved_1y, reserved_3y, spot, capacity_block (offering)
amount                      price > 0: per unit (system) or per instance-hour (offering)
currency                    ISO 4217 code, e.g. USD
as_of                       date the price applies from, YYYY-MM-DD
source                      who quoted it: a name or a URL
accelerator                 optional; accelerator slug, needed for an offering not yet in the catalog
accelerators_per_instance   optional; whole number > 0, needed for a new offering too
amount_high                 optional; high end when the quote is a range
note                        optional; free text kept with the price
==========================  ===================================================================

Columns for a kind are required only when the file has rows of that kind. Row numbers in errors
are the ones a spreadsheet shows: the header is row 1.

Files come from users, so they are checked before they are parsed: the name must end in .csv or
.xlsx and the size stay within ``DJANGO_UPLOAD_MAX_BYTES``; a CSV must be text; an XLSX must be
a zip archive without macros whose parts unpack to a bounded size. openpyxl parses the parts
with defusedxml, so an XML bomb (entity declarations) is refused instead of expanded.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from dataclasses import dataclass
from decimal import Decimal
from decimal import InvalidOperation
from pathlib import PurePath
from typing import Any
from typing import NoReturn

import openpyxl
import pandas as pd
from defusedxml import DefusedXmlException
from django.conf import settings

from catalog.choices import PricingModel
from catalog.choices import Provider
from core.currency import Currency
from core.file_imports import FileRefused
from core.file_imports import RowError
from core.file_imports import csv_text

ALWAYS_REQUIRED = ("kind", "amount", "currency", "as_of", "source")
REQUIRED_BY_KIND = {
    "system": ("slug",),
    "offering": ("provider", "instance_type", "region", "pricing_model"),
}
OPTIONAL = ("accelerator", "accelerators_per_instance", "amount_high", "note")
HEADER_ROW = 1
QUOTE_FILE_SUFFIXES = (".csv", ".xlsx")
ZIP_SIGNATURE = b"PK\x03\x04"
# An XLSX unpacks to about 6 times the bytes of the same rows as CSV (20,000 offering rows: 14.2 MB
# of XML, 2.5 MB of CSV): ten times the upload limit holds any quote a CSV of that limit could
# hold, and stops a zip bomb.
XLSX_MAX_UNPACKED_PER_UPLOAD_BYTE = 10
MACRO_PART = "vbaproject.bin"


class QuoteFileRejected(FileRefused):
    """The quote file has at least one bad row; nothing from it may be written."""


@dataclass(frozen=True)
class QuoteRow:
    """One valid price from a quote file."""

    row: int
    kind: str
    amount: Decimal
    currency: str
    as_of: dt.date
    source: str
    slug: str = ""
    provider: str = ""
    instance_type: str = ""
    region: str = ""
    pricing_model: str = ""
    accelerator: str = ""
    accelerators_per_instance: int | None = None
    amount_high: Decimal | None = None
    note: str = ""

    @property
    def source_is_url(self) -> bool:
        return self.source.startswith(("http://", "https://"))


def parse_quote_file(*, file_name: str, content: bytes) -> tuple[list[QuoteRow], list[RowError]]:
    """Validate every row of a CSV or XLSX quote file.

    Returns
    -------
    rows, errors
        The valid rows, and every error of the other rows (a row with an error is not in rows).

    Raises
    ------
    QuoteFileRejected
        When the file as a whole is unusable: unreadable, wrong type, missing columns, no rows.
    """
    quote_file_check(file_name=file_name, size_bytes=len(content))
    if PurePath(file_name).suffix.lower() == ".csv":
        header, rows = _read_csv(content)
    else:
        header, rows = _read_xlsx(content)
    return _validate(header, rows)


def quote_file_max_bytes() -> int:
    """The largest quote file accepted [bytes]: DJANGO_UPLOAD_MAX_BYTES, what an upload keeps in memory."""
    return settings.FILE_UPLOAD_MAX_MEMORY_SIZE


def quote_file_check(*, file_name: str, size_bytes: int) -> None:
    """Refuse a quote file by its name and size alone, before any of it is read.

    Raises
    ------
    QuoteFileRejected
        When the name does not end in .csv or .xlsx, or the file is larger than
        ``quote_file_max_bytes()`` [bytes].
    """
    if PurePath(file_name).suffix.lower() not in QUOTE_FILE_SUFFIXES:
        _refuse(f"expected a .csv or .xlsx file, got '{file_name}'")
    limit = quote_file_max_bytes()
    if size_bytes > limit:
        _refuse(f"is {size_bytes:,} bytes; a quote file may have at most {limit:,}")


def quote_file_screen(*, file_name: str, content: bytes) -> None:
    """Refuse at once, before any row is read, a file whose name, size or container is wrong:
    not text (CSV), not a zip archive, a zip bomb or macros (XLSX). Reading the rows, which
    for a large workbook takes seconds, is left to the import job.

    Raises
    ------
    QuoteFileRejected
        With the reason, as ``parse_quote_file`` would give it.
    """
    quote_file_check(file_name=file_name, size_bytes=len(content))
    if PurePath(file_name).suffix.lower() == ".csv":
        _csv_text(content)
    else:
        _xlsx_check(content)


def _refuse(reason: str) -> NoReturn:
    raise QuoteFileRejected([RowError(None, "file", reason)])


def _csv_text(content: bytes) -> str:
    try:
        return csv_text(content)
    except FileRefused as exc:
        raise QuoteFileRejected(exc.errors) from exc


def _read_csv(content: bytes) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    text = _csv_text(content)
    try:
        # Strings only and blank lines kept, so row numbers match what a spreadsheet shows.
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, skip_blank_lines=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise QuoteFileRejected([RowError(None, "file", f"not a readable CSV file ({exc})")]) from exc
    header = [str(name).strip().lower() for name in frame.columns]
    frame.columns = header
    frame = frame.fillna("")
    rows = [(index + HEADER_ROW + 1, record) for index, record in enumerate(frame.to_dict("records"))]
    return header, rows


def _read_xlsx(content: bytes) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    _xlsx_check(content)
    # Anything openpyxl raises on a malformed part, at load or while streaming rows, means the
    # same to the user (zipfile, KeyError, ValueError, InvalidFileException...).
    try:
        workbook = openpyxl.load_workbook(
            io.BytesIO(content), read_only=True, data_only=True, keep_links=False
        )
        try:
            lines = workbook.active.iter_rows(values_only=True)
            first = next(lines, None) or ()
            header = ["" if name is None else str(name).strip().lower() for name in first]
            rows = [
                (number, dict(zip(header, values, strict=False)))
                for number, values in enumerate(lines, start=HEADER_ROW + 1)
            ]
        finally:
            workbook.close()
    except Exception as exc:
        if _caused_by(exc, DefusedXmlException):
            _refuse("not a safe XLSX file: its XML declares entities, which a workbook never needs "
                    "(an XML bomb?); it was not expanded")
        raise QuoteFileRejected([RowError(None, "file", f"not a readable XLSX file ({exc})")]) from exc
    return header, rows


def _xlsx_check(content: bytes) -> None:
    """Refuse an XLSX that is not a zip archive, unpacks too large, or carries macros."""
    if not content.startswith(ZIP_SIGNATURE):
        _refuse("not a readable XLSX file: it is not a zip archive, as every .xlsx file is")
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            parts = archive.infolist()
    except zipfile.BadZipFile as exc:
        _refuse(f"not a readable XLSX file ({exc})")
    # Declared sizes bound what is unpacked: zipfile stops reading a part at its declared size.
    unpacked_bytes = sum(part.file_size for part in parts)
    limit = XLSX_MAX_UNPACKED_PER_UPLOAD_BYTE * quote_file_max_bytes()
    if unpacked_bytes > limit:
        _refuse(f"not a safe XLSX file: it unpacks to {unpacked_bytes:,} bytes, more than the {limit:,} "
                "a quote file may (a zip bomb?)")
    if any(PurePath(part.filename).name.lower() == MACRO_PART for part in parts):
        _refuse("contains macros (a VBA project); save it as a plain .xlsx workbook without them")


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``kind`` is ``exc`` or anywhere in the chain of exceptions that led to it."""
    while exc is not None:
        if isinstance(exc, kind):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _validate(
    header: list[str], rows: list[tuple[int, dict[str, Any]]]
) -> tuple[list[QuoteRow], list[RowError]]:
    rows = [(number, record) for number, record in rows if not _is_blank(record)]
    missing = [name for name in ALWAYS_REQUIRED if name not in header]
    kinds = {_text(record.get("kind")).lower() for _, record in rows}
    for kind, names in REQUIRED_BY_KIND.items():
        if kind in kinds:
            missing += [name for name in names if name not in header]
    if missing:
        raise QuoteFileRejected([RowError(HEADER_ROW, name, "missing column") for name in missing])
    if not rows:
        raise QuoteFileRejected([RowError(None, "file", "has no price rows")])
    parsed: list[QuoteRow] = []
    errors: list[RowError] = []
    for number, record in rows:
        row_errors: list[RowError] = []
        row = _parse_row(number, record, row_errors)
        errors += row_errors
        if row is not None:
            parsed.append(row)
    return parsed, errors


# Each row is checked against these: a Choices class builds its ``values`` list on every read,
# which took a seventh of a quote file's import.
PROVIDERS = frozenset(Provider.values)
PRICING_MODELS = frozenset(PricingModel.values)
CURRENCIES = frozenset(Currency.values)


def _parse_row(number: int, record: dict[str, Any], errors: list[RowError]) -> QuoteRow | None:
    def fail(field: str, reason: str) -> None:
        errors.append(RowError(number, field, reason))

    kind = _text(record.get("kind")).lower()
    if kind not in REQUIRED_BY_KIND:
        fail("kind", f"'{kind}' is not one of: system, offering" if kind else "is empty")
    for name in REQUIRED_BY_KIND.get(kind, ()):
        if not _text(record.get(name)):
            fail(name, f"is required for kind {kind}")
    provider = _text(record.get("provider")).lower()
    if kind == "offering" and provider and provider not in PROVIDERS:
        fail("provider", f"unknown provider '{provider}'; expected one of {', '.join(Provider.values)}")
    pricing_model = _text(record.get("pricing_model")).lower()
    if kind == "offering" and pricing_model and pricing_model not in PRICING_MODELS:
        fail(
            "pricing_model",
            f"unknown pricing model '{pricing_model}'; expected one of {', '.join(PricingModel.values)}",
        )
    amount = _positive_decimal(record.get("amount"), "amount", fail, required=True)
    amount_high = _positive_decimal(record.get("amount_high"), "amount_high", fail, required=False)
    if amount is not None and amount_high is not None and amount_high < amount:
        fail("amount_high", "must not be below amount")
    currency = _text(record.get("currency")).upper()
    if currency not in CURRENCIES:
        fail("currency", f"unknown currency '{currency}'; expected one of {', '.join(Currency.values)}")
    as_of = _date(record.get("as_of"), fail)
    source = _text(record.get("source"))
    if not source:
        fail("source", "is empty")
    per_instance = _whole_number(record.get("accelerators_per_instance"), fail)
    if errors:
        return None
    return QuoteRow(
        row=number,
        kind=kind,
        amount=amount,
        amount_high=amount_high,
        currency=currency,
        as_of=as_of,
        source=source,
        slug=_text(record.get("slug")),
        provider=provider,
        instance_type=_text(record.get("instance_type")),
        region=_text(record.get("region")),
        pricing_model=pricing_model,
        accelerator=_text(record.get("accelerator")),
        accelerators_per_instance=per_instance,
        note=_text(record.get("note")),
    )


def _is_blank(record: dict[str, Any]) -> bool:
    return all(_text(value) == "" for value in record.values())


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _positive_decimal(value: Any, field: str, fail, *, required: bool) -> Decimal | None:
    text = _text(value)
    if not text:
        if required:
            fail(field, "is empty")
        return None
    if isinstance(value, bool):
        fail(field, f"'{text}' is not a number")
        return None
    try:
        # A float from a spreadsheet cell goes through str() so 32.77 stays 32.77.
        number = Decimal(text)
    except InvalidOperation:
        fail(field, f"'{text}' is not a number")
        return None
    if not number.is_finite():
        fail(field, f"'{text}' is not a number")
        return None
    if number <= 0:
        fail(field, "must be greater than zero")
        return None
    return number


def _date(value: Any, fail) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    text = _text(value)
    if not text:
        fail("as_of", "is empty")
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        fail("as_of", f"'{text}' is not a date in YYYY-MM-DD form")
        return None


def _whole_number(value: Any, fail) -> int | None:
    text = _text(value)
    if not text:
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:
        number = None
    if number is None or not number.is_finite() or number != number.to_integral_value() or number <= 0:
        fail("accelerators_per_instance", f"'{text}' is not a whole number greater than zero")
        return None
    return int(number)
