"""Which basis a scenario's verdict ranks its options on, before or after tax: the one rule.

The scenario's own choice wins, then its team's; with neither, the verdict is after tax once a
tax rate is entered (the tax terms would otherwise be typed and ignored), else before tax.
Every view reads ``Evaluation.result.verdict``, which ``on_verdict_basis`` puts on that basis:
the headline, the ranking, the key figures and the chart follow it.
"""
from __future__ import annotations

import math
from dataclasses import replace

from core.verdict_basis import VerdictBasis
from costmodel.recommend import recommendation
from costmodel.verdict import Verdict
from costmodel.vocabulary import money_in
from tco.models import Scenario


def verdict_basis(scenario: Scenario) -> str:
    """'pre_tax' or 'after_tax' for ``scenario`` (saved or not)."""
    team = scenario.team if scenario.team_id is not None else None
    chosen = scenario.verdict_basis or (team.verdict_basis if team is not None else "")
    if chosen:
        return chosen
    return VerdictBasis.AFTER_TAX if scenario.tax_rate and scenario.tax_rate > 0 else VerdictBasis.PRE_TAX


def on_verdict_basis(evaluation, basis: str, labels: dict[str, str] | None = None):
    """``evaluation`` with its verdict (and the recommendation quoting it) on ``basis``."""
    result = evaluation.result
    if basis != VerdictBasis.AFTER_TAX or evaluation.after_tax is None or result.verdict is None:
        return evaluation
    verdict = evaluation.after_tax.verdict(result.verdict)
    with money_in(evaluation.currency):
        words = (verdict.sentence() if result.recommendation is None else recommendation(
            verdict, result.tornado, labels=labels,
            rent_names=tuple(option.name for option in result.rent)))
    return replace(evaluation, result=replace(result, verdict=verdict, recommendation=words))


def chart_caption(verdict: Verdict, rate: float) -> str:
    """What the discounted chart shows and which of its marks the headline quotes."""
    basis = verdict.basis_words
    text = (f"Cumulative cost {basis}, discounted at {rate:.1%} a year: each line ends at its "
            f"option's NPV {basis}; buying's breakeven against each option is marked where it has one")
    if verdict.rival is None:
        return text + "."
    month = verdict.breakeven_month
    quoted = "never breaks even" if math.isnan(month) else f"breaks even in month {int(month)}"
    return f"{text}, and the headline quotes the one against {verdict.rival.phrase}: buying {quoted}."
