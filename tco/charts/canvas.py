"""What every chart shares: a figure outside pyplot, money axes, wrapped labels, colours, output.

Figures are ``matplotlib.figure.Figure`` objects, not pyplot's: workers and pages build many, none
is ever shown, and nothing stays behind in pyplot's global state.
"""
from __future__ import annotations

import io
import textwrap

import numpy as np
from django.utils.safestring import SafeString
from django.utils.safestring import mark_safe
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import Formatter
from matplotlib.ticker import MaxNLocator

import core.plotting  # noqa: F401  (Agg, no math parsing of user text)
from costmodel.vocabulary import money_sign

DPI = 110
BUY_COLOUR = "#1f4e79"  # buying; buying wins; an input moved up
RENT_COLOUR = "#c55a11"  # renting wins; an input moved down
NEVER_COLOUR = "#d9d9d9"  # never breaks even
# Axis labels wrap at this many characters, so long option names never run into the bars.
LABEL_WIDTH = 28
# Panel titles wrap at this many characters: a long rent option's name fits above a heat map and
# its colour bar on an 8-inch figure.
TITLE_WIDTH = 60


def new_figure(width_in: float, height_in: float, *, panels: int = 1) -> tuple[Figure, list[Axes]]:
    """A figure with ``panels`` axes stacked top to bottom."""
    figure = Figure(figsize=(width_in, height_in), dpi=DPI)
    return figure, list(np.ravel(figure.subplots(panels, 1, squeeze=False)))


class MoneyFormatter(Formatter):
    """Money ticks in one unit per axis, that of its largest value: $0.90M beside $1.20M, never
    $900.0k beside $1.20M."""

    def __call__(self, value: float, pos: int | None = None) -> str:
        return usd_on_scale(value, max(abs(v) for v in self.axis.get_view_interval()))


def usd_on_scale(amount: float, largest: float) -> str:
    """An amount in the unit (and with the decimals) that the largest on its axis takes.

    >>> usd_on_scale(900_000, 1_500_000), usd_on_scale(0, 1_500_000), usd_on_scale(-45_000, 120_000)
    ('$0.90M', '$0', '-$45k')
    """
    if amount == 0:
        return f"{money_sign()}0"
    sign = "-" if amount < 0 else ""
    scale, suffix = next(((scale, suffix) for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k"))
                          if largest >= scale), (1.0, ""))
    top = largest / scale
    decimals = 2 if top < 10 else 1 if top < 100 else 0
    return f"{sign}{money_sign()}{abs(amount) / scale:,.{decimals}f}{suffix}"


def money_axis(axis: Axis) -> None:
    """Money ticks in one unit per axis ($0.90M, $1.20M), few enough that they never touch."""
    axis.set_major_formatter(MoneyFormatter())
    axis.set_major_locator(MaxNLocator(nbins=5))


def wrapped(text: str, width: int = LABEL_WIDTH) -> str:
    return "\n".join(textwrap.wrap(text, width)) or text


def render(figure: Figure, fmt: str) -> bytes:
    """The figure as SVG or PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt)
    return buffer.getvalue()


def inline_svg(figure: Figure) -> SafeString:
    """The figure as SVG markup to put in an admin page."""
    return mark_safe(render(figure, "svg").decode())  # noqa: S308 (our own SVG)
