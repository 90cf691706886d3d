"""A filter by scenario answers the same for another team's scenario as for one that does not exist."""
from __future__ import annotations

import pytest

from tests.teams.members import member

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("url", ["/api/v1/report-exports/", "/api/v1/price-alerts/", "/api/v1/plans/"])
def test_another_teams_scenario_id_and_an_unknown_one_look_the_same(client, demo_scenarios, url):
    other_teams = next(iter(demo_scenarios.values())).pk
    client.force_login(member("outsider", of="elsewhere"))

    theirs = client.get(url, {"scenario": other_teams})
    unknown = client.get(url, {"scenario": 999_999})

    assert (theirs.status_code, unknown.status_code) == (200, 200)
    assert theirs.json()["results"] == unknown.json()["results"] == []
