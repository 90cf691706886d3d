"""A one-sentence recommendation naming the assumptions that move it most."""

from __future__ import annotations

import math
from collections.abc import Mapping

from tco.engine.result import Result
from tco.engine.sensitivity import Tornado
from tco.engine.vocabulary import sentence_labels
from tco.engine.vocabulary import usd_short


def recommendation(
    result: Result, tornado: Tornado, *, top: int = 3, labels: Mapping[str, str] | None = None
) -> str:
    """One sentence: buy or rent, by how much, when buying breaks even, and what moves it.

    Parameters
    ----------
    result : Result
        A single scenario's result.
    tornado : Tornado
        Its sensitivity; the ``top`` widest rows are named.
    top : int
        How many inputs to name [-].
    labels : mapping, optional
        Words for input paths, over the vocabulary's ("the electricity price").

    Examples
    --------
    "Buy: over 36 months buying costs $1.20M less in NPV than renting AWS
    p5.48xlarge (8x H100 SXM5 80 GB), us-east-1, reserved 3 years (the cheapest
    rent option) and breaks even in month 14; the saving moves most with the
    utilisation (swing $450.0k), the system price (swing $300.0k) and the
    electricity price (swing $80.0k) for a +/-10% change."
    """
    option = result.rent_option(tornado.rent_option)
    saving = float(option.npv_saving_usd)
    month = float(option.breakeven_month)
    horizon = int(result.horizon_months)
    breakeven = "never breaks even" if math.isnan(month) else f"breaks even in month {int(month)}"
    if saving > 0:
        verdict = (
            f"Buy: over {horizon} months buying costs {usd_short(saving)} less in NPV than renting "
            f"{option.name} (the cheapest rent option) and {breakeven}"
        )
    else:
        verdict = (
            f"Rent {option.name}: over {horizon} months it costs {usd_short(-saving)} less in NPV "
            f"than buying, which {breakeven}"
        )
    movers = [row for row in tornado.rows[:top] if row.swing_usd > 0]
    if not movers:
        return f"{verdict}."
    words = sentence_labels([row.path for row in movers],
                            rent_names=[rent.name for rent in result.rent])
    labels = {**words, **(labels or {})}
    named = [f"{labels.get(row.path, row.path)} (swing {usd_short(row.swing_usd)})" for row in movers]
    listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + f" and {named[-1]}"
    step = f"{tornado.step_share:.0%}"
    return f"{verdict}; the saving moves most with {listed} for a +/-{step} change."
