"""Chart of a solved procurement plan: capacity by source, stacked, against the demand line."""
from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# One colour per kind of source, shades within a kind; stacked in this order from the bottom.
KIND_COLOURS = {"owned": "Blues", "reserved": "Greens", "on_demand": "Oranges", "spot": "Purples"}


def capacity_figure(result: dict[str, Any], *, title: str = "Capacity by source against demand"):
    """Stacked monthly capacity of each source (accelerators) and the demand curve."""
    demand = np.asarray(result["demand_accelerators"])
    months = np.arange(1, demand.size + 1)
    fig, ax = plt.subplots(figsize=(8, 4.2), dpi=110)
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
