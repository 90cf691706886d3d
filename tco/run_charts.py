"""Charts of a finished run's summary (matplotlib, no display): heat map, histogram, tornado.

Each function takes the JSON summary the run stored, so a chart needs no access to the full
result; render them with ``tco.charts.render``.
"""
from __future__ import annotations

from typing import Any

import matplotlib
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

import config.plotting  # noqa: F401  (Agg, no math parsing of user text)
from tco.engine.vocabulary import input_label  # noqa: E402
from tco.engine.vocabulary import input_term  # noqa: E402
from tco.engine.vocabulary import usd_short  # noqa: E402

USD_AXIS = FuncFormatter(lambda value, _pos: usd_short(value))

NEVER_COLOUR = "#d9d9d9"
TICKS_PER_AXIS = 8
TORNADO_MAX_ROWS = 15


def breakeven_heatmap_figure(heatmap: dict[str, Any], option: str):
    """Breakeven month against one rent option over the sweep's heat-map axes (grey = never)."""
    months = np.array(heatmap["breakeven_month"][option], dtype=np.float64)  # None -> nan
    fig, ax = plt.subplots(figsize=(7.5, 5), dpi=110)
    colours = matplotlib.colormaps["viridis_r"].with_extremes(bad=NEVER_COLOUR)
    image = ax.imshow(np.ma.masked_invalid(months), origin="lower", aspect="auto", cmap=colours,
                      interpolation="nearest")
    fig.colorbar(image, ax=ax, label="Breakeven month (grey: never)")
    _label_cells(ax.set_xticks, ax.set_xticklabels, heatmap["x_values"], heatmap["x_path"])
    ax.set_xlabel(input_label(heatmap["x_path"]))
    if heatmap["y_path"]:
        _label_cells(ax.set_yticks, ax.set_yticklabels, heatmap["y_values"], heatmap["y_path"])
        ax.set_ylabel(input_label(heatmap["y_path"]))
    else:
        ax.set_yticks([])
    ax.set_title(f"Breakeven of buying vs {option}")
    fig.tight_layout()
    return fig


def saving_histogram_figure(option_summary: dict[str, Any], option: str):
    """Distribution of the NPV saving of buying vs one rent option, P10/P50/P90 marked."""
    histogram = option_summary["histogram"]
    edges = np.array(histogram["bin_edges_usd"])
    fig, ax = plt.subplots(figsize=(7.5, 4), dpi=110)
    colours = np.where(edges[:-1] + np.diff(edges) / 2 > 0, "#1f4e79", "#c55a11")
    ax.bar(edges[:-1], histogram["counts"], width=np.diff(edges), align="edge", color=colours)
    for name, value in option_summary["npv_saving_usd"].items():
        if name.startswith("p") and value is not None:
            ax.axvline(value, color="black", linestyle="--", linewidth=0.8)
            ax.annotate(name.upper(), (value, ax.get_ylim()[1]), textcoords="offset points",
                        xytext=(3, -12), fontsize=8)
    ax.xaxis.set_major_formatter(USD_AXIS)
    ax.set_xlabel("NPV saving of buying (USD; blue: buying wins)")
    ax.set_ylabel("Samples")
    ax.set_title(f"Buying vs {option}: P(buying wins) = {option_summary['buy_wins_probability']:.0%}")
    fig.tight_layout()
    return fig


def tornado_figure(summary: dict[str, Any]):
    """How far the inputs that matter most move the NPV saving when moved down and up by the step.

    Shows the ``TORNADO_MAX_ROWS`` widest bars; inputs that do not move the saving are left out.
    """
    moving = [row for row in summary["rows"] if row["swing_usd"] > 0][:TORNADO_MAX_ROWS]
    rows = list(reversed(moving))  # widest at the top
    base = summary["base_saving_usd"]
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(rows) + 1.5), dpi=110)
    positions = np.arange(len(rows))
    lows = np.array([row["saving_at_low_usd"] for row in rows]) - base
    highs = np.array([row["saving_at_high_usd"] for row in rows]) - base
    ax.barh(positions, lows, left=base, color="#c55a11", label=f"input -{summary['step_share']:.0%}")
    ax.barh(positions, highs, left=base, color="#1f4e79", label=f"input +{summary['step_share']:.0%}")
    ax.axvline(base, color="black", linewidth=0.8)
    ax.set_yticks(positions, [input_label(row["path"]) for row in rows], fontsize=8)
    ax.xaxis.set_major_formatter(USD_AXIS)
    ax.set_xlabel(f"NPV saving of buying vs {summary['rent_option']} (USD)")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def _label_cells(set_ticks, set_labels, values: list[float], path: str) -> None:
    """A handful of cell labels in the input's format, so long axes stay readable."""
    step = max(1, len(values) // TICKS_PER_AXIS)
    positions = list(range(0, len(values), step))
    set_ticks(positions)
    set_labels([input_term(path).show(values[i]) for i in positions], fontsize=8)
