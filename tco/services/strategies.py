"""Strategies over time for a saved scenario: its accelerator's rental curve from the catalog, the
next generation's sourced defaults, and the engine's verdict (``costmodel.strategies``).

The curve is the accelerator's latest imported one (``catalog.rental_curves``), in US dollars per
accelerator-hour, so the strategies are shown for scenarios reported in US dollars.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from catalog.rental_curves import term_structure
from costmodel.strategies import B200_AFTER_H100
from costmodel.strategies import NextGeneration
from costmodel.strategies import StrategyInputs
from costmodel.strategies import StrategyVerdict
from costmodel.strategies import evaluate_strategies
from costmodel.term_structure import TermStructure
from tco.models import Scenario
from tco.services.evaluation import Evaluation

#: The generation after each accelerator family, with its sourced figures (seed 003).
NEXT_GENERATION = {"H100": B200_AFTER_H100}


@dataclass(frozen=True)
class ScenarioStrategies:
    """The verdict over the strategies with the curve and next generation it used, or why none."""

    verdict: StrategyVerdict | None
    terms: TermStructure | None
    next_generation: NextGeneration | None
    missing: str = ""


def scenario_strategies(scenario: Scenario, evaluation: Evaluation) -> ScenarioStrategies:
    """The scenario's strategies at its accelerator's latest curve."""
    accelerator = scenario.accelerator
    terms = term_structure(accelerator, as_of=timezone.localdate())
    following = NEXT_GENERATION.get(accelerator.family)
    if terms is None:
        return ScenarioStrategies(None, None, following,
                                  f"No rental curve for {accelerator.name}: import one "
                                  "(manage.py import_rental_curve).")
    if evaluation.currency != "USD":
        words = f"The rental curve is in USD; this scenario reports in {evaluation.currency}."
        return ScenarioStrategies(None, terms, following, words)
    verdict = evaluate_strategies(StrategyInputs(evaluation.inputs, terms, following))
    return ScenarioStrategies(verdict, terms, following)
