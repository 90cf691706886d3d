"""Several scenarios side by side: the same figures as each scenario's own evaluation."""
from __future__ import annotations

import math

import pytest

from tests.teams.members import member

pytestmark = pytest.mark.django_db


def test_the_api_shows_each_scenario_as_its_own_evaluation_does(client, demo_scenarios):
    first = demo_scenarios["8x H100 training cluster"]
    second = demo_scenarios["Inference fleet: 32x L40S vs cloud"]
    client.force_login(member("viewer", of=first.team.slug))

    response = client.get(f"/api/v1/scenarios/side-by-side/?ids={first.pk},{second.pk}")

    assert response.status_code == 200, response.json()
    columns = response.json()
    assert [c["scenario_id"] for c in columns] == [first.pk, second.pk]
    for column, scenario in zip(columns, (first, second), strict=True):
        own = client.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/").json()["result"]
        assert math.isclose(column["buy_total_usd"], own["buy"]["total_usd"], rel_tol=1e-12)
        assert math.isclose(column["buy_npv_usd"], own["buy"]["npv_usd"], rel_tol=1e-12)
        cheapest = min(own["rent"], key=lambda option: option["npv_usd"])
        assert column["cheapest_rent"] == cheapest["name"]
        assert math.isclose(column["npv_saving_usd"], cheapest["npv_saving_usd"], rel_tol=1e-12)
        assert column["breakeven_month"] == cheapest["breakeven_month"]


def test_one_scenario_is_refused_naming_the_field(client, demo_scenarios):
    first = demo_scenarios["8x H100 training cluster"]
    client.force_login(member("viewer", of=first.team.slug))
    response = client.get(f"/api/v1/scenarios/side-by-side/?ids={first.pk}")
    assert response.status_code == 400
    assert "ids" in response.json()


def test_the_admin_action_shows_a_table_and_a_chart(admin_client, demo_scenarios):
    ids = [s.pk for s in demo_scenarios.values()][:2]
    response = admin_client.post("/admin/tco/scenario/", {
        "action": "side_by_side_selected", "_selected_action": ids})
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="side-by-side"' in page and "<svg" in page
    assert "NPV saving of buying" in page
