"""The admin's list filters offer only what the user's own list refers to: beta's analyst never
reads alpha's team name, alpha's scenario name or alpha's quote sources in a "By ..." filter."""
from __future__ import annotations

from django.contrib.admin import FieldListFilter
from django.urls import reverse

from tests.teams.members import team


def filter_choices(response, field: str) -> list[str]:
    """The labels the changelist's "By <field>" filter, as its admin declares it, offers."""
    changelist = response.context["cl"]
    (declared,) = [entry for entry in changelist.model_admin.list_filter
                   if entry == field or (isinstance(entry, tuple) and entry[0] == field)]
    spec_class = declared[1] if isinstance(declared, tuple) else FieldListFilter.create
    spec = spec_class(changelist.model._meta.get_field(field), response.wsgi_request, {},
                      changelist.model, changelist.model_admin, field_path=field)
    return [label for _, label in spec.lookup_choices]


def test_scenarios_by_team_offers_the_users_teams_only(client, alpha_scenario, beta_scenario, outsider):
    client.force_login(outsider)

    response = client.get(reverse("admin:tco_scenario_changelist"))

    assert response.status_code == 200
    assert filter_choices(response, "team") == ["Beta"]
    assert "Alpha" not in response.content.decode()


def test_runs_by_scenario_offers_the_users_teams_scenarios_only(client, alpha_run, beta_scenario, outsider,
                                                                 analyst):
    client.force_login(outsider)
    theirs = client.get(reverse("admin:tco_sweeprun_changelist"))
    client.force_login(analyst)
    mine = client.get(reverse("admin:tco_sweeprun_changelist"))

    assert "8x H100 vs p5 (alpha)" not in theirs.content.decode()
    assert filter_choices(theirs, "scenario") == []
    assert filter_choices(mine, "scenario") == ["8x H100 vs p5 (alpha)"]


def test_a_filter_naming_another_teams_row_matches_nothing(client, alpha_scenario, beta_scenario, outsider):
    client.force_login(outsider)

    response = client.get(reverse("admin:tco_scenario_changelist"), {"team__id__exact": team("alpha").pk})

    assert response.context["cl"].result_count == 0
