"""Report charts (matplotlib, no display): cost breakdown, tornado, sweep and Monte Carlo.

The cumulative-cost chart is ``tco.charts.cumulative_cost_figure``, shared with the admin.
"""

from __future__ import annotations

import textwrap

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter
from matplotlib.ticker import MaxNLocator

from reports.content import RecordedRun
from tco import engine
from tco.engine.vocabulary import input_label
from tco.engine.vocabulary import line_label
from tco.engine.vocabulary import usd_short

TORNADO_ROWS = 10
USD_AXIS = FuncFormatter(lambda value, _position: usd_short(value))
# Axis labels wrap at this many characters, so long option names never run into the bars.
LABEL_WIDTH = 28


def _wrapped(text: str) -> str:
    return "\n".join(textwrap.wrap(text, LABEL_WIDTH)) or text


def _money_axis(axis) -> None:
    """Dollar ticks, few enough that their labels never touch."""
    axis.set_major_formatter(USD_AXIS)
    axis.set_major_locator(MaxNLocator(nbins=5))


def _wrapped_wide(text: str) -> str:
    return "\n".join(textwrap.wrap(text, 3 * LABEL_WIDTH))


def _label(path: str, run: RecordedRun | None = None) -> str:
    return input_label(path, rent_names=list((run.summary.get("options") or {}) if run else ()))


def _figure(width_in: float, height_in: float) -> tuple[Figure, matplotlib.axes.Axes]:
    """A figure outside pyplot's global state (workers build many; none is ever shown)."""
    fig = Figure(figsize=(width_in, height_in), dpi=110)
    return fig, fig.subplots()


def cost_breakdown_figure(result: engine.Result) -> Figure:
    """Total cost over the horizon of buying and of each rent option, stacked by cost line."""
    sides = [("Buy", result.buy.cash_flows.lines_usd)] + [
        (f"Rent: {option.name}", option.cash_flows.lines_usd) for option in result.rent
    ]
    lines = list(dict.fromkeys(line for _, flows in sides for line in flows))
    fig, ax = _figure(8, 1.8 + 0.6 * len(sides))
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
    ax.set_yticks(range(len(sides)), [_wrapped(label) for label, _ in sides], fontsize=8)
    ax.invert_yaxis()
    _money_axis(ax.xaxis)
    ax.set_xlabel("Total over the horizon (USD)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    fig.tight_layout()
    return fig


def tornado_figure(tornado: engine.Tornado) -> Figure:
    """NPV saving at the low and high value of the inputs that move it most."""
    rows = [row for row in tornado.rows[:TORNADO_ROWS] if row.swing_usd > 0]
    fig, ax = _figure(8, 0.8 + 0.38 * max(len(rows), 1))
    base = tornado.base_saving_usd
    for position, row in enumerate(rows):
        for saving, color, label in (
            (row.saving_at_low_usd, "#c55a11", "input -"),
            (row.saving_at_high_usd, "#2e75b6", "input +"),
        ):
            ax.barh(position, saving - base, left=base, color=color, label=None if position else label)
    ax.axvline(base, color="black", linewidth=0.8)
    ax.set_yticks(range(len(rows)), [_wrapped(_label(row.path)) for row in rows], fontsize=8)
    ax.invert_yaxis()
    _money_axis(ax.xaxis)
    ax.set_xlabel(_wrapped_wide(
        f"NPV saving of buying vs {tornado.rent_option} (USD), each input moved "
        f"+/-{tornado.step_share:.0%}"), fontsize=8)
    if rows:
        ax.legend(fontsize=8, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def sweep_figure(run: RecordedRun) -> Figure:
    """Median breakeven month over the sweep's heat-map inputs, one panel per rent option.

    With one heat-map input the panels are lines; "never" is left blank.
    """
    heatmap = run.summary["heatmap"]
    grids = heatmap["breakeven_month"]
    fig = Figure(figsize=(8, 2.2 + 2.6 * len(grids)), dpi=110)
    axes = fig.subplots(len(grids), 1, squeeze=False)[:, 0]
    x_values = np.asarray(heatmap["x_values"], dtype=float)
    for ax, (option, grid) in zip(axes, grids.items(), strict=True):
        months = np.array([[np.nan if v is None else v for v in row] for row in grid], dtype=float)
        if heatmap["y_path"]:
            mesh = ax.pcolormesh(
                x_values,
                np.asarray(heatmap["y_values"], dtype=float),
                months,
                cmap="RdYlGn_r",
                shading="nearest",
            )
            fig.colorbar(mesh, ax=ax, label="Breakeven month")
            ax.set_ylabel(_wrapped(_label(heatmap["y_path"])), fontsize=8)
        else:
            ax.plot(x_values, months[0], color="#1f4e79", marker="o", markersize=3)
            ax.set_ylabel("Breakeven month", fontsize=8)
            ax.grid(alpha=0.3)
        ax.set_xlabel(_label(heatmap["x_path"]), fontsize=8)
        ax.set_title(f"Against {option} (blank: never breaks even)", fontsize=9)
    fig.tight_layout()
    return fig


def monte_carlo_figure(run: RecordedRun) -> Figure:
    """Histogram of the NPV saving of buying against each rent option, with its P10/P50/P90."""
    options = run.summary["options"]
    fig = Figure(figsize=(8, 0.8 + 2.2 * len(options)), dpi=110)
    axes = fig.subplots(len(options), 1, squeeze=False)[:, 0]
    for ax, (option, figures) in zip(axes, options.items(), strict=True):
        edges = np.asarray(figures["histogram"]["bin_edges_usd"], dtype=float)
        ax.stairs(figures["histogram"]["counts"], edges, fill=True, color="#9dc3e6")
        for label in ("p10", "p50", "p90"):
            value = figures["npv_saving_usd"][label]
            if value is not None:
                ax.axvline(value, color="#1f4e79", linestyle="--", linewidth=1)
                ax.annotate(
                    label.upper(),
                    (value, 1),
                    xycoords=("data", "axes fraction"),
                    xytext=(3, -12),
                    textcoords="offset points",
                    fontsize=8,
                )
        ax.axvline(0.0, color="black", linewidth=0.8)
        _money_axis(ax.xaxis)
        ax.set_title(
            f"Against {option}: buying wins in {figures['buy_wins_probability']:.0%} of draws", fontsize=9
        )
        ax.set_ylabel("Draws", fontsize=8)
    axes[-1].set_xlabel("NPV saving of buying (USD); right of zero, buying wins")
    fig.tight_layout()
    return fig
