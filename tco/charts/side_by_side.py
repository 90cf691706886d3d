"""Several scenarios' cumulative costs on one chart: buying and each one's rival, the cheapest
other option (a rent option or a per-token API)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from matplotlib.figure import Figure

from costmodel.vocabulary import money_currency
from tco.charts.canvas import money_axis
from tco.charts.canvas import new_figure

if TYPE_CHECKING:
    from tco.services.side_by_side import Column

LEGEND_LINE_IN = 0.16  # height of one 7-point legend line [inches]


def side_by_side_figure(columns: Sequence[Column]) -> Figure:
    """Cumulative cost of buying (solid) and of its rival (dashed) per scenario."""
    # The legend sits below the axes (two lines per scenario), so the figure grows with it.
    fig, (ax,) = new_figure(8, 3.6 + LEGEND_LINE_IN * 2 * len(columns))
    for column in columns:
        line, = ax.plot(range(len(column.buy_cumulative_usd)), column.buy_cumulative_usd,
                        label=f"{column.name} v{column.version}: buy", linewidth=2.0)
        if not column.rent_cumulative_usd:
            continue  # buying is the scenario's only option
        ax.plot(range(len(column.rent_cumulative_usd)), column.rent_cumulative_usd,
                label=f"{column.name} v{column.version}: {column.cheapest_rent}", linewidth=1.4,
                linestyle="--", color=line.get_color())
    money_axis(ax.yaxis)
    ax.set_xlabel("Month")
    ax.set_ylabel(f"Cumulative cost ({money_currency()})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False)
    fig.tight_layout()
    return fig
