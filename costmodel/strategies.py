"""Strategies over time: buy now, lock a term, rent on demand, wait for the next generation, or mix.

Every strategy serves the same demand (accelerators each month, the workload's by default) over
the scenario's horizon and is costed on the same engine:

* **buy now**: the scenario's own buy option, by ``evaluate`` (capex, power, operations,
  financing, resale at the horizon); beside it, where ``market_resale`` is given, the same with the
  resale value the rental curve gives (``costmodel.market_resale``) instead of the fixed share;
* **lock a term** (each commitment term the curve offers): back-to-back contracts from month 0,
  each for the most accelerators the demand needs during it, at the forward price of the month it
  starts; as in the engine's reserved options the months after the horizon are not counted;
* **rent on demand** and **rent spot**: the demand of each month at the forward price of that
  month (spot for the hours used, plus the interruption overhead);
* **rent, then buy the next generation at month k**: the months before k rented in the cheapest
  way the curve offers for them (on demand or a term, judged on forward prices, the exit
  included), then the next generation bought by ``evaluate`` with its price and performance: the
  demand over its throughput ratio, the horizon's remaining months. A contract running past k is
  left at k paying ``exit_share`` of its remaining commitment (up to the horizon), at month k;
* **mix**: a share of the peak demand held on a term, the rest on demand as it comes.

Months follow the engine (``costmodel.timeline``): month 0 holds up-front payments, service
month m is paid in month m, its price is the one of month m - 1 (its start).

The verdict ranks the strategies by NPV of costs (the scenario's discount rate) and gives the
**value of waiting**: the NPV of buying now less that of renting and buying the next generation at
month k (positive: waiting saves that much; negative: it costs that much). A strategy that cannot
be costed (no next generation given, a term the curve does not offer) is listed with the reason.

Prices come as paths (``StrategyPrices``): one path of forward prices for the verdict, many
drawn paths for the Monte Carlo (``costmodel.price_paths``), costed by the same function.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from costmodel.counting import ceil_count
from costmodel.evaluate import evaluate
from costmodel.finance import discount_factors
from costmodel.inputs import InputError
from costmodel.inputs import RentOption
from costmodel.inputs import Scenario
from costmodel.market_resale import MarketResale
from costmodel.market_resale import market_resale_share
from costmodel.rent import billed_hours_per_month
from costmodel.rent import usage_cost_usd
from costmodel.term_structure import ON_DEMAND
from costmodel.term_structure import SPOT
from costmodel.term_structure import TermStructure
from costmodel.term_structure import term_label
from costmodel.term_structure import term_months
from costmodel.vocabulary import money

BUY_NOW_MARKET = "buy_now_market"
BUY_NOW, ON_DEMAND_KEY, SPOT_KEY, NEXT_GENERATION, MIX = (
    "buy_now",
    "on_demand",
    "spot",
    "next_generation",
    "mix",
)


@dataclass(frozen=True)
class NextGeneration:
    """The accelerator generation after the scenario's: when it can be bought, its system price and
    its performance per accelerator relative to today's (2 = each does twice the work).

    A field left None is missing: the strategy is then listed with the reason, not costed.
    ``accelerators_per_system`` and the power figures default to the scenario's system's.
    """

    name: str
    available_month: float | None
    system_price_usd: float | None
    throughput_ratio: float | None
    accelerators_per_system: float | None = None
    system_power_max_kw: float | None = None
    system_power_idle_kw: float | None = None
    source: str = ""


#: Sourced defaults for the generation after the H100 (seed 003, "GPU pricing and
#: price/performance (2026)"): an 8x B200 baseboard at ~$500,000; ~4,000 tokens/s against the
#: H100's ~1,200 on the same model (Llama 3 70B, INT8); a new generation about every two years.
B200_AFTER_H100 = NextGeneration(
    name="B200",
    available_month=24.0,
    system_price_usd=500_000.0,
    throughput_ratio=4000.0 / 1200.0,
    accelerators_per_system=8.0,
    source="seed 003: 8x B200 baseboard about USD 500,000; ~4,000 vs ~1,200 tokens/s (H100 SXM); "
    "a generation about every two years",
)


@dataclass(frozen=True)
class Mix:
    """A reserved base: ``base_share`` of the peak demand held on ``term``; the rest on demand."""

    term: str
    base_share: float


@dataclass(frozen=True)
class StrategyInputs:
    """What the strategies are evaluated on: one scenario, its accelerator's term structure and
    the options of waiting and mixing.

    ``demand_accelerators`` gives the accelerators needed in each month 1..H (empty: the
    workload's every month); the bought fleet is the scenario's, sized for its workload.
    """

    scenario: Scenario
    terms: TermStructure
    next_generation: NextGeneration | None = None
    mix: Mix | None = None
    demand_accelerators: tuple[float, ...] = ()
    exit_share: float = 1.0
    market_resale: MarketResale | None = None


@dataclass(frozen=True)
class StrategyCost:
    """One strategy's monthly cost lines [USD] (months on the last axis, month 0 first), their
    total and NPV; for the Monte Carlo the lines carry a path axis in front."""

    key: str
    label: str
    lines_usd: dict[str, NDArray[np.float64]]
    total_usd: NDArray[np.float64]
    npv_usd: NDArray[np.float64]

    @property
    def per_month_usd(self) -> NDArray[np.float64]:
        return summed(self.lines_usd)


@dataclass(frozen=True)
class Unavailable:
    """A strategy that could not be costed, and why."""

    key: str
    label: str
    reason: str


@dataclass(frozen=True)
class StrategyVerdict:
    """The strategies ranked by NPV of costs (cheapest first) and the value of waiting."""

    strategies: tuple[StrategyCost, ...]
    unavailable: tuple[Unavailable, ...]
    margin_usd: float  # NPV of the runner-up less the winner's
    value_of_waiting_usd: float  # NPV of buying now less waiting; NaN when there is no next generation
    waiting_months: float
    sentence: str

    @property
    def winner(self) -> StrategyCost:
        return self.strategies[0]

    def strategy(self, key: str) -> StrategyCost:
        for cost in self.strategies:
            if cost.key == key:
                return cost
        raise KeyError(key)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: each strategy's total, NPV and monthly lines; the unavailable with reasons."""

        def number(value: Any) -> float | None:
            value = float(value)
            return round(value, 2) if math.isfinite(value) else None

        return {
            "strategies": [
                {
                    "key": cost.key,
                    "label": cost.label,
                    "total_usd": number(cost.total_usd),
                    "npv_usd": number(cost.npv_usd),
                    "lines_usd": {name: [number(v) for v in line] for name, line in cost.lines_usd.items()},
                }
                for cost in self.strategies
            ],
            "unavailable": [
                {"key": gap.key, "label": gap.label, "reason": gap.reason} for gap in self.unavailable
            ],
            "winner": self.winner.key,
            "margin_usd": number(self.margin_usd),
            "value_of_waiting_usd": number(self.value_of_waiting_usd),
            "waiting_months": number(self.waiting_months),
            "sentence": self.sentence,
        }


def summed(lines: dict[str, NDArray[np.float64]]) -> NDArray[np.float64]:
    """The lines added month by month (broadcast over paths)."""
    total = np.zeros(())
    for line in lines.values():
        total = total + line
    return total


#: Price per accelerator-hour of a contract of a term starting at each month 0..H, one row a path
#: (shape (paths, H + 1)); the forward curve is the single path of the verdict.
StrategyPrices = Callable[[str], NDArray[np.float64]]


def forward_prices(terms: TermStructure, horizon_months: int) -> StrategyPrices:
    """The forward curve as a single price path of each term."""
    months = np.arange(horizon_months + 1, dtype=np.float64)
    return lambda term: terms.forward_usd(term, months)[np.newaxis, :]


def horizon_of(scenario: Scenario) -> int:
    return int(np.rint(float(scenario.finance.horizon_months)))


def demand_of(inputs: StrategyInputs) -> NDArray[np.float64]:
    """Accelerators needed in months 1..H, checked against the bought fleet."""
    horizon = horizon_of(inputs.scenario)
    fleet = float(inputs.scenario.workload.accelerators)
    if not inputs.demand_accelerators:
        return np.full(horizon, fleet)
    demand = np.asarray(inputs.demand_accelerators, dtype=np.float64)
    if demand.shape != (horizon,):
        raise InputError("demand_accelerators", f"gives {demand.size} months; the horizon has {horizon}")
    if not np.all(np.isfinite(demand)) or demand.min() < 0:
        raise InputError("demand_accelerators", "each month's accelerators must be a number, 0 or more")
    if demand.max() > fleet:
        raise InputError(
            "demand_accelerators", f"peaks at {demand.max():g}, above the {fleet:g} the scenario buys"
        )
    return demand


def _hours(inputs: StrategyInputs, term: str) -> float:
    """Hours paid per accelerator a month under a term, as the engine bills it."""
    model = "spot" if term == SPOT else "on_demand"
    option = RentOption(
        term, model, 1.0, 1.0, spot_interruption_overhead=inputs.terms.spot_interruption_overhead
    )
    return float(billed_hours_per_month(option, inputs.scenario.workload))


def _monthly_leg(
    inputs: StrategyInputs, term: str, held: NDArray[np.float64], prices: StrategyPrices, months: int
) -> NDArray[np.float64]:
    """Cost of renting ``held[m-1]`` accelerators in each month m = 1..months, month by month."""
    path = prices(term)
    out = np.zeros((path.shape[0], held.size + 1))
    out[:, 1 : months + 1] = usage_cost_usd(ceil_count(held[:months]), path[:, :months], _hours(inputs, term))
    return out


def _term_leg(
    inputs: StrategyInputs, term: str, held: NDArray[np.float64], prices: StrategyPrices, months: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Back-to-back contracts of ``term`` over months 1..months: their monthly cost, and the exit of
    the one running at ``months`` (its months after, up to the horizon, times ``exit_share``)."""
    path = prices(term)
    length = term_months(term)
    horizon = held.size
    hours = _hours(inputs, ON_DEMAND)
    out = np.zeros((path.shape[0], horizon + 1))
    exit_usd = np.zeros((path.shape[0], horizon + 1))
    for start in range(0, months, length):
        end = min(start + length, horizon)
        committed = ceil_count(held[start:end].max())
        monthly = usage_cost_usd(committed, path[:, start], hours)
        out[:, start + 1 : min(end, months) + 1] = monthly[:, np.newaxis]
        if end > months:
            exit_usd[:, months] = monthly * (end - months) * inputs.exit_share
    return out, exit_usd


def _rent_legs(
    inputs: StrategyInputs, term: str, held: NDArray[np.float64], prices: StrategyPrices, months: int
) -> dict[str, NDArray[np.float64]]:
    if term_months(term):
        paid, exit_usd = _term_leg(inputs, term, held, prices, months)
        return {f"rent {term_label(term)}": paid, "contract exit": exit_usd}
    return {f"rent {term_label(term)}": _monthly_leg(inputs, term, held, prices, months)}


def _buy_flows(scenario: Scenario) -> NDArray[np.float64]:
    """The engine's monthly cash flows of buying (months 0..H of the scenario's horizon)."""
    alone = replace(scenario, rent=(), api=())
    return np.asarray(
        evaluate(alone, recommend=False, irr=False).buy.cash_flows.per_month_usd, dtype=np.float64
    )


@dataclass(frozen=True)
class ReadyGeneration:
    """A next generation whose figures are all given and in bounds (``checked_next_generation``)."""

    given: NextGeneration
    month: int
    system_price_usd: float
    throughput_ratio: float


def checked_next_generation(inputs: StrategyInputs) -> ReadyGeneration | str:
    """The next generation ready to be costed, or the reason it cannot be."""
    nxt = inputs.next_generation
    if nxt is None:
        return (
            "no next generation given: its system price, performance per accelerator and availability month"
        )
    month, price, ratio = nxt.available_month, nxt.system_price_usd, nxt.throughput_ratio
    missing = [
        words
        for value, words in (
            (month, "availability month"),
            (price, "system price"),
            (ratio, "performance per accelerator"),
        )
        if value is None or not math.isfinite(value)
    ]
    if missing or month is None or price is None or ratio is None:
        return f"{nxt.name}: missing {', '.join(missing)}"
    if ratio <= 0 or price < 0:
        return f"{nxt.name}: the performance ratio must be above 0 and the price 0 or more"
    horizon = horizon_of(inputs.scenario)
    if not 0 <= month < horizon:
        return f"{nxt.name} arrives at month {month:g}, outside the horizon's months 0 to {horizon - 1}"
    if not inputs.terms.offered(ON_DEMAND) and not inputs.terms.commitment_terms() and month > 0:
        return "no rental price to bridge the months before it arrives"
    return ReadyGeneration(nxt, int(month), price, ratio)


def next_generation_scenario(inputs: StrategyInputs, nxt: ReadyGeneration) -> Scenario:
    """The scenario of buying the next generation at its month: the demand's peak over its
    throughput ratio, its system and price, the horizon's remaining months."""
    scenario = inputs.scenario
    buy = scenario.buy
    given = nxt.given
    peak = float(demand_of(inputs)[nxt.month :].max())
    return replace(
        scenario,
        workload=replace(scenario.workload, accelerators=peak / nxt.throughput_ratio),
        buy=replace(
            buy,
            system_price_usd=nxt.system_price_usd,
            accelerators_per_system=given.accelerators_per_system or buy.accelerators_per_system,
            system_power_max_kw=given.system_power_max_kw or buy.system_power_max_kw,
            system_power_idle_kw=given.system_power_idle_kw or buy.system_power_idle_kw,
        ),
        finance=replace(scenario.finance, horizon_months=float(horizon_of(scenario) - nxt.month)),
    )


def _mix_missing(inputs: StrategyInputs) -> str | None:
    mix = inputs.mix
    if mix is None:
        return "no mix given: a term and the share of the peak demand it holds"
    if not term_months(mix.term) or not inputs.terms.offered(mix.term):
        return f"the curve does not offer {term_label(mix.term)}"
    if not inputs.terms.offered(ON_DEMAND):
        return "the overflow needs an on-demand price"
    if not 0 <= mix.base_share <= 1:
        return f"the base share {mix.base_share:g} is not between 0 and 1"
    return None


class StrategyBook:
    """The strategies of one input, ready to be costed on any price paths.

    Building it evaluates the two purchases on the engine (they do not move with rental prices)
    and picks the bridge before the next generation on the forward curve, so the Monte Carlo costs
    the same decisions on every path.
    """

    def __init__(self, inputs: StrategyInputs) -> None:
        currencies = inputs.terms.currencies()
        if len(currencies) > 1:
            quoted = ", ".join(sorted(currencies))
            raise InputError("terms", f"prices quoted in {quoted}: convert them to one currency first")
        self.inputs = inputs
        self.horizon = horizon_of(inputs.scenario)
        self.demand = demand_of(inputs)
        self.discount = inputs.scenario.finance.discount_rate_per_year
        self.unavailable: list[Unavailable] = []
        self.buy_now = _buy_flows(inputs.scenario)
        forward = forward_prices(inputs.terms, self.horizon)
        self.labels = {BUY_NOW: "Buy now"}
        self.buy_now_market = self._market_resale()
        self.labels.update(
            {
                f"lock_{term}": f"Lock {term_label(term)}, renew at the forward price"
                for term in inputs.terms.commitment_terms()
            }
        )
        # The next generation's purchase (months from its arrival) and the rental bridging to it.
        self.next_generation: tuple[ReadyGeneration, NDArray[np.float64], str] | None = None
        nxt = checked_next_generation(inputs)
        if isinstance(nxt, str):
            self.unavailable.append(Unavailable(NEXT_GENERATION, "Rent, then buy the next generation", nxt))
        else:
            bridge = self._cheapest_bridge(forward, nxt.month)
            self.next_generation = (nxt, _buy_flows(next_generation_scenario(inputs, nxt)), bridge)
            self.labels[NEXT_GENERATION] = (
                f"Rent ({term_label(bridge)}), buy {nxt.given.name} at month {nxt.month}"
            )
        if not inputs.terms.commitment_terms():
            self.unavailable.append(
                Unavailable("lock", "Lock a term", "the curve offers no 1 to 36-month term")
            )
        for key, term in ((ON_DEMAND_KEY, ON_DEMAND), (SPOT_KEY, SPOT)):
            if inputs.terms.offered(term):
                self.labels[key] = f"Rent {term_label(term)}"
            else:
                self.unavailable.append(
                    Unavailable(key, f"Rent {term_label(term)}", f"no {term_label(term)} price")
                )
        mix_reason = _mix_missing(inputs)
        self.mix = None if mix_reason else inputs.mix
        if self.mix is None:
            self.unavailable.append(
                Unavailable(MIX, "Mix: a reserved base and on-demand overflow", mix_reason or "")
            )
        else:
            share, term = f"{self.mix.base_share:.0%}", term_label(self.mix.term)
            self.labels[MIX] = f"Mix: {share} of the peak on {term}, the rest on demand"

    def _market_resale(self) -> NDArray[np.float64] | None:
        """Buying now with the resale value the rental curve gives, beside the fixed share."""
        resale, terms = self.inputs.market_resale, self.inputs.terms
        label = "Buy now, resale at the rental market's value"
        reason = (
            "no market resale given: the systems' useful life and the risk share"
            if resale is None
            else "the resale follows the on-demand price, which the curve does not give"
            if not terms.offered(ON_DEMAND)
            else None
        )
        if resale is None or reason:
            self.unavailable.append(Unavailable(BUY_NOW_MARKET, label, reason or ""))
            return None
        scenario = self.inputs.scenario
        share = market_resale_share(scenario, terms, resale)
        self.labels[BUY_NOW_MARKET] = f"{label} ({share:.1%} of the system price)"
        buy = replace(
            scenario.buy, residual_value_share=share, residual_curve=(), residual_decline_per_year=math.nan
        )
        return _buy_flows(replace(scenario, buy=buy))

    def _cheapest_bridge(self, forward: StrategyPrices, months: int) -> str:
        terms = self.inputs.terms
        candidates = [term for term in (ON_DEMAND, *terms.commitment_terms()) if terms.offered(term)]
        costs = [
            float(self.present_value(summed(_rent_legs(self.inputs, term, self.demand, forward, months)))[0])
            for term in candidates
        ]
        return candidates[int(np.argmin(costs))]

    def present_value(self, flows: NDArray[np.float64]) -> NDArray[np.float64]:
        """NPV of monthly flows at the scenario's discount rate, path by path [USD].

        Summed row by row, not by a matrix product as ``finance.npv_usd``: a path's NPV is then the
        same number whatever else is in its chunk (BLAS blocks rows differently by their count).
        """
        factors = np.asarray(discount_factors(self.discount, self.horizon), dtype=np.float64)
        return np.asarray((flows * factors).sum(axis=-1), dtype=np.float64)

    def lines(self, key: str, prices: StrategyPrices) -> dict[str, NDArray[np.float64]]:
        """One strategy's monthly cost lines on the given price paths (a row per path)."""
        demand, horizon = self.demand, self.horizon
        if key == BUY_NOW:
            return {"buy": self.buy_now[np.newaxis, :]}
        if key == BUY_NOW_MARKET and self.buy_now_market is not None:
            return {"buy": self.buy_now_market[np.newaxis, :]}
        if key.startswith("lock_"):
            return _rent_legs(self.inputs, key.removeprefix("lock_"), demand, prices, horizon)
        if key in (ON_DEMAND_KEY, SPOT_KEY):
            return _rent_legs(
                self.inputs, ON_DEMAND if key == ON_DEMAND_KEY else SPOT, demand, prices, horizon
            )
        if key == NEXT_GENERATION and self.next_generation is not None:
            nxt, flows, bridge = self.next_generation
            bought = np.zeros(horizon + 1)
            bought[nxt.month :] = flows
            return {
                **_rent_legs(self.inputs, bridge, demand, prices, nxt.month),
                "buy next generation": bought[np.newaxis, :],
            }
        if key == MIX and self.mix is not None:
            mix = self.mix
            base = np.full(horizon, ceil_count(demand.max() * mix.base_share))
            overflow = np.maximum(demand - base, 0.0)
            return {
                **_rent_legs(self.inputs, mix.term, base, prices, horizon),
                **_rent_legs(self.inputs, ON_DEMAND, overflow, prices, horizon),
            }
        raise KeyError(key)

    def costs(self, prices: StrategyPrices) -> tuple[StrategyCost, ...]:
        """Every available strategy on the price paths, in the order of ``labels``."""
        costs = []
        for key, label in self.labels.items():
            lines = self.lines(key, prices)
            total = summed(lines)
            costs.append(StrategyCost(key, label, lines, total.sum(axis=-1), self.present_value(total)))
        return tuple(costs)


def evaluate_strategies(inputs: StrategyInputs) -> StrategyVerdict:
    """Every strategy on the forward curve, ranked by NPV of costs, with the value of waiting.

    Examples
    --------
    >>> verdict = evaluate_strategies(inputs)  # doctest: +SKIP
    >>> verdict.winner.label, verdict.value_of_waiting_usd  # doctest: +SKIP
    """
    book = StrategyBook(inputs)
    single = [
        StrategyCost(
            cost.key,
            cost.label,
            {name: line[0] for name, line in cost.lines_usd.items()},
            cost.total_usd[0],
            cost.npv_usd[0],
        )
        for cost in book.costs(forward_prices(inputs.terms, book.horizon))
    ]
    ranked = tuple(sorted(single, key=lambda cost: float(cost.npv_usd)))
    margin = float(ranked[1].npv_usd - ranked[0].npv_usd) if len(ranked) > 1 else math.nan
    by_key = {cost.key: cost for cost in ranked}
    waiting = (
        float(by_key[BUY_NOW].npv_usd - by_key[NEXT_GENERATION].npv_usd)
        if NEXT_GENERATION in by_key
        else math.nan
    )
    nxt = book.next_generation[0] if book.next_generation is not None else None
    months = float(nxt.month) if nxt is not None else math.nan
    sentence = _sentence(ranked, margin, waiting, nxt)
    return StrategyVerdict(ranked, tuple(book.unavailable), margin, waiting, months, sentence)


def _sentence(
    ranked: tuple[StrategyCost, ...], margin: float, waiting: float, nxt: ReadyGeneration | None
) -> str:
    words = f"{ranked[0].label} costs least: {money(float(ranked[0].npv_usd))} NPV"
    if len(ranked) > 1:
        words += f", {money(margin)} less than {ranked[1].label.lower()}"
    words += "."
    if nxt is not None and math.isfinite(waiting):
        verb = "saves" if waiting >= 0 else "costs"
        words += (
            f" Waiting {nxt.month} months to buy {nxt.given.name} instead of buying now "
            f"{verb} {money(abs(waiting))}."
        )
    return words
