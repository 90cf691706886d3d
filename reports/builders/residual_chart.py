"""Report chart of what the bought systems are worth by age: resale (cash) against book value."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from reports.builders.charts import USD_AXIS
from reports.content import scalar
from tco import engine
from tco.engine.residual import book_value_usd
from tco.engine.residual import resale_share


def residual_value_curves(inputs: engine.Scenario, result: engine.Result) -> dict[str, np.ndarray]:
    """Months 0..horizon, the systems' resale value and their book value at each [USD]."""
    months = np.arange(int(scalar(result.horizon_months)) + 1, dtype=np.float64)
    systems_usd = scalar(result.buy.capex_usd["systems"])
    return {
        "months": months,
        "resale_usd": systems_usd * resale_share(inputs.buy, months),
        "book_usd": book_value_usd(systems_usd, inputs.buy.depreciation_months, months),
    }


def residual_figure(inputs: engine.Scenario, result: engine.Result) -> Figure:
    """Resale value (what selling would bring) and book value (capex not yet depreciated) by month."""
    curves = residual_value_curves(inputs, result)
    fig = Figure(figsize=(8, 3.4), dpi=110)
    ax = fig.subplots()
    ax.plot(curves["months"], curves["resale_usd"], linewidth=2.0, label="Resale value (cash view)")
    ax.plot(curves["months"], curves["book_usd"], linewidth=1.4, linestyle="--",
            label="Book value, straight-line depreciation (accounting view)")
    launch = float(np.asarray(inputs.buy.next_generation_launch_month))
    if np.isfinite(launch) and launch <= curves["months"][-1]:
        ax.axvline(launch, color="grey", linewidth=0.8, linestyle=":")
        ax.annotate("next generation launches", (launch, ax.get_ylim()[1]), fontsize=7, ha="right",
                    va="top", xytext=(-3, -3), textcoords="offset points")
    ax.yaxis.set_major_formatter(USD_AXIS)
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
    ax.set_xlabel("Age of the systems (months)")
    ax.set_ylabel("Value of the systems (USD)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left", frameon=False)
    fig.tight_layout()
    return fig
