"""Bounds declared once: the engine's input metadata. The model's validators, the API's
serializers and the database's check constraints follow from it and agree; refusals name the
field, the value and what is allowed, on the field, in the API and in the admin."""
from __future__ import annotations

import json
import math
from decimal import Decimal

import pytest
from django.contrib.admin import site
from django.db.models import CheckConstraint
from django.test import RequestFactory

from costmodel.inputs import numeric_field_metadata
from tco.api.serializers import ApiOptionSerializer
from tco.api.serializers import RentOptionSerializer
from tco.api.serializers import ScenarioSerializer
from tco.inputs import API_OPTION_INPUTS
from tco.inputs import RENT_OPTION_INPUTS
from tco.inputs import SCENARIO_INPUTS
from tco.inputs import SECTIONS
from tco.inputs import Bounds
from tco.inputs import WithinBounds
from tco.models import ApiOption
from tco.models import RentOption
from tco.models import Scenario
from tests.tco.scenario_body import scenario_body
from tests.teams.members import member

pytestmark = pytest.mark.django_db

BOUNDED = [(Scenario, ScenarioSerializer, "scenario", SCENARIO_INPUTS),
           (RentOption, RentOptionSerializer, "rent", RENT_OPTION_INPUTS),
           (ApiOption, ApiOptionSerializer, "api", API_OPTION_INPUTS)]
CASES = [(model, serializer, prefix, field, path) for model, serializer, prefix, inputs in BOUNDED
         for field, path in inputs.items()]


def probes(bounds: Bounds) -> list[Decimal]:
    """Values on, just inside and just outside each end, and some typed as percents."""
    ends = [bounds.low] + ([bounds.high] if math.isfinite(bounds.high) else [])
    values = {end + step for end in ends for step in (-0.001, 0, 0.001)} | {-5, 0.5, 8, 70, 250}
    return sorted(Decimal(repr(round(v, 6))) for v in values)


@pytest.mark.parametrize(("model", "serializer", "prefix", "field", "path"), CASES,
                         ids=[f"{c[2]}.{c[3]}" for c in CASES])
def test_engine_metadata_serializer_and_database_agree(model, serializer, prefix, field, path):
    bounds = Bounds.of(path)
    engine = numeric_field_metadata(SECTIONS[path.split(".")[0]])[path.split(".")[1]]
    constraint = next(c for c in model._meta.constraints if c.name == f"{prefix}_{field}_bounds")
    validators = serializer().fields[field].validators

    # The engine's own range, but a share or yearly rate people type stops at 1.
    assert (bounds.low, bounds.low_open) == (engine["low"], engine["low_open"])
    assert (bounds.high, bounds.high_open) == (
        (1.0, False) if engine["rate"] and engine["high"] > 1 else (engine["high"], engine["high_open"]))
    assert WithinBounds(path) in model._meta.get_field(field).validators
    assert WithinBounds(path) in validators
    assert isinstance(constraint, CheckConstraint)
    for value in probes(bounds):
        admitted = bounds.admits(float(value))
        assert constraint.condition.check({field: value}) is admitted, (field, value)
        refused = []
        for validator in validators:
            try:
                validator(value)
            except Exception as exc:  # noqa: BLE001 (Django's and DRF's ValidationError)
                refused.append(exc)
        assert (not refused) is admitted, (field, value, refused)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("utilisation", "70", "Utilisation is a share from 0 to 1: 70 % is 0.7"),
    ("utilisation", "-0.2", "Utilisation is a share from 0 to 1, not -0.2"),
    ("discount_rate_per_year", "8",
     "8 looks like a percent: 8 % is 0.08 (Discount rate is more than -1 and at most 1)"),
    ("pue", "0.9", "PUE must be at least 1, not 0.9"),
    ("horizon_months", 300, "Horizon must be from 1 to 240, not 300"),
])
def test_the_api_answers_400_naming_the_field_the_value_and_what_is_allowed(
        client, catalog, field, value, message):
    client.force_login(member("analyst"))

    response = client.post("/api/v1/evaluate/", scenario_body(**{field: value}),
                           content_type="application/json")

    assert response.status_code == 400
    assert response.json() == {field: [message]}


def test_a_rent_option_refusal_is_on_its_field(client, catalog):
    client.force_login(member("analyst"))
    body = scenario_body()
    body["rent_options"][0]["price_change_per_year"] = "-10"

    response = client.post("/api/v1/evaluate/", body, content_type="application/json")

    assert response.status_code == 400
    assert response.json() == {"rent_options": {"0": {"price_change_per_year": [
        "Instance price change must be more than -1 and at most 1, not -10"]}}}


def _admin_form(scenario, **changes):
    """The admin's scenario form as the change page posts it, with ``changes`` typed in."""
    request = RequestFactory().post("/")
    request.user = member("analyst", of=scenario.team.slug)
    form_class = site._registry[Scenario].get_form(request, scenario)
    shown = form_class(instance=scenario)
    data = {}
    for name in shown.fields:
        value = shown[name].value()
        data[name] = ("" if value is None else json.dumps(value) if isinstance(value, (dict, list))
                      else value)
    return form_class(data={**data, **changes}, instance=scenario)


def test_the_admin_shows_each_refusal_on_its_field_in_words(demo_scenarios):
    form = _admin_form(demo_scenarios["8x H100 training cluster"], utilisation="70",
                       discount_rate_per_year="8", pue="0.9")

    assert not form.is_valid()
    assert form.errors == {
        "utilisation": ["Utilisation is a share from 0 to 1: 70 % is 0.7"],
        "discount_rate_per_year": [
            "8 looks like a percent: 8 % is 0.08 (Discount rate is more than -1 and at most 1)"],
        "pue": ["PUE must be at least 1, not 0.9"],
    }


def test_the_admin_form_accepts_values_within_bounds(demo_scenarios):
    form = _admin_form(demo_scenarios["8x H100 training cluster"], utilisation="0.7",
                       discount_rate_per_year="0.08")

    assert form.is_valid(), form.errors


def test_the_field_behind_each_engine_input_comes_from_the_one_table():
    from tco.inputs import SCENARIO_INPUTS
    from tco.inputs import field_for

    # Every bounded field round-trips, also where the engine names the input otherwise.
    assert {field: field_for(path) for field, path in SCENARIO_INPUTS.items()} == {
        field: field for field in SCENARIO_INPUTS}
    assert (field_for("facility.pue"), field_for("rent.1.upfront_usd_per_instance"),
            field_for("tokens"), field_for("api.0.minimum_usd_per_month")) == (
        "pue", "rent_options[1].upfront_usd", "token_output_share", "api_options[0].minimum_usd_per_month")
