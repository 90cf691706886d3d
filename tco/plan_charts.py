"""Chart and tables of a solved procurement plan, shared by its admin page and the PDF report."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

BASELINE_LABELS = {
    "all_rent": "All rent (no new systems)",
    "all_buy": "All buy (on demand only before delivery)",
}
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


def plan_tables(result: dict[str, Any], uncertainty: dict[str, Any] | None) -> dict[str, Any]:
    """Orders, commitments, baselines, limits and uncertainty of a feasible plan, formatted."""
    baselines = [
        {
            "label": "This plan",
            "npv": _usd(result["npv_usd"]),
            "total": _usd(result["total_usd"]),
            "saving": "",
        }
    ]
    for name, figures in result["baselines"].items():
        if figures["available"]:
            baselines.append(
                {
                    "label": BASELINE_LABELS[name],
                    "npv": _usd(figures["npv_usd"]),
                    "total": _usd(figures["total_usd"]),
                    "saving": _usd(figures["npv_usd"] - result["npv_usd"]),
                }
            )
        else:
            baselines.append(
                {
                    "label": BASELINE_LABELS[name],
                    "npv": "not possible",
                    "total": "",
                    "saving": figures["reason"],
                }
            )
    tables: dict[str, Any] = {
        "orders": [{**order, "capex": _usd(order["capex_usd"])} for order in result["orders"]],
        "commitments": result["commitments"],
        "baselines": baselines,
        "limits": [limit["sentence"] for limit in result["limits"]],
        "uncertainty": None,
    }
    if uncertainty:
        best = uncertainty.get("best_baseline")
        tables["uncertainty"] = {
            "draws": f"{uncertainty['draws']:,}",
            "rows": [
                _uncertainty_row(name, uncertainty[name]) for name in BASELINE_LABELS if name in uncertainty
            ],
            "loses_to_best": f"{uncertainty['probability_loses_to_best_baseline']:.1%}" if best else None,
        }
    return tables


def _uncertainty_row(name: str, figures: dict[str, float]) -> tuple[str, ...]:
    savings = (_usd(figures[f"saving_{p}_usd"]) for p in ("p10", "p50", "p90"))
    return (BASELINE_LABELS[name], *savings, f"{figures['probability_plan_loses']:.1%}")


def _usd(value: float) -> str:
    return f"-${-value:,.0f}" if value < 0 else f"${value:,.0f}"
