"""Issue 49: a scenario whose site is in one jurisdiction and whose rent option is in another is
warned about, naming both; an option in the site's jurisdiction is not."""

from __future__ import annotations

from decimal import Decimal

from tests.teams.members import member


def _scenario_at(site, offering):
    """8 H100s in DGX H100s at the site, capped to 80 % so one fits a rack's 8.65 kW, against
    ``offering`` at a stated price."""
    from catalog.models import Accelerator
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
        site=site, power_cap_share=Decimal("0.8"), horizon_months=36)
    return scenario_save(scenario=scenario, rent_options=[
        RentOption(offering=offering, price_usd_per_instance_hour=Decimal("50"))])


def _jurisdiction_warnings(site, offering):
    from tco.services.evaluation import scenario_evaluate

    evaluation = scenario_evaluate(scenario=_scenario_at(site, offering), pinned=False)
    return [w.message for w in evaluation.warnings if w.code == "region_jurisdiction"]


def test_a_frankfurt_site_against_a_us_east_1_offering_warns_naming_both(imported_site):
    from catalog.models import CloudOffering

    imported_site.country = "DE"
    imported_site.save()
    spot = CloudOffering.objects.get(provider="aws", instance_type="p5.48xlarge", region="us-east-1",
                                     pricing_model="spot")
    (warning,) = _jurisdiction_warnings(imported_site, spot)
    assert warning.startswith("The site Frankfurt DC1 is in Germany (EU), but AWS p5.48xlarge "
                              "(8x H100 SXM5 80 GB), us-east-1, spot is rented in us-east-1 "
                              "(N. Virginia, the United States)")
    assert "data residency and egress differ" in warning


def test_an_offering_in_the_sites_jurisdiction_is_not_warned_about(imported_site):
    from catalog.models import CloudOffering

    imported_site.country = "DE"
    imported_site.save()
    # Google's europe-west4 is in the Netherlands: another country, the same (EU) jurisdiction.
    a3 = CloudOffering.objects.get(provider="gcp", instance_type="a3-highgpu-8g",
                                   region="europe-west4", pricing_model="on_demand")
    assert _jurisdiction_warnings(imported_site, a3) == []
