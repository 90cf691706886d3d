"""The tornado: how far the inputs that matter most move the winner's margin over the next cheapest."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

import costmodel as engine
from costmodel.vocabulary import input_label
from costmodel.vocabulary import money_currency
from tco.charts.canvas import BUY_COLOUR
from tco.charts.canvas import LABEL_WIDTH
from tco.charts.canvas import RENT_COLOUR
from tco.charts.canvas import money_axis
from tco.charts.canvas import new_figure
from tco.charts.canvas import wrapped

TORNADO_ROWS = 10


def tornado_figure(tornado: engine.Tornado, *, rent_names: Sequence[str] = (),
                   api_names: Sequence[str] = (), cooling_names: Sequence[str] = ()) -> Figure:
    """The tornado's figure (``Tornado.measure``: the winner's margin over the next cheapest) at
    the low and high value of each input, largest continuous effect at the top.

    Shows the ``TORNADO_ROWS`` first bars; inputs that do not move the saving are left out. An
    input whose bar is a whole-count step (a second instance, another rack) names the value
    where the step happens under its label, so the jump is not read as the input's own effect.
    ``rent_names``, ``api_names`` and ``cooling_names`` name the option or tier an indexed input
    (``rent.2...``) belongs to.
    """
    rows = [row for row in tornado.rows if row.swing_usd > 0][:TORNADO_ROWS]
    fig, (ax,) = new_figure(8, 0.8 + 0.38 * max(len(rows), 1))
    base = tornado.base_saving_usd
    positions = np.arange(len(rows))
    step = f"{tornado.step_share:.0%}"
    for side, colour, label in (("saving_at_low_usd", RENT_COLOUR, f"input -{step}"),
                                ("saving_at_high_usd", BUY_COLOUR, f"input +{step}")):
        savings = np.array([getattr(row, side) for row in rows], dtype=np.float64)
        ax.barh(positions, savings - base, left=base, color=colour, label=label)
    ax.axvline(base, color="black", linewidth=0.8)
    names = {"rent_names": rent_names, "api_names": api_names, "cooling_names": cooling_names}
    labels = [wrapped(input_label(row.path, **names)
                      + "".join(f" [step at {step.threshold:,.4g}]" for step in row.steps))
              for row in rows]
    ax.set_yticks(positions, labels, fontsize=8)
    ax.invert_yaxis()
    money_axis(ax.xaxis)
    measure = tornado.measure[0].upper() + tornado.measure[1:]
    ax.set_xlabel(wrapped(f"{measure} ({money_currency()})", 3 * LABEL_WIDTH), fontsize=8)
    if rows:
        ax.legend(fontsize=8, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig
