"""Strategies over time for a saved scenario: its accelerator's rental curve from the catalog, the
next generation's sourced defaults, and the engine's verdict (``costmodel.strategies``).

The curve is the accelerator's latest imported one (``catalog.rental_curves``), in US dollars per
accelerator-hour, so the strategies are shown for scenarios reported in US dollars.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from catalog.rental_curves import curve_history
from catalog.rental_curves import term_structure
from costmodel.market_resale import MarketResale
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
from tco.models import Scenario
from tco.services.evaluation import Evaluation

#: The generation after each accelerator family, with its sourced figures (seed 003).
NEXT_GENERATION = {"H100": B200_AFTER_H100}
#: Share of a used accelerator's rental earnings its buyer keeps for risk (failures, idle months,
#: margin): a stated assumption, shown on the page, until the catalog records resale prices.
MARKET_RISK_SHARE = 0.5


@dataclass(frozen=True)
class ScenarioStrategies:
    """The verdict over the strategies with the curve and next generation it used, or why none."""

    verdict: StrategyVerdict | None
    terms: TermStructure | None
    next_generation: NextGeneration | None
    missing: str = ""
    inputs: StrategyInputs | None = None


def scenario_strategies(scenario: Scenario, evaluation: Evaluation) -> ScenarioStrategies:
    """The scenario's strategies at its accelerator's latest curve."""
    accelerator = scenario.accelerator
    terms = term_structure(accelerator, as_of=timezone.localdate())
    following = NEXT_GENERATION.get(accelerator.family)
    if evaluation.currency != "USD":
        words = (f"Rental curves and the next generation's price are quoted in another currency than "
                 f"this scenario's ({evaluation.currency}); strategies over time are shown for "
                 f"scenarios in theirs.")
        return ScenarioStrategies(None, None, None, words)
    if terms is None:
        return ScenarioStrategies(None, None, following,
                                  f"No rental curve for {accelerator.name}: an administrator "
                                  "imports one from a CSV file of dates, terms, prices and sources.")
    # The systems' useful life is the scenario's own depreciation life.
    resale = MarketResale(float(evaluation.inputs.buy.depreciation_months), MARKET_RISK_SHARE)
    inputs = StrategyInputs(evaluation.inputs, terms, following, market_resale=resale)
    return ScenarioStrategies(evaluate_strategies(inputs), terms, following, inputs=inputs)


#: Most price paths one request may ask for (the page's API answers in the request; 100,000
#: paths take about a second of CPU, see ``python -m benchmarks``).
MAX_API_PATHS = 20_000
#: The term whose history the drift and volatility are fitted on: on demand, quoted every day.
FITTED_TERM = ON_DEMAND


def strategies_monte_carlo(scenario: Scenario, found: ScenarioStrategies, *, paths: int,
                           seed: int) -> dict[str, Any]:
    """The strategies over ``paths`` price paths of a geometric Brownian motion fitted on the
    accelerator's curve history (its on-demand prices); ValueError when there is too little history."""
    history = curve_history(scenario.accelerator)
    points = [(day, float(prices[FITTED_TERM])) for day, prices in history if FITTED_TERM in prices]
    if len(points) < 3:
        raise ValueError(f"a Monte Carlo fits its drift and volatility on the curve's "
                         f"{term_label(FITTED_TERM)} history: {len(points)} dates, 3 or more needed")
    fit = fit_drift(points)
    distribution = strategy_monte_carlo(found.inputs, fit.model(), paths=paths, seed=seed)
    return {"fit": fit.to_dict(), **distribution.to_dict()}


def strategies_body(found: ScenarioStrategies) -> dict[str, Any]:
    """What the API answers: the verdict, the curve with each term's source, the next generation."""
    terms = found.terms
    following = found.next_generation
    return {
        "missing": found.missing,
        "verdict": None if found.verdict is None else found.verdict.to_dict(),
        "curve": None if terms is None else {
            "as_of": terms.as_of.isoformat(),
            "prices": [{"term": price.term, "usd_per_accelerator_hour": price.price_usd_per_accelerator_hour,
                        "source": price.source} for price in terms.prices],
        },
        "next_generation": None if following is None else {
            "name": following.name, "available_month": following.available_month,
            "system_price_usd": following.system_price_usd, "throughput_ratio": following.throughput_ratio,
            "source": following.source,
        },
    }
