"""The request examples of the OpenAPI schema work: each is sent and gets its documented status.

Examples that name a scenario name the first demo scenario of a fresh `make run` (pk 1); here
the demo scenarios are loaded the same way and pk n stands for the n-th of them.
"""
from __future__ import annotations

import pytest

from catalog.models import CloudOffering
from tco.api.views import SCENARIO_EXAMPLE
from teams.models import Role
from tests.teams.conftest import client_of
from tests.teams.members import member

HTTP_METHODS = ("get", "put", "patch", "post", "delete")


@pytest.fixture
def api(catalog):
    return client_of(member("ana", role=Role.ANALYST))


def request_examples(schema: dict) -> list[tuple[str, str, str, dict, int]]:
    """(method, path, example name, value, documented 2xx status) of every request example."""
    found = []
    for path, operations in schema["paths"].items():
        for method in HTTP_METHODS:
            operation = operations.get(method)
            if operation is None:
                continue
            for content in operation.get("requestBody", {}).get("content", {}).values():
                for name, example in content.get("examples", {}).items():
                    statuses = [int(code) for code in operation["responses"] if code.startswith("2")]
                    assert len(statuses) == 1, f"{method} {path} documents {statuses}"
                    found.append((method, path, name, example["value"], statuses[0]))
    return found


def _fresh_run_pk(pk: int, demo: list) -> int:
    """The pk the ``pk``-th demo scenario has here, named by its pk on a fresh `make run`."""
    assert 1 <= pk <= len(demo), f"no demo scenario has pk {pk} on a fresh `make run`"
    return demo[pk - 1].pk


def test_the_scenario_example_is_like_for_like(catalog):
    offering = CloudOffering.objects.get(pk=SCENARIO_EXAMPLE.value["rent_options"][0]["offering"])

    assert (offering.provider, offering.instance_type, offering.pricing_model) == (
        "aws", "p5.48xlarge", "on_demand")
    assert (offering.accelerator.slug, offering.accelerators_per_instance) == (
        SCENARIO_EXAMPLE.value["accelerator"], 8)


def test_every_request_example_in_the_schema_gets_its_documented_status(api, demo_scenarios):
    demo = list(demo_scenarios.values())  # in the order load_demo creates them
    examples = request_examples(api.get("/api/schema/?format=json").json())
    failures = []
    for method, path, name, value, status in examples:
        value = dict(value)
        if "scenario" in value:
            value["scenario"] = _fresh_run_pk(value["scenario"], demo)
        if "{id}" in path:
            assert path.startswith("/api/v1/scenarios/"), f"{path}: say which demo object to use"
        url = path.replace("{id}", str(demo[0].pk))
        response = getattr(api, method)(url, value, format="json")
        if response.status_code != status:
            failures.append((method, path, name, status, response.status_code, response.content[:500]))

    # The scenario example is sent twice (create and evaluate), each sizing and run kind once.
    assert {(method, path) for method, path, *_ in examples} >= {
        ("post", "/api/v1/scenarios/"), ("post", "/api/v1/evaluate/"), ("post", "/api/v1/sizing/"),
        ("post", "/api/v1/runs/"), ("post", "/api/v1/plans/")}
    assert failures == []
