"""One evaluation of a scenario, handed to everything that shows it.

    evaluation = scenario_evaluate(scenario=scenario)   # the engine runs once, sensitivity included

An ``Evaluation`` holds the engine's inputs and result, the sensitivity tornado behind the
recommendation, every input with where it came from, the catalog prices used and the warnings.
The API, the admin page, the reports and the price snapshots read it; none of them runs the
engine again.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from tco import engine
from tco.engine.figures import finite_or_none, item
from tco.engine.version import ENGINE_VERSION
from tco.models import ApiOption, RentOption, Scenario
from tco.services.engine_inputs import (
    Assumption,
    EngineCase,
    EvaluationWarning,
    PriceUsed,
    engine_case,
)
from tco.services.sizing import Sizing

# Units of engine inputs that no scenario or catalog record describes (cooling tiers and
# the facility's existing cooling come straight from the catalog tables).
CATALOG_TABLE_UNITS = {
    "max_kw_per_rack": "kW/rack",
    "existing_cooling_max_kw_per_rack": "kW/rack",
    "capex_usd_per_kw": "USD/kW",
    "opex_usd_per_kw_month": "USD/kW-month",
}

# The footprint's flags, in words a reader acts on.
FOOTPRINT_WARNINGS = {
    "system_does_not_fit_rack": "One system does not fit in a rack of the facility.",
    "exceeds_rack_power_limit": "A rack draws more than the facility's rack power limit.",
    "exceeds_cooling_table": "The power per rack is beyond every cooling technology in the "
                             "catalog.",
}


@dataclass(frozen=True)
class Evaluation:
    """Everything one evaluation of one scenario produced.

    ``assumptions`` lists every numeric engine input in declaration order with its value and
    provenance; ``prices`` the catalog price points used; ``sizing`` the scenario's sizing,
    when it has one. ``result.tornado`` is the sensitivity run the recommendation came from.
    """

    inputs: engine.Scenario
    result: engine.Result
    assumptions: tuple[Assumption, ...]
    prices: tuple[PriceUsed, ...] = ()
    sizing: Sizing | None = None
    warnings: tuple[EvaluationWarning, ...] = ()
    engine_version: str = ENGINE_VERSION

    @property
    def tornado(self) -> engine.Tornado:
        """The one-at-a-time sensitivity of the NPV saving (computed with the result)."""
        if self.result.tornado is None:
            raise ValueError("this result was evaluated without its sensitivity")
        return self.result.tornado

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: summary, monthly lines, footprint, assumptions and prices used, and the
        sizing's figures and assumptions when the scenario has one."""
        sizing = {} if self.sizing is None else {"sizing": self.sizing.to_dict()}
        return {
            "engine_version": self.engine_version,
            "result": self.result.to_dict(),
            "assumptions": [_plain(asdict(a)) for a in self.assumptions],
            "prices": [_plain(asdict(p)) for p in self.prices],
            "warnings": [asdict(w) for w in self.warnings],
            **sizing,
        }


def evaluation_of(inputs: engine.Scenario, *, recorded: Sequence[Assumption] = (),
                  prices: Sequence[PriceUsed] = (), sizing: Sizing | None = None,
                  labels: dict[str, str] | None = None,
                  warnings: Sequence[EvaluationWarning] = ()) -> Evaluation:
    """Evaluate engine inputs once (with the sensitivity behind the recommendation).

    ``recorded`` says where inputs came from; the others are catalog table figures.
    """
    result = engine.evaluate(inputs, recommend=True, labels=labels)
    return Evaluation(inputs=inputs, result=result, assumptions=every_input(inputs, recorded),
                      prices=tuple(prices), sizing=sizing, warnings=(*warnings, *footprint_warnings(result)))


def scenario_evaluate(*, scenario: Scenario, rent_options: list[RentOption] | None = None,
                      api_options: list[ApiOption] | None = None) -> Evaluation:
    """Evaluate a scenario (saved, or unsaved with its rent and per-token API options given).

    Raises ScenarioInputError naming the field to fix when it cannot be evaluated.
    """
    case = engine_case(scenario, rent_options, api_options)
    try:
        return evaluation_of(case.inputs, recorded=case.assumptions, prices=case.prices,
                             sizing=case.sizing, labels=case.labels(), warnings=case.warnings)
    except engine.InputError as exc:
        raise case.input_error(exc) from exc


def scenario_check(*, scenario: Scenario, rent_options: list[RentOption] | None = None,
                   api_options: list[ApiOption] | None = None) -> EngineCase:
    """The scenario's engine inputs, checked as the engine checks them, without evaluating.

    Raises ScenarioInputError naming the field when it could not be evaluated.
    """
    case = engine_case(scenario, rent_options, api_options)
    try:
        engine.validate(case.inputs)
    except engine.InputError as exc:
        raise case.input_error(exc) from exc
    return case


def every_input(inputs: engine.Scenario,
                recorded: Sequence[Assumption]) -> tuple[Assumption, ...]:
    """Every numeric input, in declaration order, with its recorded provenance.

    The value is the engine's own input (what was evaluated); an input nobody recorded is a
    catalog table figure (cooling tiers, the facility's existing cooling).
    """
    known = {assumption.path: assumption for assumption in recorded}
    rows = []
    for path in engine.numeric_input_paths(inputs):
        value = float(engine.get_input(inputs, path))
        origin = known.get(path) or _catalog_table_assumption(path)
        rows.append(Assumption(path, value, origin.unit, origin.origin, origin.source,
                               origin.as_of))
    return tuple(rows)


def _catalog_table_assumption(path: str) -> Assumption:
    """Where an input nobody recorded comes from: the catalog's cooling table or facility profile."""
    unit = CATALOG_TABLE_UNITS.get(path.rsplit(".", 1)[-1], "")
    if path.startswith("cooling."):
        return Assumption(path, np.nan, unit, "catalog",
                          "catalog cooling technologies (seed-003 tiers)")
    if path == "facility.existing_cooling_max_kw_per_rack":
        return Assumption(path, np.nan, unit, "catalog",
                          "catalog facility profile: its cooling technology")
    return Assumption(path, np.nan, unit, "", "not recorded")


def footprint_warnings(result: engine.Result) -> tuple[EvaluationWarning, ...]:
    """The footprint flags raised for a batch-of-one result."""
    return tuple(EvaluationWarning(code, FOOTPRINT_WARNINGS[code])
                 for code, flag in result.footprint.warnings.items()
                 if item(flag))


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    """Dates and Decimals as strings, NaN/inf as None, so the row is JSON-ready."""
    out = {}
    for key, value in row.items():
        if isinstance(value, float):
            value = finite_or_none(value)
        elif not isinstance(value, (int, float, str, type(None))):
            value = str(value)
        out[key] = value
    return out


def monthly_frame(result: engine.Result) -> pd.DataFrame:
    """One row per month: every buy line and every rent option's lines, totals and running totals."""
    columns: dict[str, Any] = {"month": result.months}
    sides = [("buy", result.buy.cash_flows)] + [(o.name, o.cash_flows) for o in result.rent]
    for label, flows in sides:
        for line, values in flows.lines_usd.items():
            columns[f"{label}: {line}"] = np.reshape(values, -1)
        columns[f"{label}: total"] = np.reshape(flows.per_month_usd, -1)
        columns[f"{label}: cumulative"] = np.reshape(flows.cumulative_usd, -1)
    return pd.DataFrame(columns)
