"""Monte Carlo: the distribution of the winner's margin over the next cheapest option, and of the
NPV saving of buying against each rent option."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from costmodel.vocabulary import RESULTS
from costmodel.vocabulary import money_currency
from tco.charts.canvas import TITLE_WIDTH
from tco.charts.canvas import money_axis
from tco.charts.canvas import new_figure
from tco.charts.canvas import wrapped

PERCENTILES = ("p10", "p50", "p90")
# Light tints of buying's blue and renting's orange, so the percentile lines and labels stay legible.
BUYING_WINS_COLOUR = "#9dc3e6"
RENTING_WINS_COLOUR = "#f4b183"


def saving_histogram_figure(options: Mapping[str, Mapping[str, Any]]) -> Figure:
    """One histogram per rent option (a Monte Carlo summary's ``options``), P10/P50/P90 marked.

    Bars right of zero, where buying wins, are blue; the rest orange.
    """
    fig, axes = new_figure(8, 0.8 + 2.2 * len(options), panels=len(options))
    for ax, (option, figures) in zip(axes, options.items(), strict=True):
        edges = np.asarray(figures["histogram"]["bin_edges_usd"], dtype=np.float64)
        widths = np.diff(edges)
        colours = np.where(edges[:-1] + widths / 2 > 0, BUYING_WINS_COLOUR, RENTING_WINS_COLOUR)
        ax.bar(edges[:-1], figures["histogram"]["counts"], width=widths, align="edge", color=colours)
        ax.axvline(0.0, color="grey", linewidth=0.8)
        for name in PERCENTILES:
            value = figures["npv_saving_usd"][name]
            if value is not None:
                ax.axvline(value, color="black", linestyle="--", linewidth=0.8)
                ax.annotate(name.upper(), (value, 1), xycoords=("data", "axes fraction"), xytext=(3, -12),
                            textcoords="offset points", fontsize=8)
        money_axis(ax.xaxis)
        wins = figures["buy_wins_probability"]
        ax.set_title(wrapped(f"Buying against {option}: P(buying costs less) = {wins:.0%}", TITLE_WIDTH),
                     fontsize=9)
        ax.set_ylabel("Draws", fontsize=8)
    axes[-1].set_xlabel(f"{RESULTS['rent.npv_saving_usd'].label} ({money_currency()}); "
                        "blue, right of zero: buying wins")
    fig.tight_layout()
    return fig


def margin_histogram_figure(margin: Mapping[str, Any]) -> Figure:
    """The winner's margin over the next cheapest option across the draws (a Monte Carlo
    summary's ``margin_usd``), whichever options those are at each draw, P10/P50/P90 marked."""
    fig, (ax,) = new_figure(8, 2.8)
    edges = np.asarray(margin["histogram"]["bin_edges_usd"], dtype=np.float64)
    ax.bar(edges[:-1], margin["histogram"]["counts"], width=np.diff(edges), align="edge",
           color=BUYING_WINS_COLOUR)
    for name in PERCENTILES:
        value = margin.get(name)
        if value is not None:
            ax.axvline(value, color="black", linestyle="--", linewidth=0.8)
            ax.annotate(name.upper(), (value, 1), xycoords=("data", "axes fraction"), xytext=(3, -12),
                        textcoords="offset points", fontsize=8)
    money_axis(ax.xaxis)
    ax.set_title("The winner's margin over the next cheapest option (NPV), each draw", fontsize=9)
    ax.set_ylabel("Draws", fontsize=8)
    ax.set_xlabel(f"Margin over the next cheapest ({money_currency()})")
    fig.tight_layout()
    return fig
