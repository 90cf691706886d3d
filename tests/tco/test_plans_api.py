"""The plans API: create (202), solve and poll, the result, and 400s naming the field.

The run scenario (tests/tco/conftest.py): one DGX H100 at $400,000 against a p5.48xlarge on
demand at $50/h, utilisation 1, no discounting. A system's 8 accelerators cost $36,500 a month
on demand and $744.60 a month of energy owned, so owning pays for itself after 11 months.
"""
from __future__ import annotations

import pytest

from costmodel.plan import make_plan
from tco.models import PlanStatus
from tco.models import ProcurementPlan
from tco.services.plans import scenario_plan_inputs

pytestmark = pytest.mark.django_db

URL = "/api/v1/plans/"
GROWING = {"demand": {"start": 8, "growth_per_month": 0.05, "months": 36},
           "owned": [{"name": "DGX H100", "lead_time_months": 4}]}


def post(api, scenario, spec, **extra):
    return api.post(URL, {"scenario": scenario.pk, "name": "growth", "spec": spec, **extra},
                    content_type="application/json")


def test_a_plan_is_solved_as_a_job_and_its_result_read(api, run_scenario, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = post(api, run_scenario, GROWING)

    assert response.status_code == 202, response.json()
    polled = api.get(response["Location"]).json()
    assert polled["status"] == "done"
    result = api.get(f"{response['Location']}result/").json()
    direct = make_plan(scenario_plan_inputs(run_scenario, GROWING)).figures
    assert result["npv_usd"] == pytest.approx(direct["npv_usd"], abs=0.01)
    # a 4-month lead time: nothing owned serves before month 5, on demand serves months 1-4
    assert result["orders"][0]["order_month"] == 0 and result["orders"][0]["in_service_month"] == 5
    assert result["capacity_accelerators"]["DGX H100"][:4] == [0.0] * 4
    assert result["capacity_accelerators"]["p5 on demand"][:4] == [8.0, 8.4, 8.82, 9.261]
    assert result["baselines"]["all_rent"]["npv_usd"] > result["npv_usd"]


def test_the_result_is_refused_until_the_plan_is_solved(api, run_scenario):
    response = post(api, run_scenario, GROWING)  # the solve is queued on commit, which never comes here
    assert api.get(f"{response['Location']}result/").status_code == 409


@pytest.mark.parametrize(("spec", "field"), [
    ({"demand": {"table": [8, 8, -1, 8]}}, "demand"),
    ({"demand": {"start": -8}}, "demand.start"),
    ({"demand": {"months": 12}, "owned": [{"lead_time_months": 12}]}, "owned.0.lead_time_months"),
    ({"owned": [], "rent": []}, "owned"),
    ({"rent": [{"name": "no such offer"}]}, "rent.0.name"),
    ({"limits": {"min_owned_share": 2}}, "limits.min_owned_share"),
    ({"uncertainty": {"draws": 0}}, "uncertainty.draws"),
])
def test_bad_specs_are_refused_naming_the_field_and_nothing_is_saved(api, run_scenario, spec, field):
    response = post(api, run_scenario, spec)
    assert response.status_code == 400
    assert field in response.json()["spec"], response.json()
    assert not ProcurementPlan.objects.exists()


def test_demand_comes_from_an_uploaded_csv(api, run_scenario, django_capture_on_commit_callbacks):
    import io
    import json

    upload = io.BytesIO(b"month,accelerators\n1,8\n2,16\n3,16\n")
    upload.name = "demand.csv"
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(URL, {"scenario": run_scenario.pk, "name": "csv", "spec": json.dumps({}),
                                  "demand_csv": upload})
    assert response.status_code == 202, response.json()
    plan = ProcurementPlan.objects.get()
    assert plan.spec["demand"] == {"table": [8.0, 16.0, 16.0]}
    assert plan.status == PlanStatus.DONE


def test_another_teams_plans_are_not_found(client, run_scenario, django_capture_on_commit_callbacks):
    from tests.teams.members import member

    with django_capture_on_commit_callbacks(execute=True):
        client.force_login(run_scenario.owner)
        plan_url = post(client, run_scenario, GROWING)["Location"]
    client.force_login(member("outsider", of="other"))
    assert client.get(plan_url).status_code == 404
    assert post(client, run_scenario, GROWING).status_code == 400  # the scenario is not theirs


@pytest.mark.parametrize(("basis", "total"), [
    ("", 1_314_000.00),  # on demand held for the workload: $50 x 730 h x 36 months
    ("used", 1_051_200.00),  # billed for the hours used: $50 x 730 h x 0.8 x 36 months
])
def test_a_plan_of_the_scenarios_one_rent_option_costs_what_the_scenario_says(run_scenario, basis, total):
    from decimal import Decimal

    from tco.services.evaluation import scenario_evaluate

    run_scenario.utilisation = Decimal("0.8")
    run_scenario.save()
    run_scenario.rent_options.update(billing_basis=basis)
    rented = scenario_evaluate(scenario=run_scenario).result.rent[0]
    spec = {"demand": {"months": 36}, "owned": [], "rent": [{"name": "p5 on demand"}]}
    plan = make_plan(scenario_plan_inputs(run_scenario, spec)).figures
    assert round(float(rented.total_usd), 2) == total
    assert round(plan["total_usd"], 2) == total
    assert round(plan["npv_usd"], 2) == round(float(rented.npv_usd), 2)
