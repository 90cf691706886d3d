"""What a report shows, as plain data: the builders turn a ``ReportContent`` into bytes.

Nothing here touches the database; ``reports.services`` fills these from a stored scenario,
and tests fill them straight from engine inputs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd

from tco import engine

MONTE_CARLO = "monte_carlo"

# Units of engine inputs that no scenario or catalog record describes (cooling tiers and
# the facility's existing cooling come straight from the catalog tables).
FALLBACK_UNITS = {
    "max_kw_per_rack": "kW/rack",
    "existing_cooling_max_kw_per_rack": "kW/rack",
    "capex_usd_per_kw": "USD/kW",
    "opex_usd_per_kw_month": "USD/kW-month",
}


@dataclass(frozen=True)
class ReportMeta:
    """Who asked for the report, about which scenario version, and when."""

    scenario_name: str
    author: str
    generated_at: datetime
    prices_as_of: date
    engine_version: str
    paper_size: str = "a4"
    scenario_id: int | None = None
    scenario_description: str = ""
    scenario_updated_at: datetime | None = None
    report_id: int | None = None
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Provenance:
    """Where an input's value came from: origin (scenario or catalog), source and as-of date."""

    unit: str
    origin: str
    source: str
    as_of: date | None = None


@dataclass(frozen=True)
class AssumptionRow:
    """One numeric engine input with its value and provenance, as the Assumptions sheet lists it."""

    path: str
    value: float
    unit: str
    origin: str
    source: str
    as_of: date | None


@dataclass(frozen=True)
class PriceRow:
    """One price point of the snapshot the evaluation used."""

    price_point_id: int
    target: str
    amount: float
    currency: str
    as_of: date
    source: str


@dataclass(frozen=True)
class RecordedRun:
    """A finished sweep or Monte Carlo run of the scenario, as ``tco.runs`` stored it.

    ``summary`` is the run's stored summary (``tco.runs.summaries``: per rent option figures,
    heat map or histogram); ``points`` holds every point of a sweep small enough to list.
    ``stale`` says the scenario was saved again after the run started.
    """

    run_id: int
    kind: str
    summary: Mapping[str, Any]
    finished_at: datetime | None = None
    stale: bool = False
    points: pd.DataFrame | None = None

    @property
    def title(self) -> str:
        kind = "Monte Carlo" if self.kind == MONTE_CARLO else "Sweep"
        return f"{kind} run #{self.run_id}"


@dataclass(frozen=True)
class SizingSummary:
    """How the accelerator count was derived: a title and (figure, value, unit) rows."""

    title: str
    rows: tuple[tuple[str, Any, str], ...]


@dataclass(frozen=True)
class ReportContent:
    """Everything a report shows for one evaluated scenario."""

    meta: ReportMeta
    inputs: engine.Scenario
    result: engine.Result
    tornado: engine.Tornado
    assumptions: tuple[AssumptionRow, ...]
    prices: tuple[PriceRow, ...] = ()
    sweeps: tuple[RecordedRun, ...] = ()
    monte_carlo: tuple[RecordedRun, ...] = ()
    sizing: SizingSummary | None = None


def assumption_rows(
    inputs: engine.Scenario, provenance: Mapping[str, Provenance]
) -> tuple[AssumptionRow, ...]:
    """Every numeric input of the scenario, in declaration order, with its provenance.

    The value is the engine's own input (what was evaluated); an input with no recorded
    provenance is a catalog table figure (cooling tiers, existing cooling).
    """
    rows = []
    for path in engine.numeric_input_paths(inputs):
        value = float(engine.get_input(inputs, path))
        known = provenance.get(path) or _catalog_table_provenance(path)
        rows.append(AssumptionRow(path, value, known.unit, known.origin, known.source, known.as_of))
    return tuple(rows)


def _catalog_table_provenance(path: str) -> Provenance:
    """Where an input nobody recorded comes from: the catalog's cooling table or facility profile."""
    unit = FALLBACK_UNITS.get(path.rsplit(".", 1)[-1], "")
    if path.startswith("cooling."):
        return Provenance(unit, "catalog", "catalog cooling technologies (seed-003 tiers)")
    if path == "facility.existing_cooling_max_kw_per_rack":
        return Provenance(unit, "catalog", "catalog facility profile: its cooling technology")
    return Provenance(unit, "", "not recorded")


def scalar(value: Any) -> float:
    """The one value of a batch-of-one engine figure, as a float (NaN kept)."""
    return float(np.reshape(value, -1)[0])


def key_figures(result: engine.Result) -> dict[str, Any]:
    """The figures a reader checks first, rounded to the cent; None where there is none.

    Stored on each export so that a regenerated report can be compared with the first.
    """

    def money(value: Any) -> float | None:
        number = scalar(value)
        return round(number, 2) if math.isfinite(number) else None

    def plain(value: Any, digits: int) -> float | None:
        number = scalar(value)
        return round(number, digits) if math.isfinite(number) else None

    return {
        "buy": {
            "total_usd": money(result.buy.total_usd),
            "npv_usd": money(result.buy.npv_usd),
            "total_capex_usd": money(result.buy.total_capex_usd),
            "cost_per_useful_accelerator_hour_usd": plain(result.buy.cost_per_useful_accelerator_hour_usd, 4),
        },
        "rent": [
            {
                "name": option.name,
                "total_usd": money(option.total_usd),
                "npv_usd": money(option.npv_usd),
                "saving_usd": money(option.saving_usd),
                "npv_saving_usd": money(option.npv_saving_usd),
                "breakeven_month": plain(option.breakeven_month, 0),
                "cost_per_useful_accelerator_hour_usd": plain(option.cost_per_useful_accelerator_hour_usd, 4),
            }
            for option in result.rent
        ],
        "recommendation": result.recommendation,
    }


def top_movers(tornado: engine.Tornado, count: int = 3) -> Sequence[engine.SensitivityRow]:
    """The inputs whose +/- step moves the NPV saving most (those that move it at all)."""
    return [row for row in tornado.rows[:count] if row.swing_usd > 0]


def report_content(
    *,
    inputs: engine.Scenario,
    result: engine.Result,
    meta: ReportMeta,
    provenance: Mapping[str, Provenance],
    prices: tuple[PriceRow, ...] = (),
    sweeps: tuple[RecordedRun, ...] = (),
    monte_carlo: tuple[RecordedRun, ...] = (),
    sizing: SizingSummary | None = None,
) -> ReportContent:
    """Assemble a report's content from an evaluated scenario, adding its sensitivity ranking."""
    return ReportContent(
        meta=meta,
        inputs=inputs,
        result=result,
        tornado=engine.one_at_a_time(inputs, base=result),
        assumptions=assumption_rows(inputs, provenance),
        prices=prices,
        sweeps=sweeps,
        monte_carlo=monte_carlo,
        sizing=sizing,
    )


CAPEX_LABELS = {
    "systems": "Systems",
    "network": "Network: fabric switches, NICs, cables",
    "storage": "Storage",
    "racks_install": "Racks, PDUs and installation",
    "spares": "Spares",
    "cooling_plant": "Cooling plant (where the facility's cooling is not enough)",
    "facility_buildout": "Facility build-out (owned space)",
}


@dataclass(frozen=True)
class BomLine:
    """One capex line: quantity x unit price = amount (the engine's figure) [USD]."""

    line: str
    label: str
    quantity: float
    unit: str
    unit_price_usd: float
    amount_usd: float


def bill_of_materials(inputs: engine.Scenario, result: engine.Result) -> tuple[BomLine, ...]:
    """The engine's capex lines with the quantities and unit prices behind them."""
    buy, footprint = inputs.buy, result.footprint
    systems = scalar(footprint.systems)
    it_kw_max = scalar(footprint.it_kw_max)
    systems_capex = scalar(result.buy.capex_usd["systems"])
    basis = {
        "systems": (systems, "systems", buy.system_price_usd),
        "network": (
            systems,
            "systems",
            buy.network_usd_per_system + buy.network_share_of_compute * buy.system_price_usd,
        ),
        "storage": (1.0, "lot", buy.storage_usd),
        "racks_install": (scalar(footprint.racks), "racks", buy.racks_install_usd_per_rack),
        "spares": (buy.spares_share, "share of systems capex", systems_capex),
        "cooling_plant": (it_kw_max, "kW of IT", scalar(footprint.cooling_capex_usd_per_kw)),
        "facility_buildout": (it_kw_max, "kW of IT", inputs.facility.owned_buildout_usd_per_kw),
    }
    lines = []
    for line, amount in result.buy.capex_usd.items():
        if line not in basis:
            raise KeyError(f"the engine has a capex line {line!r} that the report does not describe")
        quantity, unit, unit_price = basis[line]
        lines.append(
            BomLine(line, CAPEX_LABELS[line], float(quantity), unit, float(unit_price), scalar(amount))
        )
    return tuple(lines)


def describe_path(path: str, inputs: engine.Scenario) -> str:
    """An input path with the rent option or cooling tier it belongs to named.

    Examples
    --------
    ``rent.2.price_usd_per_instance_hour`` -> ``rent.2.price_usd_per_instance_hour (spot)``
    """
    parts = path.split(".")
    if len(parts) == 3 and parts[0] in {"rent", "cooling"}:
        items = inputs.rent if parts[0] == "rent" else inputs.cooling
        return f"{path} ({items[int(parts[1])].name})"
    return path
