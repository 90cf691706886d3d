"""Read a FOCUS cost file (CSV or Parquet) into rows to store, or refuse it naming row and column.

``focus_file_screen`` refuses a file by its name, size and container while the upload waits;
``read_focus_file`` (on the import's worker) reads and checks every row. A file is taken whole or
not at all: every problem is collected (the first ``MAX_PROBLEMS``), and ``FileRefused`` lists
them; nothing is stored. Rows are numbered as a spreadsheet shows them (the header is row 1, the
first cost row row 2).

Each row's money is converted from its BillingCurrency into the team's reporting currency at the
rate of its ChargePeriodStart (tco.services.exchange_rates); a row whose currency has no rate on
or before that date is refused. FOCUS 1.3's ServiceProviderName is read where ProviderName is
missing.
"""
from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from datetime import datetime
from decimal import Decimal
from decimal import InvalidOperation
from pathlib import PurePath
from typing import Any

import pandas as pd

from core.file_imports import FileRefused
from core.file_imports import RowError
from core.file_imports import csv_text
from core.file_imports import refuse
from costmodel.currency import NoRate
from costmodel.currency import RateBook
from finops.focus_columns import CHARGE_CATEGORIES
from finops.focus_columns import REQUIRED

MAX_PROBLEMS = 20
MAX_ROWS = 1_000_000
MAX_FILE_BYTES = 50 * 1024 * 1024
FOCUS_FILE_SUFFIXES = (".csv", ".parquet")
PARQUET_MAGIC = b"PAR1"
# Rows checked between two progress reports of an import.
PROGRESS_EVERY = 5_000
# A row's cost, in the file's currency and converted, at most a trillion: the stored figures keep
# 14 whole digits (finops.models.COST), which a file's total of such rows must fit too.
MAX_COST = Decimal("1e12")
MAX_TOTAL = Decimal("1e14") - 1
# The stored lengths of the text columns (finops.models.ActualCost); a longer ProviderName is
# refused, the optional columns are cut to them.
PROVIDER_MAX_CHARS = 200


@dataclass(frozen=True)
class CostRow:
    """One cost row, its money in the currency the file was read into."""

    month: date
    charge_period_start: datetime
    billed: Decimal
    effective: Decimal | None
    charge_category: str
    provider: str
    service_name: str
    sku_id: str
    resource_id: str
    option: str


def focus_file_screen(name: str, content: bytes) -> None:
    """Refuse at once, before any row is read, a file whose name, size or container is wrong:
    not .csv or .parquet, over ``MAX_FILE_BYTES``, a CSV that is not text, a Parquet file
    without Parquet's magic bytes at both ends. Reading the rows is left to the import job."""
    suffix = PurePath(name).suffix.lower()
    if suffix not in FOCUS_FILE_SUFFIXES:
        refuse(f"expected a .csv or .parquet file, got '{name[:100]}'")
    if len(content) > MAX_FILE_BYTES:
        refuse(f"is {len(content):,} bytes; a FOCUS file may have at most {MAX_FILE_BYTES:,}")
    if suffix == ".csv":
        csv_text(content)
    elif not (content.startswith(PARQUET_MAGIC) and content.endswith(PARQUET_MAGIC)):
        refuse("not a readable Parquet file: it does not begin and end with PAR1, as every Parquet file does")


def read_focus_file(name: str, content: bytes, *, currency: str, rates: RateBook,
                    progress: Callable[[int], Any] = lambda rows_checked: None) -> list[CostRow]:
    """The file's cost rows in ``currency`` at ``rates``, or FileRefused naming each bad row and
    column; ``progress(rows checked)`` every ``PROGRESS_EVERY`` rows."""
    try:
        if name.lower().endswith(".parquet"):
            frame = pd.read_parquet(io.BytesIO(content)).astype("string")
        else:
            frame = pd.read_csv(io.BytesIO(content), dtype="string", keep_default_na=False)
    except Exception as exc:  # any reader's error: the file is not a table we can read
        refuse(f"not a readable CSV or Parquet table ({exc})")
    if "ProviderName" not in frame.columns and "ServiceProviderName" in frame.columns:
        frame = frame.rename(columns={"ServiceProviderName": "ProviderName"})
    missing = [column for column in REQUIRED if column not in frame.columns]
    if missing:
        raise FileRefused([RowError(None, column, "the column is missing (FOCUS requires it)")
                              for column in missing])
    if frame.empty:
        refuse("has no cost rows")
    if len(frame) > MAX_ROWS:
        refuse(f"has {len(frame):,} rows; import at most {MAX_ROWS:,} at a time")
    rows: list[CostRow] = []
    problems: list[RowError] = []
    starts = _charge_period_starts(frame["ChargePeriodStart"].fillna(""))
    for index, (record, start) in enumerate(zip(frame.fillna("").to_dict("records"), starts, strict=True),
                                            start=2):
        row, row_problems = _row(record, index, currency, rates, start)
        problems += row_problems
        if row is not None:
            rows.append(row)
        if len(problems) >= MAX_PROBLEMS:
            problems.append(RowError(None, "file", f"stopped after {MAX_PROBLEMS} problems; the rows "
                                                   "after them were not checked"))
            break
        if (index - 1) % PROGRESS_EVERY == 0:
            progress(index - 1)
    if problems:
        raise FileRefused(problems)
    total = sum((row.billed for row in rows), Decimal(0))
    if abs(total) > MAX_TOTAL:
        refuse(f"its BilledCost adds up to {total:,.2f} {currency}, more than {MAX_TOTAL:,.0f} can be "
               "stored: split the file", field="BilledCost")
    return rows


def _charge_period_starts(cells: pd.Series) -> list[Any]:
    """Each cell as a UTC timestamp, NaT where it is not a date and time. The column is parsed
    at once as ISO 8601, as FOCUS writes it; a cell in another spelling is parsed alone (one
    parse a row took 95 % of a 200,000-row file's check)."""
    starts = pd.to_datetime(cells, utc=True, errors="coerce", format="ISO8601")
    return [pd.to_datetime(cell, utc=True, errors="coerce") if pd.isna(start) and cell else start
            for cell, start in zip(cells, starts, strict=True)]


def _row(record: dict[str, Any], number: int, wanted: str,
         rates: RateBook, start: Any) -> tuple[CostRow | None, list[RowError]]:
    problems: list[RowError] = []

    def problem(column: str, why: str) -> None:
        problems.append(RowError(number, column, why))

    for column, value in record.items():
        if "\x00" in str(value):
            problem(str(column)[:100], "holds a NUL character (the file is binary or damaged)")
    if problems:
        return None, problems
    billed = _cost(record["BilledCost"], "BilledCost", problem)
    effective = (_cost(record["EffectiveCost"], "EffectiveCost", problem)
                 if record.get("EffectiveCost", "") else None)
    currency = record["BillingCurrency"].strip().upper()
    category = record["ChargeCategory"].strip()
    if category not in CHARGE_CATEGORIES:
        problem("ChargeCategory", f"'{category}' is not one of {', '.join(CHARGE_CATEGORIES)}")
    if pd.isna(start):
        problem("ChargePeriodStart", f"'{record['ChargePeriodStart']}' is not a date and time")
    provider = record["ProviderName"].strip()
    if not provider:
        problem("ProviderName", "is empty")
    elif len(provider) > PROVIDER_MAX_CHARS:
        problem("ProviderName", f"has {len(provider):,} characters; at most {PROVIDER_MAX_CHARS}")
    if problems:
        return None, problems
    moment = start.to_pydatetime()
    try:
        rate = rates.convert(Decimal(1), currency, wanted, moment.date()).factor
    except NoRate as exc:
        return None, [RowError(number, "BillingCurrency", str(exc))]
    billed, effective = billed * rate, None if effective is None else effective * rate
    for column, value in (("BilledCost", billed), ("EffectiveCost", effective)):
        if value is not None and abs(value) > MAX_COST:
            return None, [RowError(number, column, f"{value:,.2f} {wanted} at the rate of "
                                                   f"{moment.date()} is more than {MAX_COST:,.0f}")]
    return CostRow(
        month=moment.date().replace(day=1), charge_period_start=moment, billed=billed,
        effective=effective, charge_category=category,
        provider=provider, service_name=record.get("ServiceName", "")[:200],
        sku_id=record.get("SkuId", "")[:200], resource_id=record.get("ResourceId", "")[:500],
        option=record.get("x_Option", "")[:500]), []


def _cost(text: str, column: str, problem) -> Decimal | None:
    """The cell as a number within ±MAX_COST, or None after saying what is wrong."""
    try:
        value = Decimal(text.strip())
    except (InvalidOperation, AttributeError):
        value = None
    if value is None or not value.is_finite():
        problem(column, f"'{text[:40]}' is not a number")
        return None
    if abs(value) > MAX_COST:
        problem(column, f"{text[:40]} is more than {MAX_COST:,.0f}")
        return None
    return value
