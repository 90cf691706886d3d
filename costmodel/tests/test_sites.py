"""A site's feeds, racks and rooms, and fitting a build into them (figures worked by hand)."""

import math

import pytest

from costmodel.inputs import InputError
from costmodel.sites import Feed
from costmodel.sites import Rack
from costmodel.sites import Room
from costmodel.sites import System
from costmodel.sites import feed_available_kw
from costmodel.sites import fit_build
from costmodel.sites import rack_power_kw
from costmodel.sites import site_power_kw

# 208 V x 30 A x sqrt(3) x 0.8 = 8,646.4 W
FEED_KW = 208 * 30 * math.sqrt(3) * 0.8 / 1000
DGX_B200 = System("DGX B200", 12.0, 10, "air")


def test_a_208_v_30_a_three_phase_feed_at_80_percent_gives_8_65_kw():
    assert feed_available_kw(208, 30, "three-phase", 0.8) == pytest.approx(8.6464, abs=1e-4)
    assert round(feed_available_kw(208, 30, "three-phase", 0.8), 2) == 8.65
    # Single phase: no sqrt(3). 230 V x 16 A x 0.8 = 2,944 W
    assert feed_available_kw(230, 16, "single-phase", 0.8) == pytest.approx(2.944)


@pytest.mark.parametrize(("voltage", "amperage", "utilisation", "field"), [
    (0, 30, 0.8, "voltage"), (-208, 30, 0.8, "voltage"), (208, 0, 0.8, "amperage"),
    (208, 30, 0.0, "max_utilisation"), (208, 30, 1.2, "max_utilisation"),
])
def test_a_feed_with_no_voltage_amperage_or_a_utilisation_outside_0_1_is_refused(
        voltage, amperage, utilisation, field):
    with pytest.raises(InputError) as refused:
        feed_available_kw(voltage, amperage, "three-phase", utilisation)
    assert refused.value.path == field


def test_an_a_b_pair_counts_once():
    pair = [Feed("R1-A", FEED_KW), Feed("R1-B", FEED_KW, "redundant")]
    assert rack_power_kw(pair) == pytest.approx(FEED_KW)
    # Two A feeds add up; with a smaller B side the pair carries only what B can.
    assert rack_power_kw([Feed("A1", FEED_KW), Feed("A2", FEED_KW)]) == pytest.approx(2 * FEED_KW)
    assert rack_power_kw([Feed("A", FEED_KW), Feed("B", 5.0, "redundant")]) == pytest.approx(5.0)
    racks = [Rack("R1", "Hall 1", 42, tuple(pair)), Rack("R2", "Hall 1", 42, tuple(pair))]
    assert site_power_kw(racks) == pytest.approx(2 * FEED_KW)


def test_a_build_over_the_sites_feeds_is_refused_naming_the_feed_and_the_shortfall():
    pair = (Feed("R1-A", FEED_KW), Feed("R1-B", FEED_KW, "redundant"))
    fit = fit_build(DGX_B200, 1, [Rack("R1", "Hall 1", 42, pair)], [Room("Hall 1", "air")])
    assert not fit.fits and fit.unplaced == 1
    (shortfall,) = fit.shortfalls
    # One 12 kW system against 8.65 kW: short by 12 - 8.6464 = 3.35 kW.
    assert shortfall.shortfall_kw == pytest.approx(12.0 - FEED_KW)
    assert str(shortfall) == ("feed 'R1-A' (rack R1, Hall 1): gives 8.65 kW; one DGX B200 needs "
                              "12.00 kW, short by 3.35 kW")


def test_racks_take_what_their_feeds_units_and_room_allow():
    # 4 x 8.65 kW A feeds = 34.6 kW: two 12 kW systems (three need 36 kW).
    feeds = tuple(Feed(f"R1-A{i}", FEED_KW) for i in range(4))
    fit = fit_build(DGX_B200, 2, [Rack("R1", "Hall 1", 42, feeds)], [Room("Hall 1", "air")])
    assert fit.fits and fit.placed == 2 and fit.kw_per_rack == 24.0
    # A third system needs 12 kW where 34.6 - 24 = 10.6 kW are left.
    fit = fit_build(DGX_B200, 3, [Rack("R1", "Hall 1", 42, feeds)], [Room("Hall 1", "air")])
    assert fit.placed == 2 and fit.unplaced == 1
    assert fit.shortfalls[0].shortfall_kw == pytest.approx(12.0 - (4 * FEED_KW - 24.0))


def test_an_air_cooled_system_is_never_placed_in_a_liquid_room():
    feeds = (Feed("L1-A", 100.0),)
    rooms = [Room("Liquid hall", "liquid")]
    fit = fit_build(DGX_B200, 1, [Rack("L1", "Liquid hall", 42, feeds)], rooms)
    assert fit.placed == 0
    assert "needs air cooling; the site's rooms offer liquid cooling only" in str(fit.shortfalls[0])
    # It goes to the air room instead, even when the liquid rack comes first.
    racks = [Rack("L1", "Liquid hall", 42, feeds), Rack("A1", "Air hall", 42, feeds)]
    fit = fit_build(DGX_B200, 1, racks, [*rooms, Room("Air hall", "air")])
    assert fit.fits and fit.placements[0].rack == "A1"
    # A liquid-only system never goes to an air room.
    gb200 = System("GB200 NVL72", 120.0, 48, "liquid")
    fit = fit_build(gb200, 1, [Rack("A1", "Air hall", 48, (Feed("A", 150.0),))], [Room("Air hall", "air")])
    assert fit.placed == 0 and "needs liquid cooling" in str(fit.shortfalls[0])


def test_a_room_takes_no_more_heat_than_it_can_cool():
    feeds = (Feed("R-A", 100.0),)
    racks = [Rack("R1", "Hall 1", 52, feeds), Rack("R2", "Hall 1", 52, feeds)]
    # 50 kW of air cooling: four 12 kW systems (48 kW), the fifth is refused naming the room.
    fit = fit_build(DGX_B200, 5, racks, [Room("Hall 1", "air", cooling_kw=50.0)])
    assert fit.placed == 4 and fit.unplaced == 1
    assert str(fit.shortfalls[0]).startswith("room Hall 1: cools 50.00 kW of air-cooled IT, 2.00 kW left")
    assert fit.shortfalls[0].shortfall_kw == pytest.approx(10.0)
