"""Issue 48's last bullet: a plan takes the scenario's rental curve and the next generation as
options, through the API, and names them in its rows.

The run scenario (tests/tco/conftest.py): 8 H100, electricity $0.10/kWh at PUE 1, nothing else
costs anything owned, no discounting; 730 h a month. Its curve: on demand $2.50, 12 months $2.00.
"""
from __future__ import annotations

import pytest
from django.core.management import call_command

from tco.models import ProcurementPlan
from tco.services.plans import plan_create

pytestmark = pytest.mark.django_db

URL = "/api/v1/plans/"
CURVE = """date,term,price,source
2026-10-01,on demand,2.50,GPU rental index
2026-10-01,12,2.00,Broker quote sheet
"""


@pytest.fixture
def curve(tmp_path, catalog):
    path = tmp_path / "curve.csv"
    path.write_text(CURVE)
    call_command("import_rental_curve", "h100-sxm-80gb", str(path))


def solve(api, scenario, spec, capture):
    with capture(execute=True):
        response = api.post(URL, {"scenario": scenario.pk, "name": "market", "spec": spec},
                            content_type="application/json")
    assert response.status_code == 202, response.json()
    return api.get(f"{response['Location']}result/").json()


def test_a_plan_locks_the_curves_term_and_buys_the_next_generation_from_its_month(
        api, run_scenario, curve, django_capture_on_commit_callbacks):
    spec = {"demand": {"table": [8] * 36}, "owned": [], "term_structure": {},
            "next_generation": {"available_month": 12, "system_price": 100_000}}
    result = solve(api, run_scenario, spec, django_capture_on_commit_callbacks)
    # Months 1-12 on the 12-month term: 8 x 730 h x $2.00 x 12 = $140,160. Then one B200 system
    # (seed 003: 3.33 times an H100's throughput, so 8 accelerators serve 26.67 of demand) ordered
    # at month 12 for $100,000, serving months 13-36 with the H100 system's power: idle 3.06 kW x
    # 73 = $223.38 a month, busy (10.2 - 3.06) kW x 73 x 8 / 26.67 = $156.366 a month, 24 months
    # $9,113.904. $249,273.90 in all, against $420,480 on the term for 36 months.
    orders = result["orders"]
    assert [(o["choice"], o["order_month"], o["in_service_month"], o["systems"]) for o in orders] == [
        ("B200 (next generation, from month 12)", 12, 13, 1)]
    assert [(c["choice"], c["start_month"], c["instances"]) for c in result["commitments"]] == [
        ("12-month term", 1, 8)]
    assert result["npv_usd"] == pytest.approx(140_160 + 100_000 + 24 * (223.38 + 156.366), abs=0.005)
    assert result["currency"] == "USD"
    assert {"name": "on-demand term", "kind": "on_demand"} in result["sources"]


@pytest.mark.parametrize(("spec", "field", "words"), [
    ({"next_generation": {"available_month": 40}}, "next_generation.available_month",
     "40 is outside the plan: a whole month from 0 to 35 (the horizon is 36 months, the lead time 0)"),
    ({"term_structure": {"terms": ["36"]}}, "term_structure.terms.0",
     "'36' is not a term of the curve (it offers on demand, 12 months)"),
])
def test_bad_market_options_are_refused_naming_the_field(api, run_scenario, curve, spec, field, words):
    response = api.post(URL, {"scenario": run_scenario.pk, "name": "bad", "spec": {"owned": [], **spec}},
                        content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"spec": {field: [words]}}


def test_a_scenario_without_a_curve_is_told_so(api, run_scenario):
    response = api.post(URL, {"scenario": run_scenario.pk, "name": "bad", "spec": {"term_structure": {}}},
                        content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"spec": {"term_structure": [
        "No rental curve for NVIDIA H100 SXM5 80GB: an administrator imports one from a CSV file of dates, "
        "terms, prices and sources."]}}


def test_the_plan_page_names_the_term_and_the_next_generation(
        admin_client, run_scenario, curve, django_capture_on_commit_callbacks):
    spec = {"demand": {"table": [8] * 36}, "owned": [], "term_structure": {},
            "next_generation": {"available_month": 12, "system_price": 100_000}}
    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_create(scenario=run_scenario, name="market", spec=spec)
    page = admin_client.get(f"/admin/tco/procurementplan/{plan.pk}/change/").content.decode()
    assert "<td>B200 (next generation, from month 12)</td><td>12</td><td>13</td>" in page
    assert "<td>12-month term</td>" in page
    assert "Terms of the rental curve</th><td>the defaults</td>" in page
    assert "Next generation › On sale from month</th><td>12</td>" in page


def test_the_plan_form_offers_the_curve_and_the_next_generation_and_names_a_bad_month(
        admin_client, run_scenario, curve):
    url = f"/admin/tco/procurementplan/add/?scenario={run_scenario.pk}"
    form = {"scenario": run_scenario.pk, "name": "market", "demand_kind": "table", "demand_table": "8 " * 36,
            "lead_time_months": 0, "existing_systems": 0, "draws": 0, "use_term_structure": "on",
            "next_generation_month": 40}
    refused = admin_client.post(url, form)
    assert refused.status_code == 200
    assert refused.context["form"].errors["next_generation_month"] == [
        "40 is outside the plan: a whole month from 0 to 35 (the horizon is 36 months, the lead time 0)"]
    answer = admin_client.post(url, {**form, "next_generation_month": 12})
    assert answer.status_code == 302, answer.context["form"].errors
    plan = ProcurementPlan.objects.get(name="market")
    assert plan.spec["term_structure"] == {} and plan.spec["rent"] == []
    assert plan.spec["next_generation"] == {"available_month": 12}
