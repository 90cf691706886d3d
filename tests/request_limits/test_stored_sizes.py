"""What a request stores is bounded, and a list reads summaries (issue 25, finding 1: 700,000
residual-curve points were accepted; 15 such scenarios made the list 156 MB and 26 s)."""
from __future__ import annotations

from dataclasses import replace

import pytest

import costmodel as engine
from core.limits import MAX_CURVE_POINTS
from tco.models import Scenario
from tests.tco.scenario_body import p5
from tests.tco.scenario_body import scenario_body

pytestmark = pytest.mark.django_db

# A curve at the limit: 241 points, from 0.9 down by 0.003 a month.
FULL_CURVE = [[month, round(0.9 - 0.003 * month, 4)] for month in range(MAX_CURVE_POINTS)]


def test_a_curve_over_the_limit_is_refused_naming_it_before_it_is_read(api, catalog):
    curve = [[month, 0.5] for month in range(50_000)]  # the probe sent 700,000: same answer

    response = api.post("/api/v1/scenarios/", scenario_body(residual_curve=curve),
                        content_type="application/json")

    assert response.status_code == 400
    assert response.json() == {"residual_curve": ["50,000 items; the curve limit is 241"]}
    assert not Scenario.objects.exists()


def test_the_engine_refuses_it_for_the_admin_and_the_commands_too():
    from costmodel.tests.scenarios import flat_scenario

    scenario = flat_scenario()
    curve = tuple((float(month), 0.5) for month in range(MAX_CURVE_POINTS + 1))

    with pytest.raises(engine.InputError, match="has 242 points; the curve limit is 241"):
        engine.validate(replace(scenario, buy=replace(scenario.buy, residual_curve=curve)))


def large_scenarios(api, count: int) -> None:
    """``count`` scenarios at the limits: 50 rent options, a 241-point curve, 240 months (one
    through the API, the others copied row by row: saving each through the API takes seconds)."""
    from tco.models import RentOption

    options = [{"name": f"p5 at ${50 + i}", "offering": p5().pk, "price_usd_per_instance_hour": str(50 + i)}
               for i in range(engine.MAX_RENT_OPTIONS)]
    created = api.post("/api/v1/scenarios/", scenario_body(
        name="large 0", residual_curve=FULL_CURVE, rent_options=options, horizon_months=240),
        content_type="application/json")
    assert created.status_code == 201, created.content[:500]
    original = Scenario.objects.get(pk=created.json()["id"])
    for number in range(1, count):
        copy = Scenario.objects.get(pk=original.pk)
        copy.pk, copy.name = None, f"large {number}"
        copy.save()
        RentOption.objects.bulk_create(
            RentOption(**{**{k: v for k, v in option.__dict__.items() if k != "_state"},
                          "id": None, "scenario_id": copy.pk})
            for option in original.rent_options.all())


def test_the_list_gives_summaries_and_the_scenario_its_details(api, catalog):
    large_scenarios(api, 15)

    listed = api.get("/api/v1/scenarios/")
    detail = api.get(listed.json()["results"][0]["url"])

    rows = listed.json()["results"]
    assert len(rows) == 15
    assert rows[0]["rent_options"] == 50 and rows[0]["api_options"] == 0
    assert "residual_curve" not in rows[0]
    # 15 summaries fit in a few kilobytes; each scenario alone carries its 50 options and curve.
    assert len(listed.content) < 15 * 1_000
    assert len(detail.json()["rent_options"]) == 50
    assert detail.json()["residual_curve"] == FULL_CURVE
