"""NUL and other control characters in any text a request sends: a 400 (or a form error) naming
the field, never a 500 from PostgreSQL ("text fields cannot contain NUL")."""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from core.limits import MAX_BODY_TEXT_CHARS
from tests.tco.scenario_body import scenario_body

pytestmark = pytest.mark.django_db

NUL_REASON = "This text holds the control character NUL (U+0000) at character 4"


@pytest.mark.parametrize("field", ["system", "accelerator", "facility", "team"])
@pytest.mark.parametrize("url", ["/api/v1/evaluate/", "/api/v1/scenarios/"])
def test_a_nul_in_a_slug_is_a_400_naming_the_field(api, catalog, url, field):
    response = api.post(url, scenario_body(**{field: "dgx\x00"}), content_type="application/json")

    assert response.status_code == 400
    assert response.json()[field][0].startswith(NUL_REASON)


def test_sizing_refuses_a_nul_in_the_accelerator(api, catalog):
    response = api.post("/api/v1/sizing/", {"accelerator": "h10\x00", "workload": {}},
                        content_type="application/json")

    assert response.status_code == 400
    assert response.json() == {"accelerator": [
        "This text holds the control character NUL (U+0000) at character 4; text may hold "
        "letters, digits, punctuation, tabs and line breaks."]}


def test_a_control_character_deep_in_the_body_is_named_by_its_path(api, catalog):
    body = scenario_body()
    body["rent_options"][0]["name"] = "p5\x07"

    response = api.post("/api/v1/scenarios/", body, content_type="application/json")

    assert response.status_code == 400
    assert response.json()["rent_options"]["0"]["name"][0].startswith(
        "This text holds the control character BEL (U+0007) at character 3")


def test_tabs_and_line_breaks_are_text(api, catalog):
    response = api.post("/api/v1/scenarios/", scenario_body(description="line one\r\n\tline two"),
                        content_type="application/json")

    assert response.status_code == 201


def test_a_string_longer_than_any_field_takes_is_refused_naming_the_limit(api, catalog):
    response = api.post("/api/v1/evaluate/", scenario_body(name="x" * (MAX_BODY_TEXT_CHARS + 1)),
                        content_type="application/json")

    assert response.status_code == 400
    assert response.json() == {"name": ["This text has 100,001 characters; the limit is 100,000."]}


def test_a_form_body_is_checked_too(api, catalog):
    response = api.post("/api/v1/evaluate/", {"name": "a\x00b"})  # multipart

    assert response.status_code == 400
    assert response.json()["name"][0].startswith("This text holds the control character NUL")


def test_a_query_parameter_with_a_nul_is_a_400_naming_it(client, catalog):
    response = client.get("/api/v1/offerings/", {"provider": "aws\x00", "price_at": "2026-11-01"})

    assert response.status_code == 400
    assert response.json() == {"provider": [
        "This text holds the control character NUL (U+0000) at character 4; text may hold "
        "letters, digits, punctuation, tabs and line breaks."]}


def test_the_admin_gives_a_form_error_naming_the_field(admin_client):
    response = admin_client.post("/admin/teams/team/add/", {"name": "Ops\x1b", "slug": "ops"})

    assert response.status_code == 200  # the form again, with its error
    errors = response.context["adminform"].form.errors
    assert errors["name"][0].startswith("This text holds the control character ESC (U+001B)")


def test_model_validation_refuses_them_for_commands(demo_scenarios):
    scenario = next(iter(demo_scenarios.values()))
    scenario.description = "ok\x00"

    with pytest.raises(ValidationError) as refused:
        scenario.full_clean()

    assert list(refused.value.message_dict) == ["description"]


def test_a_description_over_the_text_limit_is_refused_naming_it(demo_scenarios):
    scenario = next(iter(demo_scenarios.values()))
    scenario.description = "x" * 10_001

    with pytest.raises(ValidationError) as refused:
        scenario.full_clean()

    assert refused.value.message_dict == {
        "description": ["At most 10,000 characters (the text limit)."]}
