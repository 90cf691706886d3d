"""Read a FOCUS cost file (CSV or Parquet) into rows to store, or refuse it naming row and column.

A file is taken whole or not at all: every problem is collected (the first ``MAX_PROBLEMS``), and
``FocusFileError`` lists them; nothing is stored. Rows are numbered as a spreadsheet shows them
(the header is row 1, the first cost row row 2).

Each row's money is converted from its BillingCurrency into the team's reporting currency at the
rate of its ChargePeriodStart (tco.services.exchange_rates); a row whose currency has no rate on
or before that date is refused. FOCUS 1.3's ServiceProviderName is read where ProviderName is
missing.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import date
from datetime import datetime
from decimal import Decimal
from decimal import InvalidOperation
from typing import Any

import pandas as pd

from costmodel.currency import NoRate
from costmodel.currency import RateBook
from finops.focus_columns import CHARGE_CATEGORIES
from finops.focus_columns import REQUIRED

MAX_PROBLEMS = 20
MAX_ROWS = 1_000_000
# A row's cost, in the file's currency and converted, at most a trillion: the stored figures keep
# 14 whole digits (finops.models.COST), which a file's total of such rows must fit too.
MAX_COST = Decimal("1e12")
MAX_TOTAL = Decimal("1e14") - 1
# The stored lengths of the text columns (finops.models.ActualCost); a longer ProviderName is
# refused, the optional columns are cut to them.
PROVIDER_MAX_CHARS = 200


class FocusFileError(ValueError):
    """A FOCUS file that cannot be imported; ``problems`` says where and why."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


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


def read_focus_file(name: str, content: bytes, *, currency: str, rates: RateBook) -> list[CostRow]:
    """The file's cost rows in ``currency`` at ``rates``, or FocusFileError naming each bad row and
    column."""
    try:
        if name.lower().endswith(".parquet"):
            frame = pd.read_parquet(io.BytesIO(content)).astype("string")
        else:
            frame = pd.read_csv(io.BytesIO(content), dtype="string", keep_default_na=False)
    except Exception as exc:  # any reader's error: the file is not a table we can read
        raise FocusFileError([f"the file is not a readable CSV or Parquet table ({exc})"]) from exc
    if "ProviderName" not in frame.columns and "ServiceProviderName" in frame.columns:
        frame = frame.rename(columns={"ServiceProviderName": "ProviderName"})
    missing = [column for column in REQUIRED if column not in frame.columns]
    if missing:
        raise FocusFileError([f"column {column} is missing (FOCUS requires it)" for column in missing])
    if frame.empty:
        raise FocusFileError(["the file has no cost rows"])
    if len(frame) > MAX_ROWS:
        raise FocusFileError([f"the file has {len(frame):,} rows; import at most {MAX_ROWS:,} at a time"])
    rows, problems = [], []
    for index, record in enumerate(frame.fillna("").to_dict("records"), start=2):
        row, row_problems = _row(record, index, currency, rates)
        problems += row_problems
        if row is not None:
            rows.append(row)
        if len(problems) >= MAX_PROBLEMS:
            problems.append(f"... stopped after {MAX_PROBLEMS} problems")
            break
    if problems:
        raise FocusFileError(problems)
    total = sum((row.billed for row in rows), Decimal(0))
    if abs(total) > MAX_TOTAL:
        raise FocusFileError([f"the file's BilledCost adds up to {total:,.2f} {currency}, more than "
                              f"{MAX_TOTAL:,.0f} can be stored: split the file"])
    return rows


def _row(record: dict[str, Any], number: int, wanted: str,
         rates: RateBook) -> tuple[CostRow | None, list[str]]:
    problems = []

    def problem(column: str, why: str) -> None:
        problems.append(f"row {number}, column {column}: {why}")

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
    start = pd.to_datetime(record["ChargePeriodStart"], utc=True, errors="coerce")
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
        return None, [f"row {number}, column BillingCurrency: {exc}"]
    billed, effective = billed * rate, None if effective is None else effective * rate
    for column, value in (("BilledCost", billed), ("EffectiveCost", effective)):
        if value is not None and abs(value) > MAX_COST:
            return None, [f"row {number}, column {column}: {value:,.2f} {wanted} at the rate of "
                          f"{moment.date()} is more than {MAX_COST:,.0f}"]
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
