"""A site in use: its feeds' power read through the API and the admin, a build fitted into it, and
a plan's limits read from it."""
from __future__ import annotations

import pytest

from costmodel.plan.inputs import PlanInputError
from sites.models import PowerFeed
from sites.models import Site
from sites.plan_sites import site_settings
from sites.plan_sites import with_site_rows
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
    assert shortfall["shortfall_kw"] == pytest.approx(12.0 - FEED_KW, abs=5e-4)  # to the watt
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


def _scenario_at(site, *, power_cap_share="1"):
    """8 H100s in DGX H100s (10.2 kW each) at the site, its prices left to the site."""
    from decimal import Decimal

    from catalog.models import Accelerator
    from catalog.models import CloudOffering
    from catalog.models import FacilityProfile
    from catalog.models import SystemSku
    from tco.models import RentOption
    from tco.models import Scenario
    from tco.services.scenarios import scenario_save

    planner = member("planner")
    scenario = Scenario(
        team=planner.memberships.get().team, owner=planner, name="8x H100 at Frankfurt",
        accelerator=Accelerator.objects.get(slug="h100-sxm-80gb"), accelerators=8,
        utilisation=Decimal("1"), system=SystemSku.objects.get(slug="dgx-h100"),
        system_price_usd=Decimal("400000"), facility=FacilityProfile.objects.get(slug="colo-air"),
        site=site, power_cap_share=Decimal(power_cap_share), horizon_months=36,
        discount_rate_per_year=Decimal("0"), depreciation_months=60)
    p5 = CloudOffering.objects.get(provider="aws", instance_type="p5.48xlarge", pricing_model="on_demand")
    return scenario_save(scenario=scenario, rent_options=[
        RentOption(name="p5 on demand", offering=p5, price_usd_per_instance_hour=Decimal("50"))])


def test_a_scenario_at_a_site_over_its_feeds_is_refused_naming_the_feed_and_the_shortfall(imported_site):
    from tco.services.engine_inputs import ScenarioInputError
    from tco.services.evaluation import scenario_evaluate

    scenario = _scenario_at(imported_site)
    with pytest.raises(ScenarioInputError) as refused:
        scenario_evaluate(scenario=scenario, pinned=False)
    # One DGX H100 draws 10.2 kW; the best rack's A/B pair carries 8.65 kW.
    assert refused.value.field == "site"
    assert "1 of 1 NVIDIA DGX H100 (8x H100 SXM5 80 GB) do not fit site Frankfurt DC1" in str(refused.value)
    assert "feed 'R01-A' (rack R01, Hall 1): gives 8.65 kW; one NVIDIA DGX H100" in str(refused.value)
    assert "short by 1.55 kW" in str(refused.value)


def test_a_scenario_at_a_site_takes_its_prices_and_rack_power_and_warns_what_does_not_fit(imported_site):
    from tco.services.evaluation import scenario_evaluate

    # Capped to 80 % (8.16 kW) a DGX H100 fits a rack's 8.65 kW. The cap's catalog loss (at 560 W:
    # 9-14.8 %, 11.9 % used) needs 8 / 0.881 = 9.1 accelerators: 2 systems. The site cools 12 kW of
    # air-cooled IT, so the second (16.32 kW in all) is warned about, naming the room.
    evaluation = scenario_evaluate(scenario=_scenario_at(imported_site, power_cap_share="0.8"), pinned=False)
    by_path = {a.path: a for a in evaluation.assumptions}
    electricity = by_path["facility.electricity_usd_per_kwh"]
    assert (electricity.value, electricity.origin, electricity.source) == (
        0.21, "site", "site Frankfurt DC1: electricity_usd_per_kwh")
    assert by_path["facility.pue"].value == 1.35
    assert by_path["facility.colocation_usd_per_kw_month"].value == 180.0
    limit = by_path["facility.rack_power_limit_kw"]
    assert limit.origin == "site" and limit.value == pytest.approx(FEED_KW, abs=1e-4)
    assert "rack R01's feeds (R01-A, R01-B) carry 8.65 kW with each A/B pair counted once" in limit.source
    assert float(evaluation.result.footprint.systems) == 2
    (warning,) = [w for w in evaluation.warnings if w.code == "does_not_fit_site"]
    assert warning.message.startswith("1 of 2 NVIDIA DGX H100 (8x H100 SXM5 80 GB) do not fit site "
                                      "Frankfurt DC1 (1 placed in 1 racks): room Hall 1: cools 12.00 kW")


def test_a_change_at_a_site_evaluates_its_scenarios_again_though_their_figures_were_cached(imported_site):
    from decimal import Decimal

    from django.core.cache import cache

    from sites.models import PowerPanel
    from sites.models import Room
    from tco.admin.result import scenario_result
    from tco.services.evaluation_cache import evaluation_key

    cache.clear()
    scenario = _scenario_at(imported_site, power_cap_share="0.8")
    keys = [evaluation_key(scenario)]
    first = scenario_result(scenario)

    # The site's own price, saved twice from the same instance (a revision read before is never
    # written back), then a feed two rows down, a room, and a panel deleted with its feeds.
    imported_site.electricity_usd_per_kwh = Decimal("0.42")
    imported_site.save()
    keys.append(evaluation_key(scenario))
    imported_site.save(update_fields=["pue"])
    keys.append(evaluation_key(scenario))
    dearer = scenario_result(scenario)
    feed = PowerFeed.objects.get(name="R01-A")
    feed.amperage = Decimal("32")
    feed.save()
    keys.append(evaluation_key(scenario))
    Room.objects.filter(site=imported_site).first().save()
    keys.append(evaluation_key(scenario))
    PowerPanel.objects.filter(site=imported_site).first().delete()
    keys.append(evaluation_key(scenario))

    assert len(set(keys)) == len(keys) == 6
    assert evaluation_key(scenario) == keys[-1]  # nothing changed since: the same key
    # The page shows the site's new price, and buying saves less by the dearer energy: 2 systems
    # capped to 8.16 kW x PUE 1.35 x 730 h x 36 months x $0.21 more = $121,590.20 (no
    # discounting). The cached page would have shown the old figures.
    assert "<td>Electricity price</td><td class=\"num\">$0.420</td>" in dearer["result_html"]
    assert (first["npv_saving"], dearer["npv_saving"]) == ("$286,656.20", "$165,066.00")


def test_power_figures_in_the_api_are_rounded_to_the_watt(client, imported_site):
    client.force_login(member("reader"))
    site = client.get(f"/api/v1/sites/{imported_site.pk}/").json()
    r01 = next(rack for rack in site["racks"] if rack["name"] == "R01")
    # 8.6464 kW: 208 V x 30 A x sqrt 3 x 0.8
    assert [f["available_kw"] for f in r01["feeds"]] == [8.646, 8.646]
    fit = client.post(f"/api/v1/sites/{imported_site.pk}/fit/", {"system": "dgx-b200", "systems": 1},
                      content_type="application/json").json()
    assert fit["shortfalls"][0]["shortfall_kw"] == 3.354  # 12 kW - 8.6464 kW
