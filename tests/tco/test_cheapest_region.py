"""An offering is one row per provider, instance type, region and pricing model, whatever fed
its prices; a rent option names one region or asks for the cheapest one.

The catalog's AWS p5.48xlarge on-demand has no region in its sources ('unspecified'); its price
in force today is seed-003's $6.88 per GPU-hour x 8 = $55.04 an hour (as of 2026-06-18).
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.models import Source
from tco.models import RentOption
from tco.models import Scenario
from tco.services.evaluation import scenario_evaluate
from tco.services.evaluation_cache import evaluation_key
from tco.services.repricing import scenario_snapshot_save

P5_NAME = "AWS p5.48xlarge (8x H100 SXM5 80 GB), cheapest region, on-demand"


def _h100(demo_scenarios) -> Scenario:
    return demo_scenarios["8x H100 training cluster"]


def _p5(region: str = "unspecified") -> CloudOffering:
    return CloudOffering.objects.get(provider="aws", instance_type="p5.48xlarge", region=region,
                                     pricing_model="on_demand")


def _regional_p5(region: str, amount: str) -> PricePoint:
    """A public price of p5.48xlarge on-demand in ``region``, as of yesterday."""
    catalog = _p5()
    offering, _ = CloudOffering.objects.get_or_create(
        provider="aws", instance_type="p5.48xlarge", region=region, pricing_model="on_demand",
        defaults={"accelerator": catalog.accelerator, "accelerators_per_instance": 8})
    source, _ = Source.objects.get_or_create(key="test-aws-list", defaults={
        "title": "AWS list prices (test)", "kind": "cloud_price_api"})
    return PricePoint.objects.create(offering=offering, amount=Decimal(amount), source=source,
                                     as_of=timezone.localdate() - dt.timedelta(days=1),
                                     retrieved_at=timezone.now())


def _aws_option(evaluation):
    (price,) = [p for p in evaluation.prices if p.path == "rent.0.price_usd_per_instance_hour"]
    (assumption,) = [a for a in evaluation.assumptions
                     if a.path == "rent.0.price_usd_per_instance_hour"]
    return price, assumption


def test_lambda_offerings_are_global_as_the_lambda_feed_writes_them(catalog):
    # Lambda prices an instance type once for all regions: one row, the seed's price in it.
    (offering,) = CloudOffering.objects.filter(provider="lambda", instance_type="gpu_8x_h100_sxm5")
    assert offering.region == "global"
    assert offering.prices.get().amount == Decimal("26.80")  # seed-004


def test_without_a_regional_price_the_cheapest_region_is_the_catalogs_own(demo_scenarios):
    option = _h100(demo_scenarios).rent_options.get(cheapest_region=True)
    assert str(option) == P5_NAME

    price, assumption = _aws_option(scenario_evaluate(scenario=_h100(demo_scenarios)))

    assert (price.amount, price.source, price.as_of) == (Decimal("55.04"), "seed-003",
                                                          dt.date(2026, 6, 18))
    assert price.target == "AWS p5.48xlarge (8x H100 SXM5 80 GB), on-demand"
    assert assumption.source.startswith(
        f"cheapest region on {timezone.localdate()}: region not stated by the source at $55.04/h;")


def test_the_cheapest_region_is_chosen_and_named(demo_scenarios):
    west = _regional_p5("us-west-2", "50")
    _regional_p5("us-east-1", "60")

    evaluation = scenario_evaluate(scenario=_h100(demo_scenarios))
    price, assumption = _aws_option(evaluation)

    assert (price.price_point_id, price.amount) == (west.pk, Decimal("50"))
    assert price.target == "AWS p5.48xlarge (8x H100 SXM5 80 GB), us-west-2, on-demand"
    # A region with a price beats the catalog's region-less $55.04; the others are listed.
    assert assumption.source.startswith(
        f"cheapest region on {timezone.localdate()}: us-west-2 at $50.00/h; also us-east-1 "
        "$60.00/h, region not stated by the source $55.04/h; price point")
    # The option keeps its name whichever region is cheapest.
    assert P5_NAME in evaluation.result.summary()
    # Every hour held (issue 23: on-demand's default; it was 80 % of them, 584 h, $29,200):
    # 730 h a month at $50, $36,500.
    (rent, *_) = evaluation.result.rent
    assert rent.cash_flows.lines_usd["compute"][1] == pytest.approx(730 * 50)


def test_a_named_region_keeps_its_own_price(demo_scenarios):
    _regional_p5("us-west-2", "50")
    option = RentOption(offering=_p5())

    price, _ = _aws_option(scenario_evaluate(scenario=_h100(demo_scenarios), rent_options=[option]))

    assert (price.amount, price.source) == (Decimal("55.04"), "seed-003")


def test_a_quoted_price_in_the_cheapest_region_is_refused_and_nothing_is_saved(demo_scenarios,
                                                                               admin_client):
    scenario = _h100(demo_scenarios)
    before = list(scenario.rent_options.values_list("pk", flat=True))
    answer = admin_client.put(f"/api/v1/scenarios/{scenario.pk}/", {
        "name": scenario.name, "team": "demo", "revision": scenario.revision,
        "accelerator": "h100-sxm-80gb", "accelerators": 8, "utilisation": "0.8",
        "system": "dgx-h100", "facility": "colo-air",
        "rent_options": [{"offering": _p5().pk, "cheapest_region": True,
                          "price_usd_per_instance_hour": "40"}]}, content_type="application/json")

    assert answer.status_code == 400, answer.content
    (message,) = answer.json()["rent_options"]["0"]["cheapest_region"]
    assert message.startswith("a quoted price is one region's price")
    assert list(scenario.rent_options.values_list("pk", flat=True)) == before
    with pytest.raises(ValidationError) as refused:
        RentOption(scenario=scenario, offering=_p5(), cheapest_region=True,
                   price_usd_per_instance_hour=Decimal("40")).full_clean()
    assert set(refused.value.message_dict) == {"cheapest_region"}


def test_a_snapshot_records_the_region_the_option_was_priced_in(demo_scenarios):
    west = _regional_p5("us-west-2", "50")
    scenario = _h100(demo_scenarios)

    snapshot = scenario_snapshot_save(scenario=scenario, evaluation=scenario_evaluate(scenario=scenario))

    row = snapshot.options[0]
    assert (row["name"], row["price_point_id"], row["price_usd_per_instance_hour"]) == (
        P5_NAME, west.pk, "50.0000")
    assert row["offering_id"] == _h100(demo_scenarios).rent_options.get(cheapest_region=True).offering_id


def test_the_admin_page_is_rendered_again_when_another_region_is_priced(demo_scenarios):
    scenario = _h100(demo_scenarios)
    before = evaluation_key(scenario)

    _regional_p5("us-west-2", "50")  # a region the scenario's rent options do not name

    assert evaluation_key(scenario) != before
