"""Fitting a build of one catalog system into a site's racks, feeds and rooms (``costmodel.sites``)."""
from __future__ import annotations

import math
from collections import defaultdict

from catalog.models import SystemSku
from costmodel.sites import Feed
from costmodel.sites import Rack
from costmodel.sites import Room
from costmodel.sites import SiteFit
from costmodel.sites import System
from costmodel.sites import SystemCooling
from costmodel.sites import fit_build
from sites.models import Site


def site_racks(site: Site) -> list[Rack]:
    """The site's rack positions with their feeds, as the engine reads them."""
    return [Rack(rack.name, rack.room.name if rack.room else "", float(rack.units),
                 tuple(Feed(feed.name, feed.available_kw, feed.type) for feed in rack.feeds.all()))
            for rack in site.racks.select_related("room").prefetch_related("feeds")]


def site_rooms(site: Site) -> list[Room]:
    """The site's rooms; the site's cooling capacity per medium is shared by the rooms cooled by it.

    A rack outside any room is placed in an unnamed room cooled by air.
    """
    capacity: dict[str, float] = defaultdict(float)
    for row in site.cooling.select_related("technology"):
        if row.technology.medium:
            capacity[row.technology.medium] += float(row.capacity_kw)
    rooms = [(room.name, room.medium) for room in site.rooms.all()]
    if site.racks.filter(room__isnull=True).exists():
        rooms.append(("", "air"))
    media = [medium for _, medium in rooms]
    # Split a medium's capacity evenly over the rooms it cools (the DCIM has no per-room figure).
    share = {medium: capacity[medium] / media.count(medium) for medium in capacity if medium in media}
    return [Room(name, medium, share.get(medium, math.inf)) for name, medium in rooms]


def fit_system(site: Site, system: SystemSku, count: int, power_cap_share: float = 1.0) -> SiteFit:
    """Place ``count`` of ``system`` (after a power cap) at ``site``; what does not fit says why."""
    unit = System(system.label, float(system.power_max_kw) * power_cap_share, float(system.rack_units or 1),
                  system.cooling or SystemCooling.EITHER)
    return fit_build(unit, count, site_racks(site), site_rooms(site))
