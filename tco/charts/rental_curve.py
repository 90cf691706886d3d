"""An accelerator's rental term structure: the price per accelerator-hour of each term offered."""
from __future__ import annotations

from matplotlib.figure import Figure

from costmodel.term_structure import TermStructure
from costmodel.term_structure import term_label
from costmodel.vocabulary import money
from tco.charts.canvas import new_figure


def rental_curve_figure(terms: TermStructure, currency: str) -> Figure:
    """Price by term in ``currency``, shortest commitment first, each bar labelled with its price."""
    fig, (ax,) = new_figure(6, 2.6)
    # Two lines a label ("12" over "months"): eight terms side by side would overlap on one.
    labels = [term_label(price.term).replace(" ", "\n") for price in terms.prices]
    values = [price.price_usd_per_accelerator_hour for price in terms.prices]
    bars = ax.bar(labels, values, color="#4c78a8")
    ax.bar_label(bars, labels=[money(value, currency=currency) for value in values], fontsize=7, padding=2)
    ax.set_ylabel(f"{currency} per accelerator-hour")
    ax.set_xlabel(f"Term (curve of {terms.as_of})")
    ax.set_ylim(0, max(values) * 1.2)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig
