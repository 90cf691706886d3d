"""POST /evaluate/ picks the team as saving does and says whose prices it used (issue 25,
finding 10): a person who is an analyst of alpha and a viewer of beta got public prices from
/evaluate/ ($55.04/h for the p5) while saving the same body put it in alpha at alpha's quote
($40/h)."""
from __future__ import annotations

import pytest

from teams.models import Membership
from teams.models import Role
from teams.models import Team
from tests.teams.conftest import client_of
from tests.teams.conftest import p5_on_demand
from tests.teams.conftest import scenario_body
from tests.teams.members import member
from tests.teams.members import team
from tests.teams.test_team_quotes import ON
from tests.teams.test_team_quotes import alpha_quote  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_teams(db):
    """Analyst of alpha, viewer of beta."""
    person = member("dual", of="alpha", role=Role.ANALYST)
    Membership.objects.create(user=person, team=team("beta"), role=Role.VIEWER)
    return person


def test_evaluate_prices_with_the_team_saving_would_pick(alpha_quote, two_teams):  # noqa: F811
    api = client_of(two_teams)
    body = scenario_body(prices_as_of=ON, rent_options=[{"offering": p5_on_demand().pk}])

    evaluated = api.post("/api/v1/evaluate/", body, format="json").json()
    created = api.post("/api/v1/scenarios/", body, format="json").json()
    saved = api.post(f"/api/v1/scenarios/{created['id']}/evaluate/").json()

    assert created["team"] == "alpha"
    assert [p["amount"] for p in evaluated["prices"]] == [p["amount"] for p in saved["prices"]] == ["40.0000"]
    assert evaluated["result"]["summary"] == saved["result"]["summary"]
    assert evaluated["priced_for"] == {"team": "alpha",
                                       "prices": "Alpha's quotes beside public prices"}


def test_evaluate_asks_for_the_team_when_saving_would(alpha_quote, two_teams):  # noqa: F811
    Membership.objects.filter(user=two_teams, team__slug="beta").update(role=Role.ANALYST)
    api = client_of(two_teams)
    body = scenario_body(prices_as_of=ON, rent_options=[{"offering": p5_on_demand().pk}])

    evaluated = api.post("/api/v1/evaluate/", body, format="json")
    saved = api.post("/api/v1/scenarios/", body, format="json")

    assert evaluated.status_code == saved.status_code == 400
    assert evaluated.json()["team"] == saved.json()["team"] == ["name the team: one of alpha, beta"]


def test_a_viewer_of_one_team_evaluates_with_its_prices_and_is_told(alpha_quote):  # noqa: F811
    api = client_of(member("vee", of="alpha", role=Role.VIEWER))
    body = scenario_body(prices_as_of=ON, rent_options=[{"offering": p5_on_demand().pk}])

    evaluated = api.post("/api/v1/evaluate/", body, format="json").json()

    assert [p["amount"] for p in evaluated["prices"]] == ["40.0000"]
    assert evaluated["priced_for"]["team"] == "alpha"


def test_someone_in_no_team_is_told_public_prices_only(catalog):
    from django.contrib.auth import get_user_model

    api = client_of(get_user_model().objects.create_user("loner", password="pw"))
    body = scenario_body(prices_as_of=ON, rent_options=[{"offering": p5_on_demand().pk}])

    evaluated = api.post("/api/v1/evaluate/", body, format="json").json()

    assert [p["amount"] for p in evaluated["prices"]] == ["55.0400"]
    assert evaluated["priced_for"] == {"team": None, "prices": "public prices only"}


def test_a_superuser_in_one_team_creates_there_without_naming_it_among_several_teams(alpha_quote):  # noqa: F811
    team("beta")  # a second team exists: a superuser may act in both
    boss = member("boss", of="alpha", is_superuser=True, is_staff=True)
    api = client_of(boss)
    body = scenario_body(prices_as_of=ON, rent_options=[{"offering": p5_on_demand().pk}])

    evaluated = api.post("/api/v1/evaluate/", body, format="json")
    created = api.post("/api/v1/scenarios/", body, format="json")

    assert (evaluated.status_code, created.status_code) == (200, 201)
    assert created.json()["team"] == "alpha" and evaluated.json()["priced_for"]["team"] == "alpha"


def test_a_superuser_in_no_team_among_many_is_told_the_choices_and_the_schema_says_the_rule(catalog):
    from teams.selectors import DEFAULT_TEAM_RULE

    for number in range(1, 13):
        team(f"t{number:02}")
    from django.contrib.auth import get_user_model

    api = client_of(get_user_model().objects.create_superuser("root", password="pw"))
    body = scenario_body(prices_as_of=ON, rent_options=[{"offering": p5_on_demand().pk}])

    evaluated = api.post("/api/v1/evaluate/", body, format="json")
    created = api.post("/api/v1/scenarios/", body, format="json")
    named = api.post("/api/v1/scenarios/", {**body, "team": "t12"}, format="json")
    schema = api.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]

    slugs = sorted(Team.objects.values_list("slug", flat=True))  # t01..t12 and the catalog's
    choices = f"name the team: one of {', '.join(slugs[:10])} and {len(slugs) - 10} more"
    assert evaluated.status_code == created.status_code == 400
    assert evaluated.json()["team"] == created.json()["team"] == [choices]
    assert named.status_code == 201 and named.json()["team"] == "t12"
    assert DEFAULT_TEAM_RULE in schema["ScenarioRequest"]["properties"]["team"]["description"]
