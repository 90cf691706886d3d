"""Output tokens/s per accelerator against tokens/s per user, one line per serving layout: the
trade a serving fleet makes (more requests per replica serve more tokens per accelerator, each
user more slowly), drawn as the inference-cost benchmarks publish it. The layout chosen is bold,
its operating point marked, and the per-user target a dashed line.
"""
from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter
from matplotlib.ticker import NullFormatter

from costmodel.sizing.layouts import LayoutSearch
from tco.charts.canvas import new_figure


def interactivity_figure(search: LayoutSearch, target_tokens_per_s_per_user: float,
                         accelerator: str) -> Figure:
    """Each layout's curve, the chosen one's point and the interactivity target."""
    fig, (ax,) = new_figure(8, 3.6)
    chosen = search.chosen
    for option in search.options:
        mine = option.label == chosen.label
        ax.plot([p.tokens_per_s_per_user for p in option.curve],
                [p.tokens_per_s_per_accelerator for p in option.curve],
                linewidth=2.4 if mine else 1.0, alpha=1.0 if mine else 0.6,
                label=f"{option.label}{' (chosen)' if mine else ''}")
    ax.scatter([chosen.tokens_per_s_per_user], [chosen.tokens_per_s_per_accelerator], zorder=5,
               marker="D", color="black",
               label=f"Chosen: {chosen.concurrency_per_replica:,.0f} requests per replica")
    ax.axvline(target_tokens_per_s_per_user, color="grey", linestyle="--", linewidth=0.9,
               label=f"Target: at least {target_tokens_per_s_per_user:,.0f} tokens/s per user")
    ax.set_xscale("log")
    # Plain numbers on the log axis (the SVG keeps text as text, which cannot carry mathtext).
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("Interactivity (output tokens/s per user, log scale)")
    ax.set_ylabel(f"Output tokens/s per accelerator\n({accelerator})")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper right", frameon=False)
    fig.tight_layout()
    return fig
