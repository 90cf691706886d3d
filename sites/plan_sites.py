"""A plan's sites read from the site rows: limits from their feeds, racks and cooling, their own prices.

A plan spec names a site by its slug, ``{"sites": [{"site": "fra-dc1"}]}``; each entry becomes
the engine's site settings (``costmodel.plan.spec``), and any setting the entry gives itself
(``it_power_kw``, ``racks``, ``cooling_kw``, ``facility``) wins over the site's.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from catalog.models import CoolingTechnology
from costmodel.plan.inputs import PlanInputError
from costmodel.sites import Feed
from costmodel.sites import rack_power_kw
from sites.models import Site


def site_settings(site: Site) -> dict[str, Any]:
    """The plan settings of one site: its usable IT power (feeds, each A/B pair once, capped by
    its IT capacity), its racks, its cooling per medium and its own prices."""
    rack_kw = [rack_power_kw([Feed(f.name, f.available_kw, f.type) for f in rack.feeds.all()])
               for rack in site.racks.prefetch_related("feeds")]
    powered = [kw for kw in rack_kw if kw > 0]
    limits = [float(site.it_capacity_kw)] if site.it_capacity_kw is not None else []
    if powered:
        limits.append(sum(powered))
    cooling: dict[str, float] = defaultdict(float)
    for row in site.cooling.select_related("technology"):
        if row.technology.medium:
            cooling[row.technology.medium] += float(row.capacity_kw)
    facility = {name: float(value) for name, value in (
        ("electricity_usd_per_kwh", site.electricity_usd_per_kwh), ("pue", site.pue),
        ("colocation_usd_per_kw_month", site.colocation_usd_per_kw_month)) if value is not None}
    if powered:
        # Every rack can hold what its weakest feed pair carries.
        facility["rack_power_limit_kw"] = min(powered)
    settings: dict[str, Any] = {"name": site.name, "facility": facility}
    if limits:
        settings["it_power_kw"] = min(limits)
    if rack_kw:
        settings["racks"] = len(rack_kw)
    if cooling:
        settings["cooling_kw"] = dict(cooling)
    return settings


def with_site_rows(spec: Any) -> Any:
    """The spec with each ``{"site": slug, ...}`` entry of ``sites`` filled from that site's row."""
    if not isinstance(spec, dict) or not isinstance(spec.get("sites"), list):
        return spec
    filled = []
    for index, entry in enumerate(spec["sites"]):
        if not isinstance(entry, dict) or "site" not in entry:
            filled.append(entry)
            continue
        site = Site.objects.filter(slug=entry["site"]).first()
        if site is None:
            raise PlanInputError(f"sites.{index}.site", f"no site has the slug {entry['site']!r}")
        own = {key: value for key, value in entry.items() if key != "site"}
        settings = site_settings(site)
        facility = {**settings.get("facility", {}), **own.pop("facility", {})}
        filled.append({**settings, **own, "facility": facility})
    return {**spec, "sites": filled}


def cooling_media() -> dict[str, str]:
    """Each catalog cooling technology's name and the medium it serves (where the catalog says)."""
    return {row.name: row.medium for row in CoolingTechnology.objects.exclude(medium="")}
