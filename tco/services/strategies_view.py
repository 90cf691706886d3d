"""Strategies over time as the scenario page and the PDF show them: the verdict's table, the curve
used and its sources, as text, in the scenario's currency."""
from __future__ import annotations

from typing import Any

from costmodel.term_structure import term_label
from costmodel.vocabulary import money
from tco.charts.canvas import inline_svg
from tco.charts.rental_curve import rental_curve_figure
from tco.models import Scenario
from tco.services.evaluation import Evaluation
from tco.services.strategies import MARKET_RISK_SHARE
from tco.services.strategies import ScenarioStrategies
from tco.services.strategies import scenario_strategies


def strategies_context(scenario: Scenario, evaluation: Evaluation) -> dict[str, Any]:
    """``strategies``: the rows, sentence, curve and sources the page shows, as text."""
    return {"strategies": strategies_shown(scenario_strategies(scenario, evaluation))}


def strategies_shown(found: ScenarioStrategies) -> dict[str, Any]:
    """The strategies found, as the page and the PDF show them."""
    currency = found.currency
    shown: dict[str, Any] = {"missing": found.missing, "risk_share": f"{MARKET_RISK_SHARE:.0%}",
                             "currency": currency}
    if found.terms is not None:
        shown["curve_as_of"] = found.terms.as_of
        shown["curve_rows"] = [
            (term_label(price.term).capitalize(),
             money(price.price_usd_per_accelerator_hour, currency=currency), price.source)
            for price in found.terms.prices
        ]
        shown["curve_svg"] = inline_svg(rental_curve_figure(found.terms, currency))
    following = found.next_generation
    if following is not None and following.system_price_usd is not None:
        shown["next_generation"] = (
            f"{following.name}: {money(following.system_price_usd, 0, currency)} a system of "
            f"{following.accelerators_per_system:g}, {following.throughput_ratio:.2f} times the work per "
            f"accelerator, bought at month {following.available_month:g} ({following.source})")
    verdict = found.verdict
    if verdict is not None:
        best = float(verdict.winner.npv_usd)
        shown["sentence"] = verdict.sentence
        shown["rows"] = [
            (cost.label, money(float(cost.total_usd), currency=currency),
             money(float(cost.npv_usd), currency=currency),
             "cheapest" if index == 0 else f"+{money(float(cost.npv_usd) - best, currency=currency)}")
            for index, cost in enumerate(verdict.strategies)]
        shown["unavailable"] = [(gap.label, gap.reason) for gap in verdict.unavailable]
    return shown
