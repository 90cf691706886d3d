"""Charts of an evaluation (matplotlib, no display): the admin inlines SVG, reports embed PNG."""
from __future__ import annotations

import io

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

import config.plotting  # noqa: F401  (Agg, no math parsing of user text)
from tco import engine  # noqa: E402
from tco.engine.figures import scalar
from tco.engine.vocabulary import usd_short  # noqa: E402


def cumulative_cost_figure(result: engine.Result, *, title: str = ""):
    """Cumulative cost of buying vs each rent option by month, breakevens marked."""
    fig, ax = plt.subplots(figsize=(8, 4.2), dpi=110)
    months = result.months
    ax.plot(months, np.reshape(result.buy.cash_flows.cumulative_usd, -1), label="Buy",
            linewidth=2.4, color="#1f4e79")
    for option in result.rent:
        line, = ax.plot(months, np.reshape(option.cash_flows.cumulative_usd, -1),
                        label=f"Rent: {option.name}", linewidth=1.6)
        month = scalar(option.breakeven_month)
        if np.isfinite(month):
            value = float(np.reshape(result.buy.cash_flows.cumulative_usd, -1)[int(month)])
            ax.scatter([month], [value], color=line.get_color(), zorder=5)
            ax.annotate(f"breakeven m{int(month)}", (month, value), textcoords="offset points",
                        xytext=(6, -14), fontsize=8, color=line.get_color())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _pos: usd_short(value)))
    ax.set_xlabel("Month")
    ax.set_ylabel("Cumulative cost (USD)")
    ax.set_xlim(0, months[-1])
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def render(fig, fmt: str) -> bytes:
    """The figure as SVG or PNG bytes; the figure is closed afterwards."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt)
    plt.close(fig)
    return buffer.getvalue()


def side_by_side_figure(columns):
    """Cumulative cost of buying (solid) and of the cheapest rent option (dashed) per scenario."""
    fig, ax = plt.subplots(figsize=(8, 4.2), dpi=110)
    for column in columns:
        line, = ax.plot(range(len(column.buy_cumulative_usd)), column.buy_cumulative_usd,
                        label=f"{column.name} v{column.version}: buy", linewidth=2.0)
        ax.plot(range(len(column.rent_cumulative_usd)), column.rent_cumulative_usd,
                label=f"{column.name} v{column.version}: {column.cheapest_rent}", linewidth=1.4,
                linestyle="--", color=line.get_color())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _pos: usd_short(value)))
    ax.set_xlabel("Month")
    ax.set_ylabel("Cumulative cost (USD)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig
