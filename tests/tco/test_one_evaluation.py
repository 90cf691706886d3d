"""One evaluation per request: the engine runs once (and its sensitivity batch once) for a
stateless evaluation, a stored scenario's evaluation and a report, whatever shows the result."""
from __future__ import annotations

import sys
from collections import Counter

import pytest

from costmodel import compose
from costmodel import sensitivity
from reports.choices import ReportFormat
from reports.services import report_build
from reports.services import report_content_for
from tests.teams.members import member

pytestmark = pytest.mark.django_db
H100_DEMO = "8x H100 training cluster"


@pytest.fixture
def engine_calls(monkeypatch) -> Counter:
    """Counts the engine's vectorised passes: "result" for a scenario's own, "sensitivity" for
    the batch of moved inputs behind the tornado."""
    calls: Counter = Counter()

    def counting(kind: str, function):
        def counted(*args, **kwargs):
            calls[kind] += 1
            return function(*args, **kwargs)
        return counted

    # The module, not the function ``costmodel.evaluate`` that the package exports.
    monkeypatch.setattr(sys.modules["costmodel.evaluate"], "compute_result",
                        counting("result", compose.compute_result))
    # The sensitivity batch: every option's NPV, for the winner's margin over the next cheapest
    # (one result of the moved inputs, no detail), or buying's saving against a named rent option.
    monkeypatch.setattr(sensitivity, "npv_saving_usd", counting("sensitivity", compose.npv_saving_usd))
    monkeypatch.setattr(sensitivity, "compute_result", counting("sensitivity", compose.compute_result))
    return calls


@pytest.fixture
def api(client, demo_scenarios):
    client.force_login(member("analyst"))
    return client


def test_a_stateless_evaluation_runs_the_engine_once(api, demo_scenarios, engine_calls):
    scenario = demo_scenarios[H100_DEMO]
    body = {"name": "8x H100", "accelerator": scenario.accelerator.slug, "accelerators": 8,
            "utilisation": "0.7", "system": scenario.system.slug,
            "facility": scenario.facility.slug,
            "prices_as_of": scenario.prices_as_of,
            "rent_options": [{"offering": option.offering_id,
                              "price_usd_per_instance_hour": option.price_usd_per_instance_hour}
                             for option in scenario.rent_options.all()]}

    response = api.post("/api/v1/evaluate/", body, content_type="application/json")

    assert response.status_code == 200, response.json()
    assert response.json()["result"]["recommendation"]
    assert engine_calls == {"result": 1, "sensitivity": 1}


def test_a_stored_scenario_evaluation_runs_the_engine_once(api, demo_scenarios, engine_calls):
    scenario = demo_scenarios[H100_DEMO]

    response = api.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/")

    assert response.status_code == 200, response.json()
    assert engine_calls == {"result": 1, "sensitivity": 1}


@pytest.mark.parametrize("format", [ReportFormat.XLSX, ReportFormat.PDF])
def test_a_report_runs_the_engine_once_sensitivity_included(demo_scenarios, engine_calls, format):
    content = report_content_for(scenario=demo_scenarios[H100_DEMO])
    payload = report_build(content=content, format=format)

    assert payload
    assert content.tornado.rows  # the report's tornado is the evaluation's own
    assert engine_calls == {"result": 1, "sensitivity": 1}


def test_the_admin_page_runs_the_engine_once(admin_client, demo_scenarios, engine_calls):
    scenario = demo_scenarios[H100_DEMO]

    response = admin_client.get(f"/admin/tco/scenario/{scenario.pk}/change/")

    assert response.status_code == 200
    assert engine_calls == {"result": 1, "sensitivity": 1}
