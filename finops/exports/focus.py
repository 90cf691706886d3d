"""Projected monthly costs as FinOps FOCUS 1.2 cost and usage rows (CSV and Parquet).

One row per option (buying, each rent option, each per-token API; or each source of a plan),
cost line and calendar month, for every month whose amount is not zero. A month's BilledCost
summed over an option's rows is that option's cash flow of the month (to the micro-dollar), so a
budgeting tool that totals a FOCUS file gets the figures the scenario shows.

How our cost lines map to FOCUS (FOCUS 1.2 columns; our own columns start with ``x_``):

* capex and loan payments are Purchase rows with EffectiveCost 0, and the purchase is spread
  over usage by Usage rows with BilledCost 0 and EffectiveCost = straight-line depreciation
  (FOCUS "amortization"), ``x_CostLine`` "depreciation";
* energy, space, support, staff and licences are Usage rows, billed as they are paid;
* the resale value at the horizon is a Credit (a negative BilledCost);
* renting on demand is PricingCategory Standard, spot Dynamic, reserved Committed with its
  commitment columns; a reserved term's up-front fee is a Purchase row.

Month 0 of a projection (the up-front payments) is the calendar month ``start``; month m is m
months later. ``x_IsProjection`` is true on every row; ``x_Percentile`` is empty (the rows are the
deterministic projection, not a Monte Carlo band).
"""
from __future__ import annotations

import io
import json
from collections.abc import Iterable
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from datetime import UTC
from datetime import date
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd

from core.csv_cells import inert_frame
from costmodel.vocabulary import line_label
from finops.exports.pricing_terms import CostTerms
from finops.exports.pricing_terms import cost_columns
from finops.focus_columns import COLUMNS
from finops.focus_columns import DECIMAL_COLUMNS
from finops.focus_columns import FOCUS_COLUMNS

OWNED_PROVIDER = "On-premises"


@dataclass(frozen=True)
class Line:
    """How one of our cost lines reads in FOCUS."""

    category: str  # ChargeCategory
    frequency: str  # ChargeFrequency
    service_category: str
    service_name: str
    unit: str = "Months"  # PricingUnit when no quantity is known: one month of the line
    terms: CostTerms = CostTerms()
    financing: str | None = None


PURCHASE = CostTerms(amortised=True)
LINES = {
    "capex_systems": Line("Purchase", "One-Time", "Compute", "GPU servers", "Units", PURCHASE),
    "capex_network": Line("Purchase", "One-Time", "Networking", "Network equipment", "Units", PURCHASE),
    "capex_storage": Line("Purchase", "One-Time", "Storage", "Storage equipment", "Units", PURCHASE),
    "capex_racks_install": Line("Purchase", "One-Time", "Compute", "Racks and installation", "Units",
                                PURCHASE),
    "capex_spares": Line("Purchase", "One-Time", "Compute", "Spares", "Units", PURCHASE),
    "capex_cooling_plant": Line("Purchase", "One-Time", "Other", "Cooling plant", "Units", PURCHASE),
    "capex_facility_buildout": Line("Purchase", "One-Time", "Other", "Facility build-out", "Units",
                                    PURCHASE),
    "capex": Line("Purchase", "One-Time", "Compute", "GPU servers and their equipment", "Units", PURCHASE),
    "loan_payments": Line("Purchase", "Recurring", "Compute", "Loan payments for the purchase",
                          terms=PURCHASE, financing="loan"),
    "depreciation": Line("Usage", "Usage-Based", "Compute", "Owned GPU servers (depreciation)",
                         "GPU-Hours"),
    "energy": Line("Usage", "Usage-Based", "Compute", "Electricity", "kWh"),
    "colocation": Line("Usage", "Recurring", "Compute", "Colocation space and power"),
    "owned_facility": Line("Usage", "Recurring", "Compute", "Owned facility operation"),
    "facility": Line("Usage", "Recurring", "Compute", "Facility space and cooling"),
    "cooling_plant_opex": Line("Usage", "Recurring", "Compute", "Cooling plant operation"),
    "support": Line("Usage", "Recurring", "Compute", "Hardware support"),
    "staff": Line("Usage", "Recurring", "Management and Governance", "Operations staff"),
    "licences": Line("Usage", "Recurring", "Compute", "Software licences"),
    "residual_value": Line("Credit", "One-Time", "Compute", "Resale of the systems", "Units"),
    "carbon": Line("Usage", "Usage-Based", "Other", "Carbon price"),
    "compute": Line("Usage", "Usage-Based", "Compute", "GPU instances", "Hours"),
    "on_demand": Line("Usage", "Usage-Based", "Compute", "GPU instances, on demand", "Hours"),
    "spot": Line("Usage", "Usage-Based", "Compute", "GPU instances, spot", "Hours"),
    "reserved": Line("Usage", "Recurring", "Compute", "GPU instances, reserved", "Hours"),
    "upfront": Line("Purchase", "One-Time", "Compute", "Reserved term, up-front fee", "Units", PURCHASE),
    "egress": Line("Usage", "Usage-Based", "Networking", "Data egress"),
    "storage": Line("Usage", "Recurring", "Storage", "Cloud storage"),
    "data": Line("Usage", "Usage-Based", "Networking", "Data egress and storage"),
    "tokens": Line("Usage", "Usage-Based", "AI and Machine Learning", "Model API", "1000000 Tokens"),
}


def focus_line(name: str) -> Line:
    """How our line ``name`` reads in FOCUS; a capex line with no entry of its own (a share of
    the hardware capex an input adds, such as import duty) is a purchase named by its words."""
    if name in LINES or not name.startswith("capex_"):
        return LINES[name]
    return Line("Purchase", "One-Time", "Compute", line_label(name), "Units", PURCHASE)


PRICING_CATEGORIES = {"owned": "Standard", "on_demand": "Standard", "spot": "Dynamic",
                      "reserved": "Committed", "api": "Standard"}


@dataclass(frozen=True)
class Billing:
    """Who is billed and for what: the team, the scenario (and plan) and month 0's calendar month."""

    team_slug: str
    team_name: str
    scenario_id: int
    scenario_name: str
    scenario_version: int
    start: date
    plan_id: int | None = None
    price_snapshot_id: int | None = None
    currency: str = "USD"  # the scenario's reporting currency, in which the engine computed


@dataclass(frozen=True)
class Source:
    """One option of a projection: who provides it and how it is priced."""

    option: str  # x_Option: "Buy", a rent option's or an API's name, a plan source
    kind: str  # owned | on_demand | spot | reserved | api
    provider: str
    region_id: str | None = None
    sku_id: str | None = None
    sku_price_id: str | None = None
    resource_type: str = "GPU server"
    gpu_count: int | None = None
    useful_life_months: int | None = None

    @property
    def pricing_category(self) -> str:
        return PRICING_CATEGORIES[self.kind]


@dataclass(frozen=True)
class CostSeries:
    """One cost line of one option over months 0..n [USD], with its quantity per month if known."""

    source: Source
    line: str
    usd: np.ndarray
    quantity: np.ndarray | None = None
    effective_only: bool = False  # an amortisation row: EffectiveCost carries it, BilledCost is 0
    extra: dict[str, Any] = field(default_factory=dict)


def month_start(start: date, month: int) -> datetime:
    """The first instant (UTC) of the calendar month ``month`` months after ``start``'s."""
    index = start.year * 12 + start.month - 1 + month
    return datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC)


def focus_rows(billing: Billing, series: Iterable[CostSeries]) -> Iterator[dict[str, Any]]:
    """FOCUS rows of cost series: one per series and month with a non-zero amount."""
    for one in series:
        line = focus_line(one.line)
        for month in np.flatnonzero(np.round(one.usd, 6)):
            yield _row(billing, one, line, int(month))


def _row(billing: Billing, one: CostSeries, line: Line, month: int) -> dict[str, Any]:
    source = one.source
    amount = float(one.usd[month])
    quantity = float(one.quantity[month]) if one.quantity is not None else 1.0
    costs = cost_columns(0.0 if one.effective_only else amount, quantity, billing.currency, line.terms)
    if one.effective_only:
        costs |= {"EffectiveCost": round(amount, 6), "PricingCurrencyEffectiveCost": round(amount, 6)}
    begin, end = month_start(billing.start, month), month_start(billing.start, month + 1)
    resource = f"scenario-{billing.scenario_id}/{source.option}"
    committed = source.kind == "reserved" and line.category == "Usage"
    word = one.line.replace("_", "-")  # "capex-systems": read as words, not as an identifier
    return {
        **dict.fromkeys(COLUMNS),
        **costs,
        "BillingAccountId": billing.team_slug,
        "BillingAccountName": billing.team_name,
        "BillingAccountType": "Team",
        "BillingPeriodStart": begin, "BillingPeriodEnd": end,
        "ChargePeriodStart": begin, "ChargePeriodEnd": end,
        "ChargeCategory": "Usage" if one.effective_only else line.category,
        "ChargeDescription": f"{line.service_name}: {source.option}, month {month} (projected)",
        "ChargeFrequency": "Usage-Based" if one.effective_only else line.frequency,
        "CommitmentDiscountCategory": "Usage" if committed else None,
        "CommitmentDiscountId": resource if committed else None,
        "CommitmentDiscountName": source.option if committed else None,
        "CommitmentDiscountQuantity": quantity if committed else None,
        "CommitmentDiscountStatus": "Used" if committed else None,
        "CommitmentDiscountType": "Reserved Instance" if committed else None,
        "CommitmentDiscountUnit": line.unit if committed else None,
        "ConsumedQuantity": quantity if line.category == "Usage" or one.effective_only else None,
        "ConsumedUnit": line.unit if line.category == "Usage" or one.effective_only else None,
        "InvoiceIssuerName": source.provider,
        "PricingCategory": source.pricing_category if line.category in ("Usage", "Purchase") else None,
        "PricingQuantity": quantity,
        "PricingUnit": line.unit,
        "ProviderName": source.provider,
        "PublisherName": source.provider,
        "RegionId": source.region_id,
        "RegionName": source.region_id,
        "ResourceId": resource,
        "ResourceName": source.option,
        "ResourceType": source.resource_type,
        "ServiceCategory": line.service_category,
        "ServiceName": line.service_name,
        "SkuId": source.sku_id or word,
        # A price point of the catalog, else the scenario's own price of the line.
        "SkuPriceId": source.sku_price_id or f"{resource}/{word}",
        "SkuPriceDetails": json.dumps({"GpuCount": source.gpu_count}) if source.gpu_count else None,
        "SubAccountId": f"scenario-{billing.scenario_id}",
        "SubAccountName": billing.scenario_name,
        "SubAccountType": "Scenario",
        "Tags": json.dumps({"x_Projection": "true"}),
        "x_ScenarioId": billing.scenario_id,
        "x_ScenarioVersion": billing.scenario_version,
        "x_PlanId": billing.plan_id,
        "x_PriceSnapshotId": billing.price_snapshot_id,
        "x_IsProjection": True,
        "x_Option": source.option,
        "x_CostLine": word,
        "x_Month": month,
        "x_FinancingType": line.financing,
        "x_DepreciationMethod": "straight-line" if one.line == "depreciation" else None,
        "x_UsefulLifeMonths": source.useful_life_months if one.line == "depreciation" else None,
        **one.extra,
    }


def focus_frame(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """The rows as a table with every FOCUS 1.2 column and ours, typed for CSV and Parquet."""
    frame = pd.DataFrame(list(rows), columns=list(COLUMNS))
    for column in DECIMAL_COLUMNS:
        frame[column] = pd.to_numeric(frame[column]).astype("float64")
    for column in ("x_ScenarioId", "x_ScenarioVersion", "x_PlanId", "x_PriceSnapshotId", "x_Month",
                   "x_UsefulLifeMonths"):
        frame[column] = frame[column].astype("Int64")
    frame["x_IsProjection"] = frame["x_IsProjection"].astype("boolean")
    text = [c for c in FOCUS_COLUMNS + ("x_Option", "x_CostLine", "x_FinancingType", "x_DepreciationMethod",
                                        "x_Percentile")
            if c not in DECIMAL_COLUMNS and not c.endswith(("PeriodStart", "PeriodEnd"))]
    frame[text] = frame[text].astype("string")
    return frame


def focus_csv(frame: pd.DataFrame) -> bytes:
    """The table as CSV: dates in ISO 8601 UTC ('2027-01-01T00:00:00Z'), empty cells for nulls,
    text a spreadsheet would run as a formula (a name '=HYPERLINK(...)') made inert."""
    return inert_frame(frame).to_csv(index=False, date_format="%Y-%m-%dT%H:%M:%SZ").encode()


def focus_parquet(frame: pd.DataFrame) -> bytes:
    """The table as Parquet (pyarrow), timestamps in UTC."""
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False, engine="pyarrow")
    return buffer.getvalue()


def monthly_billed_usd(frame: pd.DataFrame) -> pd.DataFrame:
    """BilledCost summed by option and month (x_Option x x_Month), the check against cash flows."""
    return frame.groupby(["x_Option", "x_Month"])["BilledCost"].sum().unstack(fill_value=0.0)
