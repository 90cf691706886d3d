"""Issue 49: the shipped catalog answers the purchases people compare: the hyperscaler instances in
a US and a European region with their committed terms, per-token APIs of the major providers and
open-model hosts, and the rack-scale and 8-GPU platforms large buyers price, each figure sourced
and dated, or the row says which figure has no public source."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import pytest

from catalog.models import CloudOffering
from catalog.models import SystemPowerFigure
from catalog.models import SystemSku
from catalog.models import TokenApiPrice
from catalog.regions import EU_COUNTRIES
from catalog.regions import place_of
from catalog.selectors import price_at

HYPERSCALERS = ("aws", "azure", "gcp")
EUROPE = EU_COUNTRIES | {"GB"}
ON = dt.date(2026, 11, 28)


def _sourced_prices(accelerator: str, pricing_models: tuple[str, ...]):
    """(offering, country, price) of every public hyperscaler offering of the accelerator under
    the pricing models whose region the catalog can place and that has a dated, sourced price."""
    rows = CloudOffering.objects.filter(provider__in=HYPERSCALERS, accelerator__slug=accelerator,
                                        pricing_model__in=pricing_models, team__isnull=True)
    found = []
    for offering in rows:
        place, price = place_of(offering.region), price_at(offering, on=ON)
        if place is not None and price is not None and price.source.key and price.as_of:
            found.append((offering, place.country, price))
    return found


@pytest.mark.parametrize("accelerator", ["h100-sxm-80gb", "h200-sxm-141gb", "b200-sxm-192gb"])
def test_a_hyperscaler_rents_it_on_demand_in_a_us_and_a_european_region(catalog, accelerator):
    countries = {country for _, country, _ in _sourced_prices(accelerator, ("on_demand",))}
    assert "US" in countries
    assert countries & EUROPE


def test_the_european_b200_is_googles_a4_at_eight_gpu_slices(catalog):
    """SkyPilot's Google list: A4's machine row is 0.0 (a slice includes its vCPUs and memory)
    and its B200 x 8 row in europe-west4 is $90.216/h, i.e. 8 x $11.277 per GPU-hour."""
    a4 = CloudOffering.objects.get(provider="gcp", instance_type="a4-highgpu-8g",
                                   region="europe-west4", pricing_model="on_demand")
    price = price_at(a4, on=ON)
    assert (price.amount, price.amount / 8) == (Decimal("90.216"), Decimal("11.277"))
    assert (price.source.key, price.as_of) == ("skypilot-catalog-gcp-v8", dt.date(2026, 11, 28))
    assert place_of(a4.region).country == "NL"
    nebius = CloudOffering.objects.get(provider="nebius", accelerator__slug="b200-sxm-192gb",
                                       region="us-central1", pricing_model="on_demand")
    assert price_at(nebius, on=ON).amount == Decimal("44.00")  # $5.50 per GPU-hour x 8


def test_a_committed_term_is_priced_in_a_us_and_a_european_region(catalog):
    committed = _sourced_prices("h100-sxm-80gb", ("reserved_1y", "reserved_3y"))
    countries = {country for _, country, _ in committed}
    assert "US" in countries and countries & EUROPE
    frankfurt = CloudOffering.objects.get(provider="gcp", instance_type="a3-highgpu-8g",
                                          region="europe-west3", pricing_model="reserved_3y")
    price = price_at(frankfurt, on=ON)
    # pricing.yml europe-west3 month_3y 33,482.096556 per 730-hour month = $45.8659/h
    assert price.amount == Decimal("45.8659")
    assert (price.source.key, price.as_of) == ("cyclenerd-gcp-pricing-2026-07-30", dt.date(2026, 7, 30))


def test_per_token_prices_of_at_least_four_providers_with_cached_input(catalog):
    real = TokenApiPrice.objects.filter(is_example=False)
    providers = set(real.values_list("provider", flat=True))
    assert {"OpenAI", "Anthropic", "Google"} <= providers
    assert len(providers) >= 4
    gpt = real.get(provider="OpenAI", model_name="GPT-4o")
    # gpt-4o: input_cost_per_token 2.5e-06, cache_read 1.25e-06, output 1e-05 (per million: x 1e6)
    assert (gpt.usd_per_million_input, gpt.usd_per_million_cached_input,
            gpt.usd_per_million_output) == (Decimal("2.5"), Decimal("1.25"), Decimal("10"))
    assert (gpt.source.key, gpt.as_of) == ("litellm-1-110-2", dt.date(2026, 11, 20))


def test_open_model_hosts_say_which_model_they_serve(catalog):
    hosts = set(TokenApiPrice.objects.filter(serves_model="llama-3.1-8b")
                .values_list("provider", flat=True))
    assert {"Together AI", "DeepInfra", "AWS Bedrock"} <= hosts
    assert not TokenApiPrice.objects.filter(provider="OpenAI").exclude(serves_model="").exists()


@pytest.mark.parametrize(("slug", "cooling", "power_kw"), [
    ("gb300-nvl72", "liquid", Decimal("120")),
    ("mi355x-8gpu-server", "liquid", Decimal("15.8")),
])
def test_gb300_nvl72_and_an_mi355x_platform_have_sourced_power_and_say_the_price_has_none(
        catalog, slug, cooling, power_kw):
    system = SystemSku.objects.get(slug=slug)
    assert (system.power_max_kw, system.cooling, system.rack_units is not None) == (power_kw, cooling, True)
    assert system.field_sources["power_max_kw"]
    assert system.purchase_price_low_usd is None and not system.prices.exists()
    assert "Purchase price: no public figure found" in system.notes


@pytest.mark.parametrize("slug", ["gb300-nvl72", "mi355x-8gpu-server"])
def test_a_scenario_costs_the_platform_at_its_quoted_price(catalog, slug):
    from catalog.models import FacilityProfile
    from tco.models import Scenario
    from tco.services.evaluation import scenario_evaluate
    from tests.teams.members import member

    system = SystemSku.objects.get(slug=slug)
    planner = member("planner")
    scenario = Scenario(
        team=planner.memberships.get().team, owner=planner, name=f"a {slug}",
        accelerator=system.accelerator, accelerators=system.accelerators_per_system,
        utilisation=Decimal("0.8"), system=system, system_price_usd=Decimal("3000000"),
        facility=FacilityProfile.objects.get(slug="colo-liquid-ready"), horizon_months=36)
    scenario.save()
    evaluation = scenario_evaluate(scenario=scenario, pinned=False)
    by_path = {a.path: a for a in evaluation.assumptions}
    assert by_path["buy.system_power_max_kw"].value == float(system.power_max_kw)
    assert by_path["buy.system_price_usd"].value == 3_000_000


def test_a_vendor_power_figure_stands_beside_the_seeds_derived_one(catalog):
    dgx = SystemSku.objects.get(slug="dgx-b200")
    vendor = SystemPowerFigure.objects.get(system=dgx, source__key="nvidia-dgx-b200-user-guide")
    # seed-003's 72 kW / 6 systems = 12.0 kW is costed; NVIDIA lists 14.3 kW max: 2.3 kW more.
    assert (dgx.power_max_kw, vendor.power_max_kw, vendor.difference_kw) == (
        Decimal("12.0"), Decimal("14.3"), Decimal("2.3"))


def test_every_system_has_its_cooling_set(catalog):
    assert not SystemSku.objects.filter(cooling="").exists()
    assert SystemSku.objects.get(slug="dgx-h100").cooling == "air"
    assert SystemSku.objects.get(slug="hgx-h100-8gpu-server").cooling == "either"


def test_the_coverage_page_shows_per_accelerator_who_prices_it_where_and_how_old(admin_client, catalog):
    page = admin_client.get("/admin/catalog/cloudoffering/coverage/").content.decode()
    h100 = page[page.index('id="h100-sxm-80gb"'):page.index('id="h200-sxm-141gb"')]
    # Google's A3 High 3-year commitment in Frankfurt: $45.8659/h for 8 GPUs = $5.7332 per GPU-hour,
    # dated 2026-07-30 by its list.
    cells = re.search(r">a3-highgpu-8g</a></td>\s*<td>europe-west3 \(Frankfurt, Germany \(EU\)\)</td>"
                      r"\s*<td>reserved 3 years</td>\s*<td>([^<]*)</td>\s*<td>([^<]*)</td>", h100)
    assert cells.groups() == ("$5.7332", "July 30, 2026")
    assert "Google Cloud" in h100 and "Nebius" in h100
    h200 = page[page.index('id="h200-sxm-141gb"'):]
    assert "Standard_ND96isr_H200_v5" in h200 and "no price" in h200  # listed, lacking a price


def test_the_system_page_shows_the_vendor_power_beside_the_costed_figure(admin_client, catalog):
    dgx = SystemSku.objects.get(slug="dgx-b200")
    page = admin_client.get(f"/admin/catalog/systemsku/{dgx.pk}/change/").content.decode()
    assert "+2.300 kW (+19%) against the 12.000 kW costed" in page
    assert "nvidia-dgx-b200-user-guide" in page


@pytest.mark.parametrize(("model", "warned"), [("Llama 3.1 70B Instruct Turbo", True),
                                               ("Llama 3.1 8B Instruct Turbo", False)])
def test_a_host_of_another_open_model_is_warned_about(demo_scenarios, model, warned):
    from tco.models import ApiOption
    from tco.services.evaluation import scenario_evaluate

    scenario = demo_scenarios["Inference fleet: 32x L40S vs cloud"]  # sized for llama-3.1-8b
    ApiOption.objects.create(scenario=scenario,
                             price=TokenApiPrice.objects.get(provider="Together AI", model_name=model))
    evaluation = scenario_evaluate(scenario=scenario, pinned=False)
    messages = [w.message for w in evaluation.warnings if w.code == "api_other_model"]
    expected = [("Together AI Llama 3.1 70B Instruct Turbo serves llama-3.1-70b, but the build is "
                 "sized for llama-3.1-8b: its tokens are not like for like.")]
    assert [m[:len(expected[0])] for m in messages] == (expected if warned else [])
