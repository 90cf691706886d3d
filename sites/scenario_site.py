"""What a scenario placed at a site takes from it: the power of its racks, and whether the build fits."""
from __future__ import annotations

from catalog.models import SystemSku
from costmodel.sites import rack_power_kw
from sites.fit import fit_system
from sites.fit import site_racks
from sites.models import Site


def site_rack_limit_kw(site: Site) -> tuple[float, str] | None:
    """The power every powered rack of the site can carry (its weakest A/B pair) and why, or None
    when no rack has a feed."""
    powered = [(rack_power_kw(rack.feeds), rack) for rack in site_racks(site) if rack.feeds]
    if not powered:
        return None
    kw, rack = min(powered, key=lambda item: item[0])
    feeds = ", ".join(f.name for f in rack.feeds)
    return kw, (f"site {site}: rack {rack.name}'s feeds ({feeds}) carry {kw:,.2f} kW with each A/B pair "
                f"counted once, the least of its {len(powered)} powered racks")


def site_fit_problem(site: Site, system: SystemSku, systems: int,
                     power_cap_share: float) -> tuple[str, int] | None:
    """A sentence saying what of the build does not fit the site and how many systems do, or None
    when all of it fits."""
    if system.power_max_kw is None:
        return None
    fit = fit_system(site, system, systems, power_cap_share)
    if fit.fits:
        return None
    reasons = "; ".join(str(shortfall) for shortfall in fit.shortfalls)
    return (f"{fit.unplaced} of {systems} {system.label} do not fit site {site} "
            f"({fit.placed} placed in {fit.racks_used} racks): {reasons}."), fit.placed
