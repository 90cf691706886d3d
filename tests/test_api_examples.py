"""The request examples of the OpenAPI schema work: each is sent and gets its documented status.

The runs and plans examples name scenario 1, which a deployment may not have; they are not
sent here.
"""
from __future__ import annotations

import pytest

from catalog.models import CloudOffering
from tco.api.sizing import INFERENCE_EXAMPLE, TRAINING_EXAMPLE
from tco.api.views import SCENARIO_EXAMPLE
from teams.models import Role
from tests.teams.conftest import client_of
from tests.teams.members import member


@pytest.fixture
def api(catalog):
    return client_of(member("ana", role=Role.ANALYST))


def test_the_scenario_example_is_like_for_like(catalog):
    offering = CloudOffering.objects.get(pk=SCENARIO_EXAMPLE.value["rent_options"][0]["offering"])

    assert (offering.provider, offering.instance_type, offering.pricing_model) == (
        "aws", "p5.48xlarge", "on_demand")
    assert (offering.accelerator.slug, offering.accelerators_per_instance) == (
        SCENARIO_EXAMPLE.value["accelerator"], 8)


@pytest.mark.parametrize(("url", "status"), [("/api/v1/scenarios/", 201), ("/api/v1/evaluate/", 200)])
def test_the_scenario_example_is_accepted(api, url, status):
    response = api.post(url, SCENARIO_EXAMPLE.value, format="json")

    assert response.status_code == status, response.json()


@pytest.mark.parametrize("example", [INFERENCE_EXAMPLE, TRAINING_EXAMPLE], ids=["inference", "training"])
def test_the_sizing_examples_are_accepted(api, example):
    response = api.post("/api/v1/sizing/", example.value, format="json")

    assert response.status_code == 200, response.json()
