"""What the catalog says about a system beyond its price: the cooling it needs, its power cap's cost.

Both feed the engine's inputs (``engine_inputs``): the cooling tiers a system may use and
the rack density they allow, and the throughput a power cap costs when the scenario does
not say.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from catalog.models import AcceleratorPowerCap
from catalog.models import CoolingTechnology
from catalog.models import SystemSku
from costmodel.power_caps import CapLoss
from costmodel.power_caps import CapPoint
from costmodel.power_caps import cap_loss
from costmodel.sites import SystemCooling
from costmodel.sites import suited_cooling


@dataclass(frozen=True)
class CooledRackLimit:
    """A rack power limit lowered to what the system's kind of cooling handles."""

    kw: float
    reason: str


def cooling_technologies_for(system: SystemSku) -> list[CoolingTechnology]:
    """The catalog's cooling technologies that suit ``system``'s cooling, by increasing density
    (may be empty)."""
    rows = sorted(CoolingTechnology.objects.all(),
                  key=lambda t: math.inf if t.max_kw_per_rack is None else t.max_kw_per_rack)
    return list(suited_cooling(system.cooling or SystemCooling.EITHER,
                               [(row.medium or None, row) for row in rows]))


def cooled_rack_limit(system: SystemSku, technologies: list[CoolingTechnology],
                      rack_limit_kw: float) -> CooledRackLimit | None:
    """The rack limit when the system's cooling cannot reach ``rack_limit_kw`` (None when it can)."""
    if system.cooling in ("", SystemCooling.EITHER) or not technologies:
        return None
    densest = technologies[-1]
    if densest.max_kw_per_rack is None or densest.max_kw_per_rack >= rack_limit_kw:
        return None
    kw = float(densest.max_kw_per_rack)
    return CooledRackLimit(
        kw,
        f"the facility's {rack_limit_kw:g} kW per rack, limited to {kw:g} kW: {system.label} is "
        f"{system.get_cooling_display().lower()} (catalog system {system}: "
        f"{', '.join(system.field_sources.get('cooling', [])) or 'catalog'}) and the densest "
        f"{system.cooling} cooling in the catalog, {densest.name}, handles {kw:g} kW per rack")


def catalog_cap_loss(system: SystemSku, power_cap_share: float) -> CapLoss | None:
    """The catalog's throughput loss at the accelerator's TDP x ``power_cap_share`` (None when the
    accelerator has no TDP or no power-cap table). ``InputError`` when the cap lies below the table."""
    accelerator = system.accelerator
    if power_cap_share >= 1 or not accelerator.tdp_w:
        return None
    table = [CapPoint(row.power_limit_w, float(row.throughput_loss_pct_low) / 100,
                      float(row.throughput_loss_pct_high) / 100, str(row.source.key))
             for row in AcceleratorPowerCap.objects.filter(accelerator=accelerator).select_related("source")]
    if not table:
        return None
    return cap_loss(round(accelerator.tdp_w * power_cap_share, 6), float(accelerator.tdp_w), table)


