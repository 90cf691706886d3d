"""The one warnings list of an evaluation: what the API, the page, the approval page, the PDF and
the workbook all show, each with a code, a severity and its words.

The inputs' own warnings (sources that disagree, shipped example prices) come with the engine
case; here are added what the result says (the footprint's flags, options the verdict left
out), what the inputs leave at zero, every price older than the staleness limit, and every
rent option billed only for the hours used, with what billing every held hour would cost.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date

import costmodel as engine
from catalog.refresh.freshness import price_age
from catalog.refresh.freshness import stale_sentence
from catalog.refresh.freshness import staleness_limit_days
from costmodel.figures import item
from costmodel.inputs import billing_basis
from costmodel.vocabulary import usd_short
from tco.services.engine_inputs import EvaluationWarning
from tco.services.engine_inputs import PriceUsed
from tco.services.zero_costs import zero_cost_warnings

WARNING, INFO = "warning", "info"

# The footprint's flags, in words a reader acts on.
FOOTPRINT_WARNINGS = {
    "system_does_not_fit_rack": "One system does not fit in a rack of the facility.",
    "exceeds_rack_power_limit": "A rack draws more than the facility's rack power limit.",
    "exceeds_cooling_table": "The power per rack is beyond every cooling technology in the "
                             "catalog.",
}


def evaluation_warnings(inputs: engine.Scenario, result: engine.Result,
                        case_warnings: Sequence[EvaluationWarning] = (),
                        prices: Sequence[PriceUsed] = (),
                        sizing_mode: str | None = None) -> tuple[EvaluationWarning, ...]:
    """Every warning of one evaluation, the most serious first, each once."""
    found = [*case_warnings, *footprint_warnings(result), *left_out_warnings(result),
             *zero_cost_warnings(inputs), *stale_price_warnings(prices),
             *billed_for_use_warnings(inputs, result),
             *inference_api_beside_training_warnings(inputs, sizing_mode)]
    unique = dict.fromkeys(found)
    return tuple(sorted(unique, key=lambda warning: warning.severity != WARNING))


def inference_api_beside_training_warnings(inputs: engine.Scenario, sizing_mode: str | None
                                           ) -> tuple[EvaluationWarning, ...]:
    """A scenario sized for training beside per-token inference APIs: the APIs serve tokens, the
    cluster trains a model, so their costs answer different questions."""
    if sizing_mode != "training" or not inputs.api:
        return ()
    names = ", ".join(option.name for option in inputs.api)
    return (EvaluationWarning(
        "inference_api_beside_training",
        f"This scenario is sized for training, but {names} "
        f"{'prices' if len(inputs.api) == 1 else 'price'} inference tokens: serving tokens is "
        "not training a model, so compare a training run with renting or buying the cluster, "
        "not with an inference API."),)


def footprint_warnings(result: engine.Result) -> tuple[EvaluationWarning, ...]:
    """The footprint flags raised for a batch-of-one result."""
    return tuple(EvaluationWarning(code, FOOTPRINT_WARNINGS[code])
                 for code, flag in result.footprint.warnings.items()
                 if item(flag))


def left_out_warnings(result: engine.Result) -> tuple[EvaluationWarning, ...]:
    """Options the verdict could not rank: it says so rather than dropping them."""
    verdict = result.verdict
    if verdict is None:
        return ()
    return tuple(EvaluationWarning("option_left_out", f"{option.name} is left out of the verdict: "
                                                      f"{option.reason}.")
                 for option in verdict.left_out)


def stale_price_warnings(prices: Sequence[PriceUsed], *, today: date | None = None,
                         stale_after_days: int | None = None) -> tuple[EvaluationWarning, ...]:
    """A warning for every price older than the staleness limit on ``today`` (default: the
    local date), aged by the catalog's one rule: from the later of its as-of date and the
    last day a refresh found it current. Default limit: ``settings.PRICE_STALE_AFTER_DAYS``."""
    limit = staleness_limit_days() if stale_after_days is None else stale_after_days
    aged = [(price, price_age(as_of=price.as_of, checked_on=price.checked_on, today=today,
                              stale_after_days=limit)) for price in prices]
    return tuple(EvaluationWarning("stale_price", stale_sentence(price.target, age, stale_after_days=limit))
                 for price, age in aged if age.is_stale)


def billed_for_use_warnings(inputs: engine.Scenario,
                            result: engine.Result) -> tuple[EvaluationWarning, ...]:
    """Each rent option billed only for the hours used, stated as the assumption it is, with
    what it would cost (NPV) billed for every hour held, and whether that changes the verdict."""
    found = []
    for index, option in enumerate(inputs.rent):
        if billing_basis(option) != engine.BillingBasis.USED:
            continue
        held = replace(option, billing_basis=engine.BillingBasis.HELD)
        alone = replace(inputs, rent=(held,), api=())
        held_npv = float(item(engine.evaluate(alone, detail=False, recommend=False).rent[0].npv_usd))
        used_npv = float(item(result.rent[index].npv_usd))
        utilisation = float(item(inputs.workload.utilisation))
        text = (f"{option.name} is billed only for the hours used ({utilisation:.0%} of each "
                f"month's hours): the workload must release the instances between jobs. Billed "
                f"for every hour held it would cost {usd_short(held_npv - used_npv)} more (NPV)")
        verdict = result.verdict
        runner_up = verdict.runner_up if verdict is not None else None
        if runner_up and verdict.cheapest.name == option.name and held_npv > runner_up.npv_usd:
            text += f", and {runner_up.phrase} would be cheapest instead"
        found.append(EvaluationWarning("billed_for_use", text + ".", INFO))
    return tuple(found)
