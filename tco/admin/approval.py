"""What an approver signs, shown before they confirm: the headline figures against each rent
option, the prices and their dates and sources, the warnings, and why they may not approve."""
from __future__ import annotations

from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser

from catalog.selectors import source_citations
from costmodel.vocabulary import RESULTS
from costmodel.vocabulary import input_term
from costmodel.vocabulary import money_in
from costmodel.vocabulary import show
from tco.models import Scenario
from tco.services.engine_inputs import PriceUsed
from tco.services.engine_inputs import ScenarioInputError
from tco.services.evaluation import Evaluation
from tco.services.evaluation import option_figures
from tco.services.evaluation import scenario_evaluate
from tco.services.scenarios import approval_refusal


def what_is_signed(scenario: Scenario, user: AbstractBaseUser) -> dict[str, Any]:
    """One scenario on the confirmation page: its figures as approving would pin them, or why
    it cannot be approved (``refusal``)."""
    shown: dict[str, Any] = {"scenario": scenario, "refusal": ""}
    if scenario.is_approved:
        return {**shown, "refusal": "It is approved already."}
    refusal = approval_refusal(scenario, user)
    if refusal:
        return {**shown, "refusal": refusal[0].upper() + refusal[1:] + "."}
    try:
        evaluation = scenario_evaluate(scenario=scenario)
    except ScenarioInputError as exc:
        return {**shown, "refusal": f"It cannot be evaluated, so there is no answer to sign: {exc}"}
    return {**shown, **signed_figures(evaluation, team_id=scenario.team_id)}


def signed_figures(evaluation: Evaluation, *, team_id: int | None) -> dict[str, Any]:
    """The verdict, the figures, prices (with their sources' titles) and warnings of an
    evaluation (the one list every view shows, each to be acknowledged), as text."""
    priced = {price.path for price in evaluation.prices}
    titles = {c.key: f"{c.title} ({c.key})" for c in source_citations(
        [key for a in evaluation.assumptions if a.path in priced for key in a.source_keys],
        team_id=team_id)}
    with money_in(evaluation.currency):
        return _signed_figures(evaluation, titles)


def _signed_figures(evaluation: Evaluation, titles: dict[str, str]) -> dict[str, Any]:
    money = RESULTS["rent.npv_usd"]
    verdict = evaluation.result.verdict
    return {
        "verdict": verdict.sentence(),
        "ranked": [(rank, option.label, money.show(option.npv_usd), money.show(option.total_usd))
                   for rank, option in enumerate(verdict.ranked, start=1)],
        "options": [(row["name"], "Buy" if row["winner"] == "buy" else "Rent",
                     RESULTS["rent.npv_saving_usd"].show(row["npv_saving_usd"]),
                     RESULTS["rent.breakeven_month"].show(
                         float("nan") if row["breakeven_month"] is None else row["breakeven_month"]))
                    for row in option_figures(evaluation.result)],
        "prices": [(price.target, _price(price),
                    price.as_of.isoformat(), titles.get(price.source, price.source))
                   for price in evaluation.prices],
        "warnings": list(evaluation.warnings),
    }


def _price(price: PriceUsed) -> str:
    """A catalog price in its own currency, with its unit: 'EUR 250,000.00 per system'."""
    term = input_term(price.path)
    return " ".join(filter(None, [show(float(price.amount), term.kind, term.digits, price.currency),
                                  term.unit]))
