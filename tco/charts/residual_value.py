"""What the bought systems are worth by age: resale (cash) against book value (accounting)."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tco import engine
from tco.charts.canvas import money_axis
from tco.charts.canvas import new_figure
from tco.engine.figures import scalar
from tco.engine.residual import book_value_usd
from tco.engine.residual import resale_share


def residual_value_figure(inputs: engine.Scenario, result: engine.Result) -> Figure:
    """Resale value (what selling would bring) and book value (capex not yet depreciated) by month."""
    months = np.arange(int(scalar(result.horizon_months)) + 1, dtype=np.float64)
    systems_usd = scalar(result.buy.capex_usd["systems"])
    fig, (ax,) = new_figure(8, 3.4)
    ax.plot(months, systems_usd * resale_share(inputs.buy, months), linewidth=2.0,
            label="Resale value (cash view)")
    ax.plot(months, book_value_usd(systems_usd, inputs.buy.depreciation_months, months), linewidth=1.4,
            linestyle="--", label="Book value, straight-line depreciation (accounting view)")
    launch = float(np.asarray(inputs.buy.next_generation_launch_month))
    if np.isfinite(launch) and launch <= months[-1]:
        ax.axvline(launch, color="grey", linewidth=0.8, linestyle=":")
        ax.annotate("next generation launches", (launch, ax.get_ylim()[1]), fontsize=7, ha="right",
                    va="top", xytext=(-3, -3), textcoords="offset points")
    money_axis(ax.yaxis)
    ax.set_xlabel("Age of the systems (months)")
    ax.set_ylabel("Value of the systems (USD)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left", frameon=False)
    fig.tight_layout()
    return fig
