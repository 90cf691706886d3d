"""Throughput an accelerator loses under a power cap, read from the catalog's table.

The catalog holds measured points per accelerator (seed 003 for the H100 SXM:
700 W 0 %, 600 W 5-8 %, 500 W 15-25 %, 400 W 30-50 %). Between two points the
loss is interpolated linearly, low and high bounds each; at or above the TDP it
is 0; below the lowest point there is no figure to stand on, so it is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from costmodel.inputs import InputError


@dataclass(frozen=True)
class CapPoint:
    """One row of the table: at ``power_limit_w`` the throughput is lower by a share in [low, high]."""

    power_limit_w: float
    loss_low: float
    loss_high: float
    source: str = ""


@dataclass(frozen=True)
class CapLoss:
    """The loss at a cap: its range, the midpoint the model uses, and the rows it came from."""

    cap_w: float
    loss_low: float
    loss_high: float
    sources: tuple[str, ...]

    @property
    def loss(self) -> float:
        """Midpoint of the range: the figure the cost model uses [-]."""
        return (self.loss_low + self.loss_high) / 2.0

    def describe(self) -> str:
        """The assumption as people read it: 'at 600 W: 5-8 % lower throughput (seed-003)'."""
        sources = ", ".join(dict.fromkeys(s for s in self.sources if s)) or "catalog"
        return (f"at {self.cap_w:,.0f} W: {100 * self.loss_low:.4g}-{100 * self.loss_high:.4g} % lower "
                f"throughput, {100 * self.loss:.4g} % used ({sources})")


def cap_loss(cap_w: float, tdp_w: float, table: Sequence[CapPoint]) -> CapLoss:
    """Throughput loss at a power cap of ``cap_w`` watts on an accelerator of ``tdp_w`` watts.

    The TDP itself counts as a point with no loss. ``InputError`` on ``power_cap_w``
    when the cap is 0 or less, or below the lowest point the table has.

    Examples
    --------
    >>> h100 = [CapPoint(600, 0.05, 0.08, "seed-003"), CapPoint(500, 0.15, 0.25, "seed-003"),
    ...         CapPoint(400, 0.30, 0.50, "seed-003")]
    >>> at600 = cap_loss(600, 700, h100)
    >>> (at600.loss_low, at600.loss_high, round(at600.loss, 4))
    (0.05, 0.08, 0.065)
    >>> at550 = cap_loss(550, 700, h100)
    >>> round(at550.loss_low, 4), round(at550.loss_high, 4)
    (0.1, 0.165)
    >>> round(cap_loss(650, 700, h100).loss_high, 4)
    0.04
    """
    if not cap_w > 0:
        raise InputError("power_cap_w", f"must be above 0 W, got {cap_w:g}")
    points = sorted([CapPoint(tdp_w, 0.0, 0.0), *(p for p in table if p.power_limit_w < tdp_w)],
                    key=lambda p: p.power_limit_w)
    if cap_w >= tdp_w:
        return CapLoss(cap_w, 0.0, 0.0, ())
    if cap_w < points[0].power_limit_w:
        lowest = points[0].power_limit_w
        raise InputError("power_cap_w", f"{cap_w:,.0f} W is below the catalog's lowest measured cap "
                                        f"({lowest:,.0f} W); give the throughput loss you measured")
    for point in points:
        if point.power_limit_w == cap_w:
            return CapLoss(cap_w, point.loss_low, point.loss_high, (point.source,))
    for below, above in zip(points, points[1:], strict=False):
        if below.power_limit_w < cap_w < above.power_limit_w:
            t = (cap_w - below.power_limit_w) / (above.power_limit_w - below.power_limit_w)
            return CapLoss(
                cap_w,
                below.loss_low + t * (above.loss_low - below.loss_low),
                below.loss_high + t * (above.loss_high - below.loss_high),
                (below.source, above.source),
            )
    raise AssertionError("unreachable: the cap lies between the lowest point and the TDP")
