"""Total cost over the horizon of buying and of each rent option, stacked by cost line."""
from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.figure import Figure

import costmodel as engine
from costmodel.vocabulary import line_label
from costmodel.vocabulary import money_currency
from tco.charts.canvas import money_axis
from tco.charts.canvas import new_figure
from tco.charts.canvas import wrapped


def cost_breakdown_figure(result: engine.Result) -> Figure:
    """One bar per side (buy, each rent option), a segment per cost line; credits go left of zero."""
    sides = [("Buy", result.buy.cash_flows.lines_usd)] + [
        (f"Rent: {option.name}", option.cash_flows.lines_usd) for option in result.rent
    ]
    lines = list(dict.fromkeys(line for _, flows in sides for line in flows))
    fig, (ax,) = new_figure(8, 1.8 + 0.6 * len(sides))
    left_positive = np.zeros(len(sides))
    left_negative = np.zeros(len(sides))
    colours = matplotlib.colormaps["tab20"]
    for index, line in enumerate(lines):
        totals = np.array([float(np.sum(flows[line])) if line in flows else 0.0 for _, flows in sides])
        if not np.any(totals):
            continue
        left = np.where(totals >= 0, left_positive, left_negative)
        ax.barh(range(len(sides)), totals, left=left, label=line_label(line), color=colours(index % 20))
        left_positive += np.where(totals >= 0, totals, 0.0)
        left_negative += np.where(totals < 0, totals, 0.0)
    ax.set_yticks(range(len(sides)), [wrapped(label) for label, _ in sides], fontsize=8)
    ax.invert_yaxis()
    money_axis(ax.xaxis)
    ax.set_xlabel(f"Total over the horizon ({money_currency()})")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    fig.tight_layout()
    return fig
