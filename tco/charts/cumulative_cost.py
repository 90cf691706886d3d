"""Cumulative cost of buying against each rent option, month by month, breakevens marked."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tco import engine
from tco.charts.canvas import BUY_COLOUR
from tco.charts.canvas import money_axis
from tco.charts.canvas import new_figure
from tco.engine.figures import scalar


def cumulative_cost_figure(result: engine.Result) -> Figure:
    """Cumulative cost of buying vs each rent option by month, breakevens marked."""
    fig, (ax,) = new_figure(8, 4.2)
    months = result.months
    buy_cumulative = np.reshape(result.buy.cash_flows.cumulative_usd, -1)
    ax.plot(months, buy_cumulative, label="Buy", linewidth=2.4, color=BUY_COLOUR)
    for option in result.rent:
        line, = ax.plot(months, np.reshape(option.cash_flows.cumulative_usd, -1),
                        label=f"Rent: {option.name}", linewidth=1.6)
        month = scalar(option.breakeven_month)
        if np.isfinite(month):
            value = float(buy_cumulative[int(month)])
            ax.scatter([month], [value], color=line.get_color(), zorder=5)
            ax.annotate(f"breakeven m{int(month)}", (month, value), textcoords="offset points",
                        xytext=(6, -14), fontsize=8, color=line.get_color())
    money_axis(ax.yaxis)
    ax.set_xlabel("Month")
    ax.set_ylabel("Cumulative cost (USD)")
    ax.set_xlim(0, months[-1])
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig
