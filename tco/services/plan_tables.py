"""Tables of a solved procurement plan, shared by its admin page and the PDF report (its chart is
``tco.charts.plan_capacity``)."""

from __future__ import annotations

from typing import Any

from costmodel.vocabulary import money

BASELINE_LABELS = {
    "all_rent": "All rent (no new systems)",
    "all_buy": "All buy (on demand only before delivery)",
}


def plan_tables(result: dict[str, Any], uncertainty: dict[str, Any] | None) -> dict[str, Any]:
    """Orders, commitments, baselines, limits and uncertainty of a feasible plan, formatted in
    the currency it was solved in (its scenario's reporting currency)."""
    currency = plan_currency(result)

    def _usd(value: float) -> str:
        return money(value, 0, currency)

    def _uncertainty_row(name: str, figures: dict[str, float]) -> tuple[str, ...]:
        savings = (_usd(figures[f"saving_{p}_usd"]) for p in ("p10", "p50", "p90"))
        return (BASELINE_LABELS[name], *savings, f"{figures['probability_plan_loses']:.1%}")

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
        "currency": currency,
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


def plan_currency(result: dict[str, Any]) -> str:
    """The currency a solved plan's money is in (plans solved before it was recorded: USD)."""
    return result.get("currency", "USD")
