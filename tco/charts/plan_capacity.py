"""A solved procurement plan's monthly capacity, stacked by source, against demand."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from tco.charts.canvas import new_figure

# One colour per kind of source, shades within a kind; stacked in this order from the bottom.
KIND_COLOURS = {"owned": "Blues", "reserved": "Greens", "on_demand": "Oranges", "spot": "Purples"}


def capacity_figure(result: Mapping[str, Any], *, title: str) -> Figure:
    """Stacked monthly capacity of each source (accelerators) and the demand curve."""
    demand = np.asarray(result["demand_accelerators"])
    months = np.arange(1, demand.size + 1)
    fig, (ax,) = new_figure(8, 4.2)
    by_kind: dict[str, list[str]] = {}
    for source in result["sources"]:
        by_kind.setdefault(source["kind"], []).append(source["name"])
    bottom = np.zeros(demand.size)
    for kind, names in sorted(by_kind.items(), key=lambda item: list(KIND_COLOURS).index(item[0])):
        shades = matplotlib.colormaps[KIND_COLOURS.get(kind, "Greys")](np.linspace(0.75, 0.45, len(names)))
        for name, colour in zip(names, shades, strict=True):
            values = np.maximum(np.asarray(result["capacity_accelerators"][name]), 0.0)
            if not values.any():
                continue
            ax.bar(months, values, bottom=bottom, width=1.0, color=colour, label=name, align="center")
            bottom += values
    ax.step(months, demand, where="mid", color="black", linewidth=1.6, label="Demand")
    ax.set_xlim(0.5, demand.size + 0.5)
    ax.set_xlabel("Month")
    ax.set_ylabel("Accelerators")
    ax.set_title(title)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig
