"""A site in use: its feeds' power read through the API and the admin, a build fitted into it, and
a plan's limits read from it."""
from __future__ import annotations

import pytest

from sites.models import PowerFeed
from sites.models import Site
from sites.plan_sites import site_settings
from sites.plan_sites import with_site_rows
from tco.engine.plan.inputs import PlanInputError
from tests.teams.members import member

FEED_KW = 8.6464  # 208 V x 30 A x sqrt(3) x 0.8


def test_the_api_gives_each_feeds_power_and_each_racks_pair_once(client, imported_site):
    client.force_login(member("reader"))
    site = client.get(f"/api/v1/sites/{imported_site.pk}/").json()
    assert site["usable_kw"] == pytest.approx(2 * FEED_KW, abs=1e-4)
    r01 = next(rack for rack in site["racks"] if rack["name"] == "R01")
    assert r01["usable_kw"] == pytest.approx(FEED_KW, abs=1e-4)
    assert [(f["name"], f["type"], round(f["available_kw"], 2)) for f in r01["feeds"]] == [
        ("R01-A", "primary", 8.65), ("R01-B", "redundant", 8.65)]


def test_a_build_over_the_sites_feeds_is_refused_naming_the_feed_and_the_shortfall(client, imported_site):
    client.force_login(member("reader"))
    answer = client.post(f"/api/v1/sites/{imported_site.pk}/fit/", {"system": "dgx-b200", "systems": 1},
                         content_type="application/json")
    assert answer.status_code == 200
    fit = answer.json()
    assert fit["fits"] is False and fit["unplaced"] == 1
    (shortfall,) = fit["shortfalls"]
    assert shortfall["where"] == "feed 'R01-A' (rack R01, Hall 1)"
    assert shortfall["shortfall_kw"] == pytest.approx(12.0 - FEED_KW, abs=1e-4)
    assert "short by 3.35 kW" in shortfall["reason"]
    # Capped to 70 % (8.4 kW) it fits one system per rack; the site cools 12 kW, so the second is refused.
    fit = client.post(f"/api/v1/sites/{imported_site.pk}/fit/",
                      {"system": "dgx-b200", "systems": 2, "power_cap_share": "0.7"},
                      content_type="application/json").json()
    assert fit["placed"] == 1
    assert fit["shortfalls"][0]["where"] == "room Hall 1"


def test_a_fit_with_bad_input_answers_400_naming_the_field(client, imported_site):
    client.force_login(member("reader"))
    answer = client.post(f"/api/v1/sites/{imported_site.pk}/fit/", {"system": "dgx-b200", "systems": 0},
                         content_type="application/json")
    assert answer.status_code == 400 and "systems" in answer.json()


def test_the_admin_shows_usable_power_and_refuses_a_feed_to_another_sites_rack(admin_client, imported_site):
    page = admin_client.get(f"/admin/dcim_sites/site/{imported_site.pk}/change/").content.decode()
    assert "17.29 kW" in page and "R01-A (Primary, 8.65 kW)" in page
    other = Site.objects.create(name="Paris DC2", slug="par-dc2")
    rack = other.racks.create(name="P01")
    feed = PowerFeed.objects.get(name="R01-A")
    answer = admin_client.post(f"/admin/dcim_sites/powerfeed/{feed.pk}/change/", {
        "panel": feed.panel_id, "rack": rack.pk, "name": feed.name, "type": "primary", "supply": "ac",
        "phase": "three-phase", "voltage": "208", "amperage": "30", "max_utilisation": "1.5"})
    assert answer.status_code == 200
    errors = answer.context["adminform"].form.errors
    assert "is at site Paris DC2" in errors["rack"][0]
    assert "at most 1" in errors["max_utilisation"][0]
    feed.refresh_from_db()
    assert feed.rack.name == "R01"


def test_a_plans_site_reads_its_limits_and_prices_from_the_site(imported_site):
    settings = site_settings(imported_site)
    assert settings["name"] == "Frankfurt DC1"
    assert settings["it_power_kw"] == pytest.approx(2 * FEED_KW, abs=1e-4)
    assert settings["racks"] == 2
    assert settings["cooling_kw"] == {"air": 12.0}
    assert settings["facility"] == {"electricity_usd_per_kwh": 0.21, "pue": 1.35,
                                    "colocation_usd_per_kw_month": 180.0,
                                    "rack_power_limit_kw": pytest.approx(FEED_KW, abs=1e-4)}
    spec = with_site_rows({"sites": [{"site": "fra-dc1", "racks": 1, "facility": {"pue": 1.2}}]})
    (site,) = spec["sites"]
    assert site["racks"] == 1 and site["facility"]["pue"] == 1.2
    assert site["facility"]["electricity_usd_per_kwh"] == 0.21
    with pytest.raises(PlanInputError) as refused:
        with_site_rows({"sites": [{"site": "nowhere"}]})
    assert refused.value.path == "sites.0.site"
