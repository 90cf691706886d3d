"""Price history of one offering as a step chart (matplotlib, no display), for the admin."""

from __future__ import annotations

import datetime as dt
import io
from collections import defaultdict
from collections.abc import Iterable

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.dates import AutoDateLocator  # noqa: E402
from matplotlib.dates import ConciseDateFormatter  # noqa: E402

import core.plotting  # noqa: F401  (Agg, no math parsing of user text)
from catalog.models import PricePoint  # noqa: E402


def price_history_svg(prices: Iterable[PricePoint], *, today: dt.date, title: str = "") -> str:
    """An SVG step line per source: each price holds from its as-of date to the next one, or today.

    Returns "" when there is no price to draw.
    """
    by_source: dict[str, list[PricePoint]] = defaultdict(list)
    for point in sorted(prices, key=lambda p: (p.as_of, p.retrieved_at, p.pk)):
        by_source[str(point.source)].append(point)
    if not by_source:
        return ""
    fig, ax = plt.subplots(figsize=(8, 3.2), dpi=100)
    for source, points in sorted(by_source.items()):
        dates = [p.as_of for p in points]
        amounts = [float(p.amount) for p in points]
        end = max(today, dates[-1])
        # The last step runs on to today without a marker: no price was recorded there.
        markers = [True] * len(dates) + [False]
        ax.step(
            [*dates, end], [*amounts, amounts[-1]], where="post", marker="o", markevery=markers, label=source
        )
    every_point = [p for points in by_source.values() for p in points]
    currencies = "/".join(sorted({p.currency for p in every_point}))
    ax.set_ylabel(f"{currencies} {every_point[0].unit}")
    locator = AutoDateLocator()
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    plt.close(fig)
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :]
