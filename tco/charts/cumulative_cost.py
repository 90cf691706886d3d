"""Cumulative cost of buying against every other option, month by month, breakevens marked."""
from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

import costmodel as engine
from costmodel.after_tax import AfterTaxView
from costmodel.finance import discount_factors
from costmodel.verdict import discounted_breakeven_month
from costmodel.vocabulary import money_currency
from tco.charts.canvas import BUY_COLOUR
from tco.charts.canvas import money_axis
from tco.charts.canvas import new_figure

# A breakeven label right of this share of the x axis would run past the axes, so it goes left.
LABEL_FLIPS_LEFT_AT = 0.7
# Labels of breakevens closer than this share of the x axis would overlap, so they stack.
LABELS_STACK_WITHIN = 0.2
LABEL_STEP_POINTS = 11
# The legend reads at the tick labels' size: the page shows the chart at about two thirds of its
# size, where a smaller legend could not be read. Each legend line takes this much height.
LEGEND_POINTS = 10
LEGEND_LINE_IN = 0.22


def cumulative_cost_figure(result: engine.Result, *, discount_rate_per_year: float | None = None,
                           after_tax: AfterTaxView | None = None) -> Figure:
    """Cumulative cost of buying and of every other option by month, buying's breakevens marked.

    With ``discount_rate_per_year`` each month is discounted as the NPVs are (the curves end at
    the NPVs the verdict ranks, and the breakeven marked against the rival is the verdict's);
    without it the curves are nominal cash. With ``after_tax`` (a verdict ranked after tax) the
    curves are the after-tax costs. Per-token APIs are dashed; the verdict's cheapest option
    says so in the legend, which stands below the axes so that it covers no line.
    """
    fig, (ax,) = new_figure(8, 4.2 + LEGEND_LINE_IN * (len(result.rent) + len(result.api)))
    months = result.months
    factors = (np.ones(months.size) if discount_rate_per_year is None
               else discount_factors(discount_rate_per_year, int(months[-1])))
    cheapest = result.verdict.cheapest.name if result.verdict is not None else None

    def label(kind: str, name: str) -> str:
        text = {"buy": "Buy", "rent": f"Rent: {name}", "api": f"Pay per token: {name}"}[kind]
        return f"{text} (cheapest)" if name == cheapest else text

    def running(flows: engine.CashFlows) -> np.ndarray:
        return np.cumsum(np.reshape(flows.per_month_usd, -1) * factors)

    def costs(kind: str, name: str, flows: engine.CashFlows) -> engine.CashFlows:
        if after_tax is None:
            return flows
        taxed = {("buy", "Buy"): after_tax.buy, **{("rent", o.name): o.flows for o in after_tax.rent},
                 **{("api", o.name): o.flows for o in after_tax.api}}[(kind, name)]
        return engine.CashFlows({}, taxed.after_tax, None)

    buy_flows = costs("buy", "Buy", result.buy.cash_flows)
    buy_cumulative = running(buy_flows)
    ax.plot(months, buy_cumulative, label=label("buy", "Buy"), linewidth=2.4, color=BUY_COLOUR)
    others = [("rent", option.name, costs("rent", option.name, option.cash_flows)) for option in result.rent]
    others += [("api", option.name, costs("api", option.name, option.cash_flows)) for option in result.api]
    # Options breaking even in the same month share one marker point, so they share one label.
    breakevens: dict[int, tuple[float, list[str]]] = {}
    for kind, name, flows in others:
        line, = ax.plot(months, running(flows), label=label(kind, name), linewidth=1.6,
                        linestyle="--" if kind == "api" else "-")
        month = discounted_breakeven_month(buy_flows, flows, factors)
        if np.isfinite(month):
            value = float(buy_cumulative[int(month)])
            ax.scatter([month], [value], color=line.get_color(), zorder=5)
            breakevens.setdefault(int(month), (value, []))[1].append(line.get_color())
    money_axis(ax.yaxis)
    ax.set_xlabel("Month")
    basis = "nominal" if discount_rate_per_year is None else f"discounted at {discount_rate_per_year:.1%}/yr"
    basis += "" if after_tax is None else ", after tax"
    ax.set_ylabel(f"Cumulative cost, {basis} ({money_currency()})", fontsize=9)
    ax.set_xlim(0, months[-1])
    ax.grid(alpha=0.3)
    # Outside the axes, below them, one entry a line: the layout makes room, so no line is covered.
    fig.set_layout_engine("constrained")
    fig.legend(fontsize=LEGEND_POINTS, loc="outside lower left", ncol=1, frameon=False)
    labelled: list[int] = []
    for month, (value, colours) in sorted(breakevens.items()):
        near = sum(abs(month - other) / months[-1] < LABELS_STACK_WITHIN for other in labelled)
        _label_breakeven(ax, month, value, colours[0] if len(colours) == 1 else BUY_COLOUR, stack=near)
        labelled.append(month)
    return fig


def _label_breakeven(ax: Axes, month: int, value: float, colour: str, *, stack: int = 0) -> None:
    """"breakeven month N" beside its marker, on whichever side keeps it inside the axes, ``stack``
    lines further from it where nearer labels already stand."""
    x_share = (month - ax.get_xlim()[0]) / np.ptp(ax.get_xlim())
    y_share = (value - ax.get_ylim()[0]) / np.ptp(ax.get_ylim())
    left = x_share > LABEL_FLIPS_LEFT_AT
    below = y_share > 0.15
    offset = 6 + stack * LABEL_STEP_POINTS
    ax.annotate(f"breakeven month {month}", (month, value), textcoords="offset points",
                xytext=(-6 if left else 6, -offset if below else offset), ha="right" if left else "left",
                va="top" if below else "bottom", fontsize=8, color=colour)
