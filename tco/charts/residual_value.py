"""What the bought systems are worth by age: resale (cash) against book value (accounting).

The engine counts resale once, at the horizon (``result.buy.residual.resale_value_usd``). A
residual curve or a yearly decline rate says what the systems fetch at every age, so that curve is
drawn; a bare ``residual_value_share`` says nothing about earlier ages, so only the horizon's point
is (a flat line from month 0 would claim the systems resell for that share when new).
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

import costmodel as engine
from costmodel.figures import scalar
from costmodel.residual import book_value_usd
from costmodel.residual import resale_share
from costmodel.vocabulary import money_currency
from tco.charts.canvas import money_axis
from tco.charts.canvas import new_figure


def residual_value_figure(inputs: engine.Scenario, result: engine.Result) -> Figure:
    """Resale value (what selling would bring; by age when the inputs say, else at the horizon only)
    and book value (capex not yet depreciated) by month."""
    horizon = int(scalar(result.horizon_months))
    months = np.arange(horizon + 1, dtype=np.float64)
    systems_usd = scalar(result.buy.capex_usd["systems"])
    fig, (ax,) = new_figure(8, 3.4)
    if _resale_varies_with_age(inputs.buy):
        ax.plot(months, systems_usd * resale_share(inputs.buy, months), linewidth=2.0,
                label="Resale value by age (cash view)")
    ax.scatter([horizon], [scalar(result.buy.residual.resale_value_usd)], zorder=5, marker="D",
               label="Resale value at the horizon (cash view, counted in the buy total)")
    ax.plot(months, book_value_usd(systems_usd, inputs.buy.depreciation_months, months), linewidth=1.4,
            linestyle="--", label="Book value, straight-line depreciation (accounting view)")
    launch = float(np.asarray(inputs.buy.next_generation_launch_month))
    if np.isfinite(launch) and launch <= months[-1]:
        ax.axvline(launch, color="grey", linewidth=0.8, linestyle=":")
        ax.annotate("next generation launches", (launch, ax.get_ylim()[1]), fontsize=7, ha="right",
                    va="top", xytext=(-3, -3), textcoords="offset points")
    money_axis(ax.yaxis)
    ax.set_xlabel("Age of the systems (months)")
    ax.set_ylabel(f"Value of the systems ({money_currency()})")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left", frameon=False)
    fig.tight_layout()
    return fig


def _resale_varies_with_age(buy: engine.BuyOption) -> bool:
    """Whether the inputs give resale at every age (a curve or a decline rate), not only at the horizon."""
    return bool(buy.residual_curve) or bool(np.isfinite(scalar(buy.residual_decline_per_year)))
