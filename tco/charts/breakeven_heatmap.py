"""A sweep's breakeven month over its heat-map inputs, one panel per rent option (grey: never)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from costmodel.vocabulary import RESULTS
from costmodel.vocabulary import input_label
from costmodel.vocabulary import input_term
from tco.charts.canvas import BUY_COLOUR
from tco.charts.canvas import NEVER_COLOUR
from tco.charts.canvas import TITLE_WIDTH
from tco.charts.canvas import new_figure
from tco.charts.canvas import wrapped

MONTH_COLOURS = matplotlib.colormaps["viridis_r"].with_extremes(bad=NEVER_COLOUR)
TICKS_PER_AXIS = 8


def breakeven_heatmap_figure(heatmap: dict[str, Any], *, rent_names: Sequence[str] = ()) -> Figure:
    """Median breakeven month per cell of a sweep summary's ``heatmap``, one panel per rent option.

    With two heat-map inputs each panel is a heat map; with one, a line of the month against the
    input. ``rent_names`` name the rent option an indexed input (``rent.2...``) belongs to.
    """
    grids = heatmap["breakeven_month"]
    two_inputs = bool(heatmap["y_path"])
    fig, axes = new_figure(8, 0.6 + (3.2 if two_inputs else 2.4) * len(grids), panels=len(grids))
    month = f"{RESULTS['rent.breakeven_month'].label} (grey: never)"
    for ax, (option, grid) in zip(axes, grids.items(), strict=True):
        months = np.array(grid, dtype=np.float64)  # None (never) -> nan
        if two_inputs:
            image = ax.imshow(np.ma.masked_invalid(months), origin="lower", aspect="auto", cmap=MONTH_COLOURS,
                              interpolation="nearest")
            colour_bar = fig.colorbar(image, ax=ax)
            colour_bar.set_label(month, fontsize=8)
            colour_bar.ax.tick_params(labelsize=8)
            colour_bar.ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # whole months only
            _label_cells(ax.yaxis, heatmap["y_values"], heatmap["y_path"])
            ax.set_ylabel(wrapped(input_label(heatmap["y_path"], rent_names=rent_names)), fontsize=8)
        else:
            _line(ax, months[0])
            ax.set_ylabel(wrapped(month), fontsize=8)
        _label_cells(ax.xaxis, heatmap["x_values"], heatmap["x_path"])
        ax.set_xlabel(input_label(heatmap["x_path"], rent_names=rent_names), fontsize=8)
        ax.set_title(wrapped(f"Breakeven of buying vs {option}", TITLE_WIDTH), fontsize=9)
    fig.tight_layout()
    return fig


def _line(ax: Axes, months: np.ndarray) -> None:
    """The month of each cell as a line, cells that never break even shaded grey."""
    cells = np.arange(months.size)
    ax.plot(cells, months, color=BUY_COLOUR, marker="o", markersize=3)
    for cell in cells[np.isnan(months)]:
        ax.axvspan(cell - 0.5, cell + 0.5, color=NEVER_COLOUR)
    ax.set_xlim(-0.5, months.size - 0.5)
    ax.grid(alpha=0.3)


def _label_cells(axis: Axis, values: list[float], path: str) -> None:
    """A handful of cell labels in the input's format ($0.100, 70.0%), so long axes stay readable."""
    step = max(1, len(values) // TICKS_PER_AXIS)
    positions = list(range(0, len(values), step))
    axis.set_ticks(positions, [input_term(path).show(values[i]) for i in positions], fontsize=8)
