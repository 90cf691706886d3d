"""One verdict over every option a scenario gives: buying, each rent option, each per-token API.

The cheapest option is the one with the lowest NPV of costs; beside it stand its cash total,
its margin over the next cheapest (NPV) and, where buying is one of the pair, the month buying
breaks even. That breakeven is the discounted one, the same discounting as the NPVs: the first
month from which buying's running discounted cost stays at or below the other option's until
the horizon, so a verdict "buy" always has one and a verdict against buying never does.

The verdict has a basis: before tax (the engine's own figures), or after tax (``on_basis``: the
same options ranked on their after-tax costs, costmodel/after_tax.py). Every figure it quotes,
the breakeven included, is on that basis, and its sentence says which.

An option that cannot be costed for the workload (a per-token API whose rate limit is below the
workload's tokens, a cost that is not a number) is not ranked: it is listed in ``left_out`` with
the reason, and the sentence says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from costmodel.figures import item
from costmodel.finance import discount_factors
from costmodel.finance import npv_usd
from costmodel.inputs import Scenario
from costmodel.result import CashFlows
from costmodel.result import Result
from costmodel.vocabulary import money_currency
from costmodel.vocabulary import money_in
from costmodel.vocabulary import usd_short

BUY, RENT, API = "buy", "rent", "api"
PRE_TAX, AFTER_TAX = "pre_tax", "after_tax"
BASIS_WORDS = {PRE_TAX: "before tax", AFTER_TAX: "after tax"}
# A running saving this close to zero, relative to the money that flowed, counts as even.
_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Standing:
    """One option's place in the verdict: its NPV and cash total of costs [reporting currency],
    the month buying breaks even against it (discounted; NaN = never; NaN for buying itself),
    and what a unit of work costs with it: an accelerator-hour of useful work (NaN for a
    per-token API, which sells no hours) and a million tokens (NaN without a token rate)."""

    kind: str
    name: str
    npv_usd: float
    total_usd: float
    breakeven_month: float = math.nan
    cost_per_accelerator_hour: float = math.nan
    cost_per_million_tokens: float = math.nan

    @property
    def label(self) -> str:
        """'Buy', 'Rent AWS p5.48xlarge ...', 'Pay per token: Example API large model'."""
        return {BUY: "Buy", RENT: f"Rent {self.name}", API: f"Pay per token: {self.name}"}[self.kind]

    @property
    def phrase(self) -> str:
        """The option inside a sentence: 'buying', 'renting X', 'paying X per token'."""
        return {BUY: "buying", RENT: f"renting {self.name}", API: f"paying {self.name} per token"}[self.kind]

    def to_dict(self) -> dict[str, Any]:
        month = None if math.isnan(self.breakeven_month) else int(self.breakeven_month)
        return {"kind": self.kind, "name": self.name, "label": self.label,
                "npv_usd": round(self.npv_usd, 2), "total_usd": round(self.total_usd, 2),
                "breakeven_month": month,
                "cost_per_accelerator_hour": _rounded(self.cost_per_accelerator_hour, 4),
                "cost_per_million_tokens": _rounded(self.cost_per_million_tokens, 4)}


def _rounded(value: float, digits: int) -> float | None:
    return None if not math.isfinite(value) else round(value, digits)


@dataclass(frozen=True)
class LeftOut:
    """An option the verdict could not rank, and why."""

    kind: str
    name: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "name": self.name, "reason": self.reason}


@dataclass(frozen=True)
class Verdict:
    """Every option ranked by NPV of costs (cheapest first), and those left out; its money is in
    ``currency``, the reporting currency it was evaluated in (``money_in``)."""

    horizon_months: int
    ranked: tuple[Standing, ...]
    left_out: tuple[LeftOut, ...] = ()
    currency: str = "USD"
    basis: str = PRE_TAX

    @property
    def basis_words(self) -> str:
        """'before tax' or 'after tax': what every figure of the verdict is."""
        return BASIS_WORDS[self.basis]

    @property
    def cheapest(self) -> Standing:
        return self.ranked[0]

    @property
    def runner_up(self) -> Standing | None:
        return self.ranked[1] if len(self.ranked) > 1 else None

    @property
    def margin_usd(self) -> float | None:
        """How much less the cheapest costs than the next cheapest (NPV) [USD]; None alone."""
        return None if self.runner_up is None else self.runner_up.npv_usd - self.cheapest.npv_usd

    def margin_over_winner(self, option: Standing) -> float:
        """How much more ``option`` costs than the cheapest (NPV; 0 for the cheapest itself)."""
        return option.npv_usd - self.cheapest.npv_usd

    @property
    def buy(self) -> Standing:
        return next(option for option in self.ranked if option.kind == BUY)

    @property
    def rival(self) -> Standing | None:
        """The option buying is measured against: the cheapest other one (None: buying alone)."""
        return next((option for option in self.ranked if option.kind != BUY), None)

    @property
    def breakeven_month(self) -> float:
        """Buying's discounted breakeven against its rival [month]; NaN = never or no rival."""
        return math.nan if self.rival is None else self.rival.breakeven_month

    def sentence(self) -> str:
        """The verdict in one sentence, the same wherever it is shown.

        Examples
        --------
        "Pay per token: Example API large model is the cheapest over 36 months: NPV of costs
        before tax $559.3k (cash $600.0k), $114.4k less than renting X (NPV); buying costs $290.4k more
        and never breaks even against it (discounted)."
        """
        with money_in(self.currency):
            return self._sentence()

    def _sentence(self) -> str:
        cheapest, horizon = self.cheapest, self.horizon_months
        costs = (f"NPV of costs {self.basis_words} {usd_short(cheapest.npv_usd)} "
                 f"(cash {usd_short(cheapest.total_usd)})")
        if self.runner_up is None:
            text = f"{cheapest.label} is the only option given: over {horizon} months, {costs}"
        else:
            margin = self.margin_over_winner(self.runner_up)  # margin_usd, the runner-up being there
            text = (f"{cheapest.label} is the cheapest over {horizon} months: {costs}, "
                    f"{usd_short(margin)} less than {self.runner_up.phrase} (NPV)")
            text += self._buying_clause()
        if self.left_out:
            text += "; left out: " + "; ".join(f"{o.name} ({o.reason})" for o in self.left_out)
        return text + "."

    def _buying_clause(self) -> str:
        month = self.breakeven_month
        if self.cheapest.kind == BUY:
            return f"; buying breaks even in month {int(month)} (discounted)" if not math.isnan(month) else ""
        never = ("breaks even in month " + str(int(month)) if not math.isnan(month)
                 else "never breaks even against it")
        if self.runner_up is not None and self.runner_up.kind == BUY:
            return f"; buying {never} (discounted)"
        more = self.buy.npv_usd - self.cheapest.npv_usd
        return f"; buying costs {usd_short(more)} more and {never} (discounted)"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the cheapest, the margin, buying's breakeven, every option and those left out."""
        month = self.breakeven_month
        return {
            "currency": self.currency,
            "basis": self.basis,
            "cheapest": self.cheapest.to_dict(),
            "runner_up": None if self.runner_up is None else self.runner_up.to_dict(),
            "margin_usd": None if self.margin_usd is None else round(self.margin_usd, 2),
            "breakeven_month": None if math.isnan(month) else int(month),
            "horizon_months": self.horizon_months,
            "sentence": self.sentence(),
            "options": [{**option.to_dict(), "margin_over_winner": round(self.margin_over_winner(option), 2)}
                        for option in self.ranked],
            "left_out": [option.to_dict() for option in self.left_out],
        }


def verdict_of(result: Result, inputs: Scenario) -> Verdict:
    """The verdict of a single scenario's result (evaluated with detail for breakevens)."""
    horizon = int(item(result.horizon_months))
    buy_flows = result.buy.cash_flows
    # Breakevens need the monthly flows of an evaluation with detail; without them there are none.
    factors = None if buy_flows.per_month_usd is None else discount_factors(
        float(item(inputs.finance.discount_rate_per_year)), int(result.months[-1]))

    def standing(kind: str, option: Any, flows: CashFlows | None, name: str | None = None) -> Standing:
        month = (math.nan if flows is None or factors is None
                 else discounted_breakeven_month(buy_flows, flows, factors))
        per_hour = getattr(option, "cost_per_useful_accelerator_hour_usd", math.nan)
        return Standing(kind, name or option.name, float(item(option.npv_usd)), float(item(option.total_usd)),
                        month, float(item(per_hour)), float(item(option.cost_per_million_tokens_usd)))

    options = [standing(BUY, result.buy, None, name="Buy")]
    left_out = []
    for rent_option in result.rent:
        options.append(standing(RENT, rent_option, rent_option.cash_flows))
    for api_option in result.api:
        reason = _api_left_out(result, api_option)
        if reason:
            left_out.append(LeftOut(API, api_option.name, reason))
        else:
            options.append(standing(API, api_option, api_option.cash_flows))
    for option in list(options):
        if not math.isfinite(option.npv_usd):
            options.remove(option)
            left_out.append(LeftOut(option.kind, option.name, "its cost could not be computed"))
    ranked = sorted(options, key=lambda option: option.npv_usd)  # stable: buying first on a tie
    return Verdict(horizon, tuple(ranked), tuple(left_out), money_currency())


def on_basis(verdict: Verdict, costs: dict[tuple[str, str], NDArray[np.float64]],
             discount_rate_per_year: float, basis: str) -> Verdict:
    """The same options ranked again on other monthly costs (their after-tax costs), month 0
    first: each option's NPV, total and buying's discounted breakeven against it come from
    ``costs``, keyed by (kind, name); the options left out stay left out.
    """
    buy_costs = costs[(BUY, "Buy")]
    buy = CashFlows({}, buy_costs, None)
    factors = discount_factors(discount_rate_per_year, buy_costs.size - 1)

    def standing(option: Standing) -> Standing:
        option_costs = costs[(option.kind, option.name)]
        flows = CashFlows({}, option_costs, None)
        month = math.nan if option.kind == BUY else discounted_breakeven_month(buy, flows, factors)
        return Standing(option.kind, option.name,
                        float(npv_usd(option_costs, discount_rate_per_year)),
                        float(np.sum(option_costs)), month)

    ranked = sorted((standing(option) for option in verdict.ranked),
                    key=lambda option: (option.npv_usd, option.kind != BUY))
    return Verdict(verdict.horizon_months, tuple(ranked), verdict.left_out, currency=verdict.currency,
                   basis=basis)


def option_npvs(result: Result) -> NDArray[np.float64]:
    """Every option's NPV of costs, a row each in the verdict's order (buying, each rent option,
    each per-token API), over the result's scenarios (flattened) [USD]; NaN where the verdict
    leaves the option out (an API above its rate limit)."""
    npvs = [result.buy.npv_usd, *(option.npv_usd for option in result.rent),
            *(np.where(option.within_rate_limit, option.npv_usd, np.nan) for option in result.api)]
    return np.stack([np.ravel(npv) for npv in np.broadcast_arrays(*npvs)]).astype(np.float64)


def _api_left_out(result: Result, option: Any) -> str:
    if not bool(item(option.within_rate_limit)):
        return "the workload needs more tokens a month than its rate limit allows"
    return ""


def discounted_breakeven_month(buy: CashFlows, other: CashFlows, factors: NDArray[np.float64]) -> float:
    """First month from which buying's running discounted cost stays at or below the other
    option's through the horizon [month]; NaN = never, or no monthly detail.

    Examples
    --------
    Buying pays 1,000 up front then 100 a month; renting 400 a month; no discounting: buying
    is ahead from month 4 (1,400 vs 1,600).

    >>> flat = np.ones(7)
    >>> buy = CashFlows({}, np.array([1000.0] + [100.0] * 6), None)
    >>> rent = CashFlows({}, np.array([0.0] + [400.0] * 6), None)
    >>> discounted_breakeven_month(buy, rent, flat)
    4.0
    """
    if buy.per_month_usd is None or other.per_month_usd is None:
        return math.nan
    buy_months = np.reshape(buy.per_month_usd, -1) * factors
    other_months = np.reshape(other.per_month_usd, -1) * factors
    saving = np.cumsum(other_months - buy_months)[1:]
    tolerance = _TOLERANCE * (np.abs(buy_months).sum() + np.abs(other_months).sum())
    behind = np.flatnonzero(saving < -tolerance)
    if behind.size == 0:
        return 1.0
    month = float(behind[-1] + 2)  # saving[i] is month i + 1; the month after the last one behind
    return month if month <= saving.size else math.nan

