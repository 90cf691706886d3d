"""Scenario writes and evaluation; the API, admin, commands and tasks all call these."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from django.db import transaction

from tco import engine
from tco.engine.version import ENGINE_VERSION
from tco.inputs_from_db import EngineCase, engine_case
from tco.models import RentOption, Scenario

SCENARIO_COPY_SUFFIX = " (copy)"
# What a copy starts afresh: identity, timestamps, approval, version chain and revision.
DRAFT_RESET = {Scenario._meta.get_field(name) for name in (
    "id", "created_at", "updated_at", "status", "approved_by", "approved_at", "version",
    "previous_version", "revision")}


@dataclass(frozen=True)
class Evaluation:
    """A scenario's engine inputs (with their provenance) and the engine's result."""

    case: EngineCase
    result: engine.Result

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: summary, monthly lines, footprint, assumptions and prices used, and the
        sizing's figures and assumptions when the scenario has one."""
        sizing = {} if self.case.sizing is None else {"sizing": self.case.sizing.to_dict()}
        return {
            "engine_version": ENGINE_VERSION,
            "result": self.result.to_dict(),
            "assumptions": [_plain(asdict(a)) for a in self.case.assumptions],
            "prices": [_plain(asdict(p)) for p in self.case.prices],
            **sizing,
        }


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    """Dates and Decimals as strings, NaN/inf as None, so the row is JSON-ready."""
    out = {}
    for key, value in row.items():
        if isinstance(value, float) and not np.isfinite(value):
            value = None
        elif not isinstance(value, (int, float, str, type(None))):
            value = str(value)
        out[key] = value
    return out


def scenario_evaluate(*, scenario: Scenario,
                      rent_options: list[RentOption] | None = None) -> Evaluation:
    """Evaluate a scenario (saved, or unsaved with its rent options given)."""
    case = engine_case(scenario, rent_options)
    result = engine.evaluate(case.inputs, recommend=True, labels=case.labels())
    return Evaluation(case=case, result=result)


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


@transaction.atomic
def scenario_save(*, scenario: Scenario, rent_options: list[RentOption]) -> Scenario:
    """Validate and save a scenario with its rent options, replacing any it had."""
    scenario.full_clean()
    scenario.save()
    scenario.rent_options.all().delete()
    for option in rent_options:
        option.scenario = scenario
        option.full_clean()
        option.save()
    return scenario


def scenario_copy(scenario: Scenario, **changes: Any) -> Scenario:
    """An unsaved new draft with the scenario's inputs (version 1, revision 1), then ``changes``."""
    values = {field.attname: getattr(scenario, field.attname)
              for field in Scenario._meta.concrete_fields if field not in DRAFT_RESET}
    return Scenario(**{**values, **changes})


def rent_options_copy(options: list[RentOption]) -> list[RentOption]:
    """Unsaved copies of rent options, for another scenario."""
    return [RentOption(**{field.attname: getattr(option, field.attname)
                          for field in RentOption._meta.concrete_fields
                          if field.name not in ("id", "scenario")})
            for option in options]


@transaction.atomic
def scenario_clone(*, scenario: Scenario, owner=None) -> Scenario:
    """A draft copy of the scenario and its rent options in its team, named '<name> (copy)'."""
    copy = scenario_copy(scenario, name=f"{scenario.name}{SCENARIO_COPY_SUFFIX}",
                         owner=owner or scenario.owner)
    return scenario_save(scenario=copy, rent_options=rent_options_copy(list(scenario.rent_options.all())))
