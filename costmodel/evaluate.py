"""The engine's entry point: evaluate a scenario or a batch, with a recommendation for one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from costmodel.compose import compute_result
from costmodel.inputs import Scenario
from costmodel.recommend import recommendation
from costmodel.result import Result
from costmodel.sensitivity import one_at_a_time
from costmodel.verdict import verdict_of


def evaluate(
    inputs: Scenario,
    *,
    detail: bool = True,
    irr: bool | None = None,
    recommend: bool | None = None,
    labels: Mapping[str, str] | None = None,
) -> Result:
    """Buy-vs-rent TCO of a scenario, or of a whole batch in one vectorised call.

    Conventions: cash-flow lines are costs (positive = paid out); month 0 holds
    up-front payments (capex down payment, reserved up-front fees) and months
    1..H the operating flows; cumulative totals include month 0. Savings are
    rent minus buy. NPVs discount month m by (1 + discount_rate_per_year) ** (m / 12).

    Parameters
    ----------
    inputs : Scenario
        Numeric fields are floats or arrays broadcasting to one batch shape
        (sweep axes in front); a scalar scenario is the batch of one.
    detail : bool
        Keep each monthly cost line and running total (False for sweeps).
    irr : bool, optional
        Compute each rent option's IRR; default: with ``detail``. Without
        detail or IRR the months are walked by the compiled kernel.
    recommend : bool, optional
        Add a one-sentence recommendation from a +/-10 % sensitivity run
        (kept as ``Result.tornado``); default: only for a single scenario
        evaluated with detail.
    labels : mapping, optional
        Words for input paths in the recommendation ("the system price" for
        ``buy.system_price_usd``); paths without one are named as they are.

    Returns
    -------
    Result
        A single scenario's carries its ``verdict``: every option (buying, each rent option,
        each per-token API) ranked by NPV of costs.

    Examples
    --------
    >>> result = evaluate(scenario)  # doctest: +SKIP
    >>> result.summary()["aws-on-demand"]["breakeven_month"]  # doctest: +SKIP
    """
    result = compute_result(inputs, detail=detail, irr=irr)
    if result.batch_shape == ():
        result = replace(result, verdict=verdict_of(result, inputs))
    if recommend is None:
        recommend = detail and result.batch_shape == ()
    if not recommend:
        return result
    tornado = one_at_a_time(inputs, base=result)
    assert result.verdict is not None, "a single scenario's result has its verdict (a batch was refused)"
    words = recommendation(result.verdict, tornado, labels=labels,
                           rent_names=tuple(option.name for option in result.rent))
    return replace(result, recommendation=words, tornado=tornado)
