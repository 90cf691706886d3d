"""Strategies over time for a saved scenario: its accelerator's rental curve from the catalog, the
next generation's sourced defaults, and the engine's verdict (``costmodel.strategies``).

The curve is the accelerator's latest imported one (``catalog.rental_curves``), quoted in its own
currency, and the next generation's price in US dollars: both are converted to the scenario's
reporting currency at its rates as every other price is (the scenario's rate date, else the
figure's own date; ``tco.services.engine_inputs``), each converted price's source saying at what
rate.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from dataclasses import replace
from decimal import Decimal
from typing import Any

from django.utils import timezone

from catalog.rental_curves import curve_history
from catalog.rental_curves import term_structure
from costmodel.currency import NoRate
from costmodel.currency import RateBook
from costmodel.market_resale import MarketResale
from costmodel.price_paths import DriftFit
from costmodel.price_paths import fit_drift
from costmodel.price_paths import strategy_monte_carlo
from costmodel.strategies import B200_AFTER_H100
from costmodel.strategies import NextGeneration
from costmodel.strategies import StrategyInputs
from costmodel.strategies import StrategyVerdict
from costmodel.strategies import evaluate_strategies
from costmodel.term_structure import ON_DEMAND
from costmodel.term_structure import TermStructure
from costmodel.term_structure import term_label
from costmodel.vocabulary import money_in
from tco.models import Scenario
from tco.services.evaluation import Evaluation
from tco.services.exchange_rates import rate_book

#: The generation after each accelerator family, with its sourced figures (seed 003, in USD).
NEXT_GENERATION = {"H100": B200_AFTER_H100}
NEXT_GENERATION_CURRENCY = "USD"
#: Share of a used accelerator's rental earnings its buyer keeps for risk (failures, idle months,
#: margin): a stated assumption, shown on the page, until the catalog records resale prices.
MARKET_RISK_SHARE = 0.5


@dataclass(frozen=True)
class ScenarioStrategies:
    """The verdict over the strategies with the curve and next generation it used (in the
    scenario's ``currency``), or why none."""

    verdict: StrategyVerdict | None
    terms: TermStructure | None
    next_generation: NextGeneration | None
    currency: str
    missing: str = ""
    inputs: StrategyInputs | None = None


@dataclass(frozen=True)
class ScenarioMarket:
    """The scenario's accelerator's curve and next generation in the scenario's ``currency``;
    ``missing`` says why there is no curve (or no rate to convert it)."""

    terms: TermStructure | None
    next_generation: NextGeneration | None
    currency: str
    missing: str = ""


def scenario_market(scenario: Scenario, currency: str) -> ScenarioMarket:
    """The scenario's accelerator's latest curve and its next generation's sourced defaults,
    converted to ``currency`` (the scenario's reporting currency)."""
    accelerator = scenario.accelerator
    quoted = term_structure(accelerator, as_of=timezone.localdate())
    following = NEXT_GENERATION.get(accelerator.family)
    book = rate_book([scenario.team_id] if scenario.team_id is not None else [])
    rate_date = scenario.rates_as_of
    try:
        if following is not None:
            following = _reported_generation(following, book, currency,
                                             rate_date or scenario.prices_as_of or timezone.localdate())
        if quoted is None:
            return ScenarioMarket(None, following, currency,
                                  f"No rental curve for {accelerator.name}: an administrator "
                                  "imports one from a CSV file of dates, terms, prices and sources.")
        return ScenarioMarket(_reported_curve(quoted, book, currency, rate_date), following, currency)
    except NoRate as exc:
        words = f"Strategies over time need a rate to report their prices in {currency}: {exc}"
        return ScenarioMarket(None, None, currency, words)


def scenario_strategies(scenario: Scenario, evaluation: Evaluation) -> ScenarioStrategies:
    """The scenario's strategies at its accelerator's latest curve, in its reporting currency."""
    currency = evaluation.currency
    market = scenario_market(scenario, currency)
    if market.terms is None:
        return ScenarioStrategies(None, None, market.next_generation, currency, market.missing)
    # The systems' useful life is the scenario's own depreciation life.
    resale = MarketResale(float(evaluation.inputs.buy.depreciation_months), MARKET_RISK_SHARE)
    inputs = StrategyInputs(evaluation.inputs, market.terms, market.next_generation, market_resale=resale)
    with money_in(currency):  # the verdict's sentence names amounts
        verdict = evaluate_strategies(inputs)
    return ScenarioStrategies(verdict, market.terms, market.next_generation, currency, inputs=inputs)


def _converted(amount: float, given: str, book: RateBook, currency: str,
               on: datetime.date) -> tuple[float, str]:
    """An amount in the reporting currency and the conversion in words ("" when none was needed)."""
    conversion = book.convert(Decimal(str(amount)), given, currency, on)
    return float(conversion.amount), conversion.describe()


def _with_conversion(source: str, conversion: str) -> str:
    return f"{source}; {conversion}" if conversion else source


def _reported_curve(quoted: TermStructure, book: RateBook, currency: str,
                    rate_date: datetime.date | None) -> TermStructure:
    """The curve in the reporting currency: each price (and forward point) at the scenario's rate
    date, else the curve's own."""
    on = rate_date or quoted.as_of or timezone.localdate()
    prices = []
    for price in quoted.prices:
        today, conversion = _converted(price.price_usd_per_accelerator_hour, price.currency, book, currency,
                                       on)
        forward = tuple((month, _converted(point, price.currency, book, currency, on)[0])
                        for month, point in price.forward)
        prices.append(replace(price, price_usd_per_accelerator_hour=today, forward=forward, currency=currency,
                              source=_with_conversion(price.source, conversion)))
    return replace(quoted, prices=tuple(prices))


def _reported_generation(following: NextGeneration, book: RateBook, currency: str,
                         on: datetime.date) -> NextGeneration:
    if following.system_price_usd is None:
        return following
    price, conversion = _converted(following.system_price_usd, NEXT_GENERATION_CURRENCY, book, currency, on)
    return replace(following, system_price_usd=price, source=_with_conversion(following.source, conversion))


#: Most price paths one request may ask for (the page's API answers in the request; 100,000
#: paths take about a second of CPU, see ``python -m benchmarks``).
MAX_API_PATHS = 20_000
#: The term whose history the drift and volatility are fitted on: on demand, quoted every day.
FITTED_TERM = ON_DEMAND


def curve_fit(scenario: Scenario) -> DriftFit:
    """The geometric Brownian motion fitted on the accelerator's curve history: its on-demand
    prices in the latest curve's currency (a drift of the log price is the same in any one
    currency); ValueError when there is too little history."""
    history = curve_history(scenario.accelerator)
    quoted = next((prices[FITTED_TERM][1] for _, prices in history if FITTED_TERM in prices), None)
    points = [(day, float(prices[FITTED_TERM][0])) for day, prices in history
              if FITTED_TERM in prices and prices[FITTED_TERM][1] == quoted]
    if len(points) < 3:
        raise ValueError(f"a Monte Carlo fits its drift and volatility on the curve's "
                         f"{term_label(FITTED_TERM)} history: {len(points)} dates, 3 or more needed")
    return fit_drift(points)


def strategies_monte_carlo(scenario: Scenario, found: ScenarioStrategies, *, paths: int,
                           seed: int) -> dict[str, Any]:
    """The strategies over ``paths`` price paths of the model ``curve_fit`` gives, in the request;
    ValueError when there are no strategies or too little history."""
    if found.inputs is None:
        raise ValueError(f"no strategies to draw price paths for: {found.missing}")
    fit = curve_fit(scenario)
    distribution = strategy_monte_carlo(found.inputs, fit.model(), paths=paths, seed=seed)
    return {"fit": fit.to_dict(), **distribution.to_dict()}


def strategies_body(found: ScenarioStrategies) -> dict[str, Any]:
    """What the API answers: the verdict, the curve with each term's source, the next generation,
    their money in ``currency`` (the scenario's)."""
    terms = found.terms
    following = found.next_generation
    return {
        "currency": found.currency,
        "missing": found.missing,
        "verdict": None if found.verdict is None else found.verdict.to_dict(),
        "curve": None if terms is None else {
            "as_of": None if terms.as_of is None else terms.as_of.isoformat(),
            "prices": [{"term": price.term, "source": price.source,
                        "price_per_accelerator_hour": price.price_usd_per_accelerator_hour}
                       for price in terms.prices],
        },
        "next_generation": None if following is None else {
            "name": following.name, "available_month": following.available_month,
            "system_price": following.system_price_usd, "throughput_ratio": following.throughput_ratio,
            "source": following.source,
        },
    }
