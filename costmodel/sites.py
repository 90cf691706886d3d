"""A site's power and cooling as the DCIM models them, and fitting a build into them.

Power follows NetBox's power feed: a feed's available power is
voltage x amperage x maximum utilisation (x sqrt(3) for three-phase). Feeds of
type ``redundant`` are the B side of an A/B (N+N) pair: the load must survive
losing either side, so a rack's usable power is the smaller of its A side and
its B side, never their sum.

Cooling: each room cools with air or liquid up to a capacity in kW; a system is
air-cooled, liquid-cooled (needs liquid) or either. An air-cooled system is never
placed in a liquid-only room, a liquid-only system never in an air room.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from enum import StrEnum
from typing import TypeVar

from costmodel.inputs import InputError

W_PER_KW = 1000.0
T = TypeVar("T")


class Phase(StrEnum):
    """A feed's phases, spelled as NetBox spells them."""

    SINGLE = "single-phase"
    THREE = "three-phase"


class FeedType(StrEnum):
    """The A side (``primary``) or the B side (``redundant``) of a rack's power."""

    PRIMARY = "primary"
    REDUNDANT = "redundant"


class Medium(StrEnum):
    """What carries a system's or a room's heat away."""

    AIR = "air"
    LIQUID = "liquid"


class SystemCooling(StrEnum):
    """What a system needs: air, liquid, or either."""

    AIR = "air"
    LIQUID = "liquid"
    EITHER = "either"


def feed_available_kw(voltage_v: float, amperage_a: float, phase: Phase | str,
                      max_utilisation: float) -> float:
    """Power a feed can carry continuously [kW], as NetBox computes ``available_power``.

    Raises ``InputError`` naming the field for a voltage or amperage of 0 or less
    or a utilisation outside (0, 1].

    Examples
    --------
    208 V, 30 A, three-phase, breaker at 80 %: 208 x 30 x sqrt(3) x 0.8 W

    >>> round(feed_available_kw(208, 30, "three-phase", 0.8), 2)
    8.65
    >>> round(feed_available_kw(230, 32, "single-phase", 0.8), 3)
    5.888
    """
    if not voltage_v > 0:
        raise InputError("voltage", f"must be above 0 V, got {voltage_v:g}")
    if not amperage_a > 0:
        raise InputError("amperage", f"must be above 0 A, got {amperage_a:g}")
    if not 0 < max_utilisation <= 1:
        raise InputError("max_utilisation", f"must be a share above 0 and at most 1, got {max_utilisation:g}")
    phases = math.sqrt(3.0) if Phase(phase) == Phase.THREE else 1.0
    return voltage_v * amperage_a * phases * max_utilisation / W_PER_KW


@dataclass(frozen=True)
class Feed:
    """One power feed, with the power it can carry [kW]."""

    name: str
    available_kw: float
    type: FeedType | str = FeedType.PRIMARY


@dataclass(frozen=True)
class Rack:
    """A rack position: its room's cooling, its height and the feeds that power it."""

    name: str
    room: str
    units: float
    feeds: tuple[Feed, ...]


@dataclass(frozen=True)
class Room:
    """A room (NetBox location) and the heat it can carry away [kW]."""

    name: str
    medium: Medium | str
    cooling_kw: float = math.inf


@dataclass(frozen=True)
class System:
    """The system a build places: its draw after any cap, height and cooling."""

    name: str
    power_kw: float
    rack_units: float
    cooling: SystemCooling | str = SystemCooling.EITHER


def rack_power_kw(feeds: Sequence[Feed]) -> float:
    """Usable power of a rack's feeds [kW]: an A/B pair counts once (the smaller side).

    Examples
    --------
    >>> a, b = Feed("A", 8.65), Feed("B", 8.65, "redundant")
    >>> round(rack_power_kw([a, b]), 2)
    8.65
    >>> round(rack_power_kw([a, Feed("A2", 8.65)]), 2)
    17.3
    """
    primary = sum(f.available_kw for f in feeds if FeedType(f.type) == FeedType.PRIMARY)
    redundant = [f.available_kw for f in feeds if FeedType(f.type) == FeedType.REDUNDANT]
    return min(primary, sum(redundant)) if redundant else primary


def site_power_kw(racks: Sequence[Rack]) -> float:
    """Usable power of all a site's racks [kW] (each A/B pair once)."""
    return sum(rack_power_kw(rack.feeds) for rack in racks)


def fits_medium(system: SystemCooling | str, room: Medium | str) -> bool:
    """Whether a system's cooling can run in a room cooled by ``room``.

    >>> fits_medium("air", "liquid"), fits_medium("either", "liquid"), fits_medium("liquid", "air")
    (False, True, False)
    """
    needed = SystemCooling(system)
    return needed == SystemCooling.EITHER or needed.value == Medium(room).value


@dataclass(frozen=True)
class Placement:
    """Systems placed in one rack and the power they draw there."""

    rack: str
    room: str
    systems: int
    kw: float
    available_kw: float


@dataclass(frozen=True)
class Shortfall:
    """Why some systems found no place: where, what limits it and by how much [kW]."""

    where: str
    reason: str
    shortfall_kw: float

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass(frozen=True)
class SiteFit:
    """Where a build's systems go at a site, and what does not fit."""

    placements: tuple[Placement, ...]
    unplaced: int
    shortfalls: tuple[Shortfall, ...] = field(default=())

    @property
    def fits(self) -> bool:
        return self.unplaced == 0

    @property
    def placed(self) -> int:
        return sum(p.systems for p in self.placements)

    @property
    def racks_used(self) -> int:
        return sum(1 for p in self.placements if p.systems)

    @property
    def kw_per_rack(self) -> float:
        """Draw of the densest rack used [kW]."""
        return max((p.kw for p in self.placements), default=0.0)


def fit_build(system: System, count: int, racks: Sequence[Rack], rooms: Sequence[Room]) -> SiteFit:
    """Place ``count`` systems into a site's racks, each rack as full as its feeds, height and room allow.

    Racks are filled in the order given. Racks in a room whose cooling does not
    suit the system are skipped; a room takes no more heat than its cooling
    capacity. What does not fit is reported per limiting feed, rack or room with
    the shortfall in kW (the power the unplaced systems would need there).

    Examples
    --------
    One DGX B200 (12 kW) on a rack fed by one 208 V / 30 A three-phase A/B pair at 80 %:

    >>> pair = (Feed("R1-A", 8.65), Feed("R1-B", 8.65, "redundant"))
    >>> fit = fit_build(System("DGX B200", 12.0, 10, "air"), 1, [Rack("R1", "Hall 1", 42, pair)],
    ...                 [Room("Hall 1", "air")])
    >>> fit.fits, str(fit.shortfalls[0])
    (False, "feed 'R1-A' (rack R1, Hall 1): gives 8.65 kW; one DGX B200 needs 12.00 kW, short by 3.35 kW")
    """
    by_room = {room.name: room for room in rooms}
    cooling_left = {room.name: room.cooling_kw for room in rooms}
    placements: list[Placement] = []
    spare: list[tuple[Rack, float]] = []  # racks that suit the system, and the power they have left
    left = count
    for rack in racks:
        room = by_room.get(rack.room)
        if room is None or not fits_medium(system.cooling, room.medium):
            continue
        available = rack_power_kw(rack.feeds)
        by_units = math.floor(rack.units / system.rack_units + 1e-9)
        by_power = math.floor(available / system.power_kw + 1e-9)
        by_cooling = math.floor(cooling_left[rack.room] / system.power_kw + 1e-9) if math.isfinite(
            cooling_left[rack.room]) else by_units
        here = max(0, min(left, by_units, by_power, by_cooling))
        if here:
            placements.append(Placement(rack.name, rack.room, here, here * system.power_kw, available))
            cooling_left[rack.room] -= here * system.power_kw
            left -= here
        spare.append((rack, available - here * system.power_kw))
        if not left:
            break
    return SiteFit(tuple(placements), left, _shortfalls(system, left, rooms, cooling_left, spare))


def _shortfalls(system: System, left: int, rooms: Sequence[Room], cooling_left: dict[str, float],
                spare: list[tuple[Rack, float]]) -> tuple[Shortfall, ...]:
    """Why ``left`` systems found no place: no room with their cooling; no rack whose feeds have
    power for one more (named by the rack with the most to spare); a room out of cooling."""
    if not left:
        return ()
    need = left * system.power_kw
    what = f"one {system.name}" if left == 1 else f"{left} more {system.name}"
    suited = [room for room in rooms if fits_medium(system.cooling, room.medium)]
    if not suited:
        media = ", ".join(sorted({str(Medium(room.medium)) for room in rooms})) or "no"
        return (Shortfall("site", f"{system.name} needs {SystemCooling(system.cooling)} cooling; the site's "
                                  f"rooms offer {media} cooling only", need),)
    found: list[Shortfall] = []
    most = max(spare, key=lambda item: item[1], default=None)
    if most is not None and most[1] < system.power_kw:
        rack, kw = most
        primary = [f for f in rack.feeds if FeedType(f.type) == FeedType.PRIMARY] or list(rack.feeds)
        where = (f"feed '{primary[0].name}' (rack {rack.name}, {rack.room})" if primary
                 else f"rack {rack.name} ({rack.room})")
        found.append(Shortfall(where, f"gives {kw:.2f} kW; {what} needs {need:.2f} kW, short by "
                                      f"{need - kw:.2f} kW", need - kw))
    for room in suited:
        cooling_spare = cooling_left[room.name]
        if math.isfinite(room.cooling_kw) and cooling_spare < system.power_kw:
            reason = (f"cools {room.cooling_kw:.2f} kW of {Medium(room.medium)}-cooled IT, "
                      f"{cooling_spare:.2f} kW left; {what} needs {need:.2f} kW")
            found.append(Shortfall(f"room {room.name}", reason, need - cooling_spare))
    if not found:
        found.append(Shortfall("site", f"no rack left with room for {what} ({need:.2f} kW)", need))
    return tuple(found)


def suited_cooling(system: SystemCooling | str,
                   tiers: Sequence[tuple[Medium | str | None, T]]) -> tuple[T, ...]:
    """The cooling tiers, each given with the medium it serves (None: any), that suit a system's cooling.

    >>> suited_cooling("air", [("air", "CRAC"), ("air", "rear door"), ("liquid", "cold plate")])
    ('CRAC', 'rear door')
    >>> suited_cooling("either", [("air", "CRAC"), ("liquid", "cold plate")])
    ('CRAC', 'cold plate')
    """
    return tuple(tier for medium, tier in tiers if medium is None or fits_medium(system, medium))
