"""Cumulative cost of buying against each rent option, month by month, breakevens marked."""
from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from tco import engine
from tco.charts.canvas import BUY_COLOUR
from tco.charts.canvas import money_axis
from tco.charts.canvas import new_figure
from tco.engine.figures import scalar

# A breakeven label right of this share of the x axis would run past the axes, so it goes left.
LABEL_FLIPS_LEFT_AT = 0.7
# Labels of breakevens closer than this share of the x axis would overlap, so they stack.
LABELS_STACK_WITHIN = 0.2
LABEL_STEP_POINTS = 11


def cumulative_cost_figure(result: engine.Result) -> Figure:
    """Cumulative cost of buying vs each rent option by month, breakevens marked."""
    fig, (ax,) = new_figure(8, 4.2)
    months = result.months
    buy_cumulative = np.reshape(result.buy.cash_flows.cumulative_usd, -1)
    ax.plot(months, buy_cumulative, label="Buy", linewidth=2.4, color=BUY_COLOUR)
    # Options breaking even in the same month share one marker point, so they share one label.
    breakevens: dict[int, tuple[float, list[str]]] = {}
    for option in result.rent:
        line, = ax.plot(months, np.reshape(option.cash_flows.cumulative_usd, -1),
                        label=f"Rent: {option.name}", linewidth=1.6)
        month = scalar(option.breakeven_month)
        if np.isfinite(month):
            value = float(buy_cumulative[int(month)])
            ax.scatter([month], [value], color=line.get_color(), zorder=5)
            breakevens.setdefault(int(month), (value, []))[1].append(line.get_color())
    money_axis(ax.yaxis)
    ax.set_xlabel("Month")
    ax.set_ylabel("Cumulative cost (USD)")
    ax.set_xlim(0, months[-1])
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    labelled: list[int] = []
    for month, (value, colours) in sorted(breakevens.items()):
        near = sum(abs(month - other) / months[-1] < LABELS_STACK_WITHIN for other in labelled)
        _label_breakeven(ax, month, value, colours[0] if len(colours) == 1 else BUY_COLOUR, stack=near)
        labelled.append(month)
    fig.tight_layout()
    return fig


def _label_breakeven(ax: Axes, month: int, value: float, colour: str, *, stack: int = 0) -> None:
    """"breakeven month N" beside its marker, on whichever side keeps it inside the axes, ``stack``
    lines further from it where nearer labels already stand."""
    x_share = (month - ax.get_xlim()[0]) / np.ptp(ax.get_xlim())
    y_share = (value - ax.get_ylim()[0]) / np.ptp(ax.get_ylim())
    left = x_share > LABEL_FLIPS_LEFT_AT
    below = y_share > 0.15
    offset = 6 + stack * LABEL_STEP_POINTS
    ax.annotate(f"breakeven month {month}", (month, value), textcoords="offset points",
                xytext=(-6 if left else 6, -offset if below else offset), ha="right" if left else "left",
                va="top" if below else "bottom", fontsize=8, color=colour)
