"""A one-sentence recommendation: the verdict, and the assumptions that move it most."""

from __future__ import annotations

from collections.abc import Mapping

from costmodel.sensitivity import Tornado
from costmodel.verdict import PRE_TAX
from costmodel.verdict import Verdict
from costmodel.vocabulary import sentence_labels
from costmodel.vocabulary import usd_short


def recommendation(
    verdict: Verdict,
    tornado: Tornado | None,
    *,
    top: int = 3,
    labels: Mapping[str, str] | None = None,
    rent_names: tuple[str, ...] = (),
) -> str:
    """The verdict's sentence, then the inputs whose continuous effect moves the tornado's
    figure (the winner's margin over the next cheapest) most.

    Parameters
    ----------
    verdict : Verdict
        A single scenario's verdict.
    tornado : Tornado, optional
        Its sensitivity (None when buying is the only option); the ``top`` rows with the largest
        continuous effect are named. An input that moves the saving only through a whole count
        (a second instance, another rack) has no continuous effect and is not named.
    top : int
        How many inputs to name [-].
    labels : mapping, optional
        Words for input paths, over the vocabulary's ("the electricity price").
    rent_names : tuple of str
        The rent options' names, to word paths that name them by position.

    Examples
    --------
    "Buy is the cheapest over 36 months: NPV of costs $1.20M (cash $1.45M), $300.0k less than
    renting X (NPV); buying breaks even in month 14 (discounted); the margin of Buy over the next
    cheapest (NPV) moves most with the utilisation (swing $450.0k) and the system price (swing
    $300.0k) for a +/-10% change."
    """
    sentence = verdict.sentence()
    if tornado is None:
        return sentence
    movers = [row for row in tornado.rows[:top] if row.effect_usd > 0]
    if not movers:
        return sentence
    words = sentence_labels([row.path for row in movers], rent_names=list(rent_names))
    labels = {**words, **(labels or {})}
    named = [f"{labels.get(row.path, row.path)} (swing {usd_short(row.effect_usd)})" for row in movers]
    listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + f" and {named[-1]}"
    step = f"{tornado.step_share:.0%}"
    # The sensitivity moves the engine's own (pre-tax) figures, whatever the verdict's basis.
    before_tax = "" if verdict.basis == PRE_TAX else " (before tax)"
    return f"{sentence[:-1]}; {tornado.measure}{before_tax} moves most with {listed} for a +/-{step} change."
