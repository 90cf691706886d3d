"""What a report shows, as plain data: the builders turn a ``ReportContent`` into bytes.

Nothing here touches the database; ``reports.services`` fills these from a stored scenario's
``Evaluation``, and tests from one made straight from engine inputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from datetime import date
from datetime import datetime
from typing import Any

import pandas as pd

import costmodel as engine
from catalog.refresh.freshness import staleness_limit_days
from catalog.selectors import Citation
from costmodel.buy import hardware_capex_usd
from costmodel.figures import finite_or_none
from costmodel.figures import scalar
from costmodel.inputs import numeric_field_metadata
from costmodel.strategies import StrategyInputs
from costmodel.vocabulary import input_label
from costmodel.vocabulary import input_term
from costmodel.vocabulary import line_label
from tco.services.cash_flows import CashFlowTable
from tco.services.engine_inputs import Assumption
from tco.services.engine_inputs import EvaluationWarning
from tco.services.engine_inputs import PriceUsed
from tco.services.evaluation import Evaluation
from tco.services.evaluation import option_figures
from tco.services.evaluation import option_phrase
from tco.services.warnings import stale_price_warnings

MONTE_CARLO = "monte_carlo"


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
    status: str = "Draft"  # or "Approved by <who> on <when>"
    sources: tuple[Citation, ...] = ()
    stale_after_days: int = field(default_factory=staleness_limit_days)


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
class RecordedPlan:
    """The scenario's latest solved procurement plan (``costmodel.plan`` figures as stored)."""

    plan_id: int
    name: str
    result: Mapping[str, Any]
    uncertainty: Mapping[str, Any] | None
    discount_rate_per_year: float
    stale: bool = False

    @property
    def note(self) -> str:
        stale = " The scenario was saved after this plan was solved; solve it again." if self.stale else ""
        return f"Plan #{self.plan_id}, the cheapest mix by NPV of cost.{stale}"


@dataclass(frozen=True)
class SizingSummary:
    """How the accelerator count was derived: a title and (figure, value, unit) rows."""

    title: str
    rows: tuple[tuple[str, Any, str], ...]


@dataclass(frozen=True)
class ReportContent:
    """Everything a report shows for one evaluated scenario: the evaluation the service made
    (result, sensitivity, inputs with their provenance, prices used) and the recorded runs."""

    meta: ReportMeta
    evaluation: Evaluation
    sweeps: tuple[RecordedRun, ...] = ()
    monte_carlo: tuple[RecordedRun, ...] = ()
    sizing: SizingSummary | None = None
    plans: tuple[RecordedPlan, ...] = ()
    # The FOCUS projection of a stored scenario's options (the workbook's FOCUS sheet).
    focus: pd.DataFrame | None = field(default=None, compare=False)
    # Cash flows by fiscal year (tco/services/cash_flows.py), for a stored scenario.
    fiscal_years: CashFlowTable | None = None
    fiscal_quarters: CashFlowTable | None = None
    # Strategies over time as the scenario page shows them (tco/services/strategies_view.py).
    strategies: dict[str, Any] | None = field(default=None, compare=False)
    # What those strategies were costed on, for the workbook's Strategies sheet (None: not costed).
    strategy_inputs: StrategyInputs | None = field(default=None, compare=False)

    @property
    def inputs(self) -> engine.Scenario:
        return self.evaluation.inputs

    @property
    def result(self) -> engine.Result:
        return self.evaluation.result

    @property
    def tornado(self) -> engine.Tornado | None:
        """The sensitivity; None when buying is the only option (no saving to move)."""
        return self.evaluation.result.tornado

    @property
    def assumptions(self) -> tuple[Assumption, ...]:
        return self.evaluation.assumptions

    @property
    def prices(self) -> tuple[PriceUsed, ...]:
        return self.evaluation.prices

    def signing_notes(self) -> tuple[tuple[str, str], ...]:
        """What a reader must see beside the figures, as (label, text) rows: an approved
        answer's pin and, when they differ, its figures at today's prices; then the warnings
        (costs left at zero among them)."""
        evaluation = self.evaluation
        notes = []
        if evaluation.pinned_at is not None:
            notes.append(("Approved answer", "evaluated with the prices and catalog figures pinned "
                                             f"on {evaluation.pinned_at:%Y-%m-%d %H:%M} UTC"))
            if evaluation.today_error:
                notes.append(("At today's prices", f"cannot be evaluated: {evaluation.today_error}"))
            elif evaluation.differs_today:
                notes += [(f"At today's prices, against {signed['name']}",
                           f"{option_phrase(now)} (approved: {option_phrase(signed)})")
                          for signed, now in zip(option_figures(evaluation.result),
                                                 option_figures(evaluation.today.result), strict=True)]
        # Prices are aged on the day the report was made, by the same rule as the evaluation's.
        notes += [(warning.label, warning.message) for warning in evaluation.warnings
                  if warning.code != "stale_price"]
        notes += [(warning.label, warning.message) for warning in self.stale_prices()]
        return tuple(notes)

    def stale_prices(self) -> tuple[EvaluationWarning, ...]:
        """A warning for every price older than the staleness limit when the report was made."""
        return stale_price_warnings(self.prices, today=self.meta.generated_at.date(),
                                    stale_after_days=self.meta.stale_after_days)


def key_figures(result: engine.Result) -> dict[str, Any]:
    """The figures a reader checks first, rounded to the cent; None where there is none.

    Stored on each export so that a regenerated report can be compared with the first.
    """

    def plain(value: Any, digits: int) -> float | None:
        number = finite_or_none(scalar(value))
        return None if number is None else round(number, digits)

    def money(value: Any) -> float | None:
        return plain(value, 2)

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


def top_movers(tornado: engine.Tornado | None, count: int = 3) -> Sequence[engine.SensitivityRow]:
    """The inputs whose +/- step moves the NPV saving most by their continuous effect (those
    that move it at all; a move only through a whole count is not one)."""
    return [] if tornado is None else [row for row in tornado.rows[:count] if row.effect_usd > 0]


CAPEX_LABELS = {
    "systems": "Systems",
    "network": "Network: fabric switches, NICs, cables",
    "storage": "Storage",
    "racks_install": "Racks, PDUs and installation",
    "spares": "Spares",
    "cooling_plant": "Cooling plant (where the facility's cooling is not enough)",
    "facility_buildout": "Facility build-out (owned space)",
}
# Capex lines that are a share of the hardware capex, by line, with the input giving the share
# (declared ``numeric(capex_line=...)``: an import duty).
HARDWARE_SHARE_LINES = {meta["capex_line"]: name for name, meta in
                        numeric_field_metadata(engine.BuyOption).items() if meta["capex_line"]}


def capex_label(line: str) -> str:
    """Words for a capex line: 'Systems', 'Import duty and VAT'."""
    return CAPEX_LABELS.get(line) or line_label(f"capex_{line}")


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
        **{line: (getattr(buy, name), input_term(f"buy.{name}").unit,
                  scalar(hardware_capex_usd(result.buy.capex_usd)))
           for line, name in HARDWARE_SHARE_LINES.items()},
    }
    lines = []
    for line, amount in result.buy.capex_usd.items():
        if line not in basis:
            raise KeyError(f"the engine has a capex line {line!r} that the report does not describe")
        quantity, unit, unit_price = basis[line]
        lines.append(
            BomLine(line, capex_label(line), float(quantity), unit, float(unit_price), scalar(amount))
        )
    return tuple(lines)


def describe_path(path: str, inputs: engine.Scenario) -> str:
    """An input's label, naming the rent option, per-token API or cooling tier it belongs to.

    Examples
    --------
    ``rent.2.price_usd_per_instance_hour`` -> ``Instance price, AWS p5.48xlarge (...), spot``
    """
    return input_label(path, rent_names=[option.name for option in inputs.rent],
                       cooling_names=[tier.name for tier in inputs.cooling],
                       api_names=[option.name for option in inputs.api])
