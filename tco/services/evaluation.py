"""One evaluation of a scenario, handed to everything that shows it.

    evaluation = scenario_evaluate(scenario=scenario)   # the engine runs once, sensitivity included

An ``Evaluation`` holds the engine's inputs and result, the sensitivity tornado behind the
recommendation, every input with where it came from, the catalog prices used and the warnings.
The API, the admin page, the reports and the price snapshots read it; none of them runs the
engine again.

An approved scenario is evaluated with the inputs pinned when it was approved
(tco/services/pinning.py); its ``today`` is the same scenario at today's catalog prices.
"""
from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import replace
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd
from django.utils import timezone

import costmodel as engine
from costmodel.after_tax import AfterTaxView
from costmodel.after_tax import after_tax_view
from costmodel.currency import Rate
from costmodel.figures import finite_or_none
from costmodel.inputs import billing_basis
from costmodel.payment import Lease
from costmodel.tax import TaxMethod
from costmodel.tax import TaxTerms
from costmodel.version import ENGINE_VERSION
from costmodel.vocabulary import money_in
from costmodel.vocabulary import usd_short
from tco.inputs import field_for
from tco.models import ApiOption
from tco.models import RentOption
from tco.models import Scenario
from tco.models import ScenarioSnapshot
from tco.services.api_token_kinds import api_at_fleet_tokens
from tco.services.engine_inputs import CATALOG_TABLE_UNITS
from tco.services.engine_inputs import Assumption
from tco.services.engine_inputs import EngineCase
from tco.services.engine_inputs import EvaluationWarning
from tco.services.engine_inputs import PriceUsed
from tco.services.engine_inputs import ScenarioInputError
from tco.services.engine_inputs import engine_case
from tco.services.pinning import approval_snapshot
from tco.services.pinning import pinned_case
from tco.services.price_books import ContractUse
from tco.services.sizing import Sizing
from tco.services.throughput_range import THROUGHPUT_PATH
from tco.services.throughput_range import RangeRow
from tco.services.throughput_range import throughput_range
from tco.services.verdict_basis import on_verdict_basis
from tco.services.verdict_basis import verdict_basis
from tco.services.warnings import evaluation_warnings

# Units of engine inputs that no scenario or catalog record describes (cooling tiers and
# the facility's existing cooling come straight from the catalog tables).


@dataclass(frozen=True)
class Pinned:
    """An approved answer's pin: when it was pinned, and the scenario at today's prices."""

    at: datetime
    today: Evaluation | None = None
    today_error: str = ""


@dataclass(frozen=True)
class Evaluation:
    """Everything one evaluation of one scenario produced.

    ``assumptions`` lists every numeric engine input in declaration order with its value and
    provenance; ``prices`` the catalog price points used; ``sizing`` the scenario's sizing,
    when it has one. ``result.tornado`` is the sensitivity run the recommendation came from.
    An approved scenario's evaluation has ``pinned``: when its inputs were pinned, and the same
    scenario at today's catalog prices.
    """

    inputs: engine.Scenario
    result: engine.Result
    assumptions: tuple[Assumption, ...]
    prices: tuple[PriceUsed, ...] = ()
    sizing: Sizing | None = None
    warnings: tuple[EvaluationWarning, ...] = ()
    engine_version: str = ENGINE_VERSION
    pinned: Pinned | None = None
    currency: str = "USD"
    rates: tuple[Rate, ...] = ()
    leases: tuple[Lease | None, Lease | None] = (None, None)
    after_tax: AfterTaxView | None = None
    contracts: tuple[ContractUse, ...] = ()
    # (low, central, high) tokens/s per accelerator and each option's figures at both ends,
    # when the throughput is the sizing's estimate (tco/services/throughput_range.py).
    throughput: tuple[tuple[float, float, float], tuple[RangeRow, ...]] | None = None

    def contract_costs(self) -> list[dict[str, Any]]:
        """Each rent option's cost at list and at contracted prices over the horizon, and what
        its unused commitment costs (list = contracted where no book applies). Only the compute
        line is priced by a book: storage, egress and up-front fees are the same in both."""
        uses = {use.option: use for use in self.contracts}
        rows = []
        for option in self.result.rent:
            contracted = float(np.sum(option.total_usd))
            use = uses.get(option.name)
            compute = float(np.sum(option.cash_flows.lines_usd.get("compute", 0.0)))
            listed = contracted if use is None or use.price == 0 else (
                contracted + compute * (use.list_price / use.price - 1.0))
            unused = 0.0 if use is None else use.unused_commitment_per_month * use.commitment_months
            rows.append({"option": option.name, "book": None if use is None else use.book,
                         "terms": None if use is None else use.terms,
                         "list_cost_usd": round(listed, 2), "contracted_cost_usd": round(contracted, 2),
                         "unused_commitment_usd": round(unused, 2)})
        return rows

    @property
    def pinned_at(self) -> datetime | None:
        return None if self.pinned is None else self.pinned.at

    @property
    def today(self) -> Evaluation | None:
        """An approved scenario at today's catalog prices (None for a draft, or when today's
        catalog cannot evaluate it: ``today_error`` says why)."""
        return None if self.pinned is None else self.pinned.today

    @property
    def today_error(self) -> str:
        return "" if self.pinned is None else self.pinned.today_error

    @property
    def differs_today(self) -> bool:
        """Whether today's catalog prices give another answer than the pinned ones (to the cent)."""
        return self.today is not None and option_figures(self.result) != option_figures(
            self.today.result)

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
        if self.throughput is not None:
            (low, central, high), rows = self.throughput
            sizing["sizing"]["throughput_range"] = {
                "tokens_per_s_per_accelerator": {"low": low, "central": central, "high": high},
                "figures": [row.to_dict() for row in rows],
                # For a Monte Carlo run (POST /api/v1/runs/): the efficiency's spread, drawn as
                # the throughput it gives.
                "monte_carlo_distribution": {"path": THROUGHPUT_PATH, "kind": "triangular",
                                             "low": low, "mode": central, "high": high}}
        pinned = {} if self.pinned_at is None else {"pinned": self.pinned_dict()}
        return {
            "engine_version": self.engine_version,
            "currency": self.currency,
            "rates": rates_dicts(self.rates),
            "result": self.result.to_dict(),
            "after_tax": None if self.after_tax is None else self.after_tax.to_dict(),
            "contracts": self.contract_costs(),
            "leases": {kind: None if lease is None else asdict(lease)
                       for kind, lease in zip(("finance", "operating"), self.leases, strict=True)},
            "assumptions": [_plain(asdict(a)) for a in self.assumptions],
            "prices": [_plain(asdict(p)) for p in self.prices],
            "warnings": [asdict(w) for w in self.warnings],
            "billing": billing_rows(self.inputs),
            "api_at_fleet_tokens": [row.to_dict(self.currency) for row
                                    in api_at_fleet_tokens(self.inputs, self.result)],
            **sizing,
            **pinned,
        }

    def pinned_dict(self) -> dict[str, Any]:
        """An approved answer's pin and, beside it, the answer at today's catalog prices."""
        today = None
        if self.today is not None:
            today = {"prices_as_of": timezone.localdate().isoformat(),
                     "differs": self.differs_today,
                     "options": option_figures(self.today.result),
                     "prices": [_plain(asdict(p)) for p in self.today.prices],
                     "rates": rates_dicts(self.today.rates)}
        return {"pinned_at": self.pinned_at.isoformat(), "options": option_figures(self.result),
                "at_todays_prices": today, "at_todays_prices_error": self.today_error}


def evaluation_of(inputs: engine.Scenario, *, recorded: Sequence[Assumption] = (),
                  prices: Sequence[PriceUsed] = (), sizing: Sizing | None = None,
                  labels: dict[str, str] | None = None,
                  warnings: Sequence[EvaluationWarning] = (), recommend: bool = True,
                  currency: str = "USD", rates: Sequence[Rate] = ()) -> Evaluation:
    """Evaluate engine inputs once (with the sensitivity behind the recommendation, unless
    ``recommend`` is False).

    ``recorded`` says where inputs came from; the others are catalog table figures.
    """
    with money_in(currency):  # the recommendation and the warnings name amounts
        result = engine.evaluate(inputs, recommend=recommend, labels=labels)
        return Evaluation(inputs=inputs, result=result, assumptions=every_input(inputs, recorded),
                          prices=tuple(prices), sizing=sizing, currency=currency, rates=tuple(rates),
                          throughput=throughput_range(inputs, result, sizing, recorded, currency),
                          # A pinned case brings the footprint warnings it was approved with.
                          warnings=evaluation_warnings(
                              inputs, result, warnings, prices,
                              sizing_mode=None if sizing is None else sizing.mode.value))


def scenario_evaluate(*, scenario: Scenario, rent_options: list[RentOption] | None = None,
                      api_options: list[ApiOption] | None = None, pinned: bool = True) -> Evaluation:
    """Evaluate a scenario (saved, or unsaved with its rent and per-token API options given).

    An approved scenario is evaluated with the inputs pinned at its approval, and at today's
    catalog prices beside (``Evaluation.today``); ``pinned=False`` evaluates it as a draft.

    Raises ScenarioInputError naming the field to fix when it cannot be evaluated.
    """
    case, snapshot = scenario_case(scenario, rent_options, api_options, pinned=pinned)
    try:
        evaluation = evaluation_of(case.inputs, recorded=case.assumptions, prices=case.prices,
                                   sizing=case.sizing, labels=case.labels(), warnings=case.warnings,
                                   currency=case.currency, rates=case.rates)
    except engine.InputError as exc:
        raise case.input_error(exc) from exc
    evaluation = replace(evaluation, leases=case.leases, contracts=case.contracts,
                         after_tax=_after_tax(scenario, evaluation, case.leases))
    evaluation = on_verdict_basis(evaluation, verdict_basis(scenario), case.labels())
    if snapshot is None:
        return evaluation
    return replace(evaluation, pinned=Pinned(snapshot.created_at,
                                             **_at_todays_prices(scenario, rent_options, api_options)))


def tax_terms(scenario: Scenario) -> TaxTerms:
    """The scenario's tax figures for the engine."""
    return TaxTerms(float(scenario.tax_rate), TaxMethod(scenario.tax_depreciation),
                    int(scenario.tax_depreciation_months), float(scenario.declining_balance_factor))


def _after_tax(scenario: Scenario, evaluation: Evaluation,
               leases: tuple[Lease | None, Lease | None]) -> AfterTaxView:
    try:
        return after_tax_view(evaluation.inputs, evaluation.result, tax_terms(scenario),
                              finance_lease_terms=leases[0], operating_lease_terms=leases[1])
    except engine.InputError as exc:
        raise ScenarioInputError(field_for(exc.path), exc.message) from exc


def _at_todays_prices(scenario: Scenario, rent_options: list[RentOption] | None,
                      api_options: list[ApiOption] | None) -> dict[str, Any]:
    """The approved scenario evaluated as a draft on today's catalog (no sensitivity run)."""
    today = copy.copy(scenario)
    today.prices_as_of = None
    today.rates_as_of = None
    try:
        case = engine_case(today, rent_options, api_options)
        try:
            return {"today": evaluation_of(case.inputs, recorded=case.assumptions, prices=case.prices,
                                           sizing=case.sizing, warnings=case.warnings,
                                           recommend=False, currency=case.currency,
                                           rates=case.rates)}
        except engine.InputError as exc:
            raise case.input_error(exc) from exc
    except ScenarioInputError as exc:
        return {"today_error": str(exc)}


def rates_dicts(rates: Sequence[Rate]) -> list[dict[str, Any]]:
    """The exchange rates an evaluation used, JSON-ready (the rate as text, exact)."""
    return [{"base": rate.base, "quote": rate.quote, "rate": str(rate.rate),
             "on": rate.on.isoformat(), "source": rate.source, "id": rate.id} for rate in rates]


def option_figures(result: engine.Result) -> list[dict[str, Any]]:
    """Per rent option of a batch-of-one result: its name, the winner, the breakeven month of
    buying (None = never) and the saving and NPV saving of buying, to the cent."""
    rows = []
    for name, figures in result.summary().items():
        breakeven = float(figures["breakeven_month"])
        rows.append({"name": name, "winner": str(figures["winner"]),
                     "breakeven_month": None if math.isnan(breakeven) else int(breakeven),
                     "saving_usd": round(float(figures["saving_usd"]), 2),
                     "npv_saving_usd": round(float(figures["npv_saving_usd"]), 2)})
    return rows


def scenario_case(scenario: Scenario, rent_options: list[RentOption] | None = None,
                  api_options: list[ApiOption] | None = None, *,
                  pinned: bool = True) -> tuple[EngineCase, ScenarioSnapshot | None]:
    """The scenario's engine inputs and, for an approved one, the snapshot of its approval whose
    inputs they are (unless ``pinned`` is False): whatever reads an approved scenario (its
    evaluation, a sweep, a Monte Carlo run, a plan) starts from the numbers that were signed."""
    case = engine_case(scenario, rent_options, api_options)
    snapshot = approval_snapshot(scenario) if pinned else None
    return (case if snapshot is None else pinned_case(case, snapshot)), snapshot


def scenario_check(*, scenario: Scenario, rent_options: list[RentOption] | None = None,
                   api_options: list[ApiOption] | None = None, pinned: bool = False) -> EngineCase:
    """The scenario's engine inputs, checked as the engine checks them, without evaluating:
    as its fields give them (what an edit would save), or with ``pinned`` an approved one's as
    pinned at its approval (what runs and plans over it start from, see `scenario_case`).

    Raises ScenarioInputError naming the field when it could not be evaluated.
    """
    case, _ = scenario_case(scenario, rent_options, api_options, pinned=pinned)
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
        rows.append(replace(known.get(path) or _catalog_table_assumption(path), value=value))
    return tuple(rows)


def _catalog_table_assumption(path: str) -> Assumption:
    """Where an input nobody recorded comes from: the facility profile's cooling."""
    unit = CATALOG_TABLE_UNITS.get(path.rsplit(".", 1)[-1], "")
    if path == "facility.existing_cooling_max_kw_per_rack":
        return Assumption(path, np.nan, unit, "catalog",
                          "catalog facility profile: its cooling technology")
    return Assumption(path, np.nan, unit, "", "not recorded")


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    """Dates and Decimals as strings, NaN/inf as None, tuples (of keys) as lists: JSON-ready."""
    out = {}
    for key, value in row.items():
        if isinstance(value, float):
            value = finite_or_none(value)
        elif isinstance(value, tuple):
            value = list(value)
        elif not isinstance(value, (int, float, str, type(None))):
            value = str(value)
        out[key] = value
    return out


def option_phrase(row: dict[str, Any]) -> str:
    """One row of ``option_figures`` in words: 'buy saves $478.7k (NPV), breakeven month 16'."""
    saving, month = row["npv_saving_usd"], row["breakeven_month"]
    breakeven = "never breaks even" if month is None else f"breakeven month {month}"
    if saving > 0:
        return f"buy saves {usd_short(saving)} (NPV), {breakeven}"
    return f"rent saves {usd_short(-saving)} (NPV), {breakeven}"


def billing_rows(inputs: engine.Scenario) -> list[dict[str, str]]:
    """How each rent option is billed: every hour held or the hours used, and why."""
    rows = []
    for option in inputs.rent:
        basis = billing_basis(option)
        why = ("reserved: every hour of its term" if option.pricing_model == "reserved"
               else "chosen for this option" if option.billing_basis and
               option.billing_basis != engine.DEFAULT_BILLING_BASIS[option.pricing_model]
               else f"the default for {str(option.pricing_model).replace('_', '-')}")
        rows.append({"name": option.name,
                     "basis": "every hour held" if basis == engine.BillingBasis.HELD else "hours used",
                     "why": why})
    return rows


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
