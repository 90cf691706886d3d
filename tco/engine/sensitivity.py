"""One-at-a-time sensitivity of the NPV saving, ranked for a tornado chart.

Every input is moved down and up by the same share of its value, each in its
own row of ONE batch, so P inputs cost one evaluation of 2P scenarios.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tco.engine.compose import compute_result
from tco.engine.compose import npv_saving_usd
from tco.engine.inputs import Scenario
from tco.engine.inputs import batch_shape
from tco.engine.inputs import input_sections
from tco.engine.inputs import numeric_fields
from tco.engine.overrides import get_input
from tco.engine.overrides import input_metadata
from tco.engine.overrides import with_overrides
from tco.engine.result import Result

# Limits, definitions and figures that cannot move the saving are left out by default.
# The token mix's shares sum to 1: one cannot move alone.
_NOT_ASSUMPTIONS = (
    "max_kw_per_rack",
    "tokens_per_s_per_accelerator",
    "hours_per_month",
    "input_share",
    "output_share",
)


@dataclass(frozen=True)
class SensitivityRow:
    """How the NPV saving moves when one input moves down and up by the step."""

    path: str
    base_value: float
    low_value: float
    high_value: float
    saving_at_low_usd: float
    saving_at_high_usd: float

    @property
    def swing_usd(self) -> float:
        """Width of the tornado bar [USD]."""
        return abs(self.saving_at_high_usd - self.saving_at_low_usd)


@dataclass(frozen=True)
class Tornado:
    """One-at-a-time sensitivity against one rent option; rows widest swing first."""

    rent_option: str
    base_saving_usd: float  # NPV saving of buying at the scenario's own inputs
    step_share: float  # each input moves down and up by this share of its value
    rows: tuple[SensitivityRow, ...]


def sensitivity_paths(inputs: Scenario) -> list[str]:
    """Inputs worth moving by a share of their value: the continuous cost assumptions.

    Left out: zero or non-finite values (a share of them is no move), cooling
    tier limits and throughput (they do not move the saving), hours per month
    (a definition, 8,760 / 12), and whole counts
    (accelerators per system or instance, terms, horizon), where 10 % of 8
    accelerators per instance is a different SKU, not an uncertain assumption.
    """
    return [
        f"{prefix}.{name}"
        for prefix, section in input_sections(inputs)
        for name, value, metadata in numeric_fields(section)
        if not name.endswith(_NOT_ASSUMPTIONS)
        and not metadata["whole"]
        and math.isfinite(value)
        and value != 0.0
    ]


def one_at_a_time(
    inputs: Scenario,
    *,
    paths: Sequence[str] | None = None,
    step_share: float = 0.1,
    rent_option: str | None = None,
    base: Result | None = None,
) -> Tornado:
    """Move each input by -step and +step of its value and rank the NPV saving's swing.

    Parameters
    ----------
    inputs : Scenario
        A single scenario (scalar inputs).
    paths : sequence of str, optional
        Inputs to move; default ``sensitivity_paths(inputs)``.
    step_share : float
        Relative step, 0.1 = +/-10 % [-]. Moved values are clipped to each
        input's valid range (a utilisation of 0.95 moves up to 1, not 1.045).
    rent_option : str, optional
        Rent option the saving is measured against; default the one with the
        lowest NPV in the base scenario.
    base : Result, optional
        An already computed result of ``inputs``, to save one evaluation.

    Returns
    -------
    Tornado
        Rows sorted by swing, widest first.
    """
    if batch_shape(inputs) != ():
        raise ValueError("sensitivity needs a single scenario (scalar inputs)")
    base = base if base is not None else compute_result(inputs, detail=False)
    option_index = (
        int(base.cheapest_rent_index())
        if rent_option is None
        else [option.name for option in inputs.rent].index(rent_option)
    )
    paths = list(paths) if paths is not None else sensitivity_paths(inputs)
    if not paths:
        rows: tuple[SensitivityRow, ...] = ()
    else:
        declared = {
            f"{prefix}.{name}": (value, metadata)
            for prefix, section in input_sections(inputs)
            for name, value, metadata in numeric_fields(section)
        }
        # Paths naming a rent option by name (rent.aws-3y.price_usd_per_instance_hour) take the long way.
        located = {
            path: declared.get(path) or (get_input(inputs, path), input_metadata(inputs, path))
            for path in paths
        }
        values = {path: float(value) for path, (value, _) in located.items()}
        moved = {
            path: _moved_values(inputs, path, values[path], metadata, step_share)
            for path, (_, metadata) in located.items()
        }
        overrides = {}
        for position, path in enumerate(paths):
            column = np.full(2 * len(paths), values[path])
            column[2 * position : 2 * position + 2] = moved[path]
            overrides[path] = column
        # The moves are clipped into each input's range: only the checks between inputs remain.
        moved_saving = npv_saving_usd(with_overrides(inputs, overrides), option_index, ranges_checked=True)
        saving = np.broadcast_to(moved_saving, (2 * len(paths),)).tolist()
        rows = tuple(
            sorted(
                (
                    SensitivityRow(
                        path=path,
                        base_value=values[path],
                        low_value=moved[path][0],
                        high_value=moved[path][1],
                        saving_at_low_usd=saving[2 * position],
                        saving_at_high_usd=saving[2 * position + 1],
                    )
                    for position, path in enumerate(paths)
                ),
                key=lambda row: row.swing_usd,
                reverse=True,
            )
        )
    return Tornado(
        rent_option=inputs.rent[option_index].name,
        base_saving_usd=float(base.rent[option_index].npv_saving_usd),
        step_share=step_share,
        rows=rows,
    )


# Inputs bounded by another input (lower path, upper path): a moved value stays on its side.
_ORDERED_PAIRS = (("buy.system_power_idle_kw", "buy.system_power_max_kw"),)


def _moved_values(
    inputs: Scenario, path: str, value: float, metadata: Mapping[str, Any], step_share: float
) -> tuple[float, float]:
    """(low, high) values of one input (now at ``value``), clipped inside its valid range."""
    low, high = metadata["low"], metadata["high"]
    if metadata["low_open"]:
        low = math.nextafter(low, math.inf)
    if metadata["high_open"]:
        high = math.nextafter(high, -math.inf)
    for lower, upper in _ORDERED_PAIRS:
        if path == lower:
            high = min(high, float(get_input(inputs, upper)))
        elif path == upper:
            low = max(low, float(get_input(inputs, lower)))
    down, up = value * (1.0 - step_share), value * (1.0 + step_share)
    return min(max(down, low), high), min(max(up, low), high)
