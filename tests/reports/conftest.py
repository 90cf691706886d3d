"""Report fixtures: a demo scenario owned by a planner, the planner's API client, media in a
temporary folder, and report content built straight from engine inputs (no database) for the
builder tests."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from reports.content import ReportContent
from reports.content import ReportMeta
from tco import engine
from tco.services.evaluation import evaluation_of
from tests.tco.engine.scenarios import rich_scenario

FORMULA_LIKE_NAME = '=HYPERLINK("http://x","y")'
GENERATED_AT = dt.datetime(2026, 3, 2, 9, 30, tzinfo=dt.UTC)
PRICES_AS_OF = dt.date(2026, 3, 1)
H100_DEMO = "8x H100 training cluster"


def content_for(
    inputs: engine.Scenario, *, name: str = "Rich scenario", paper_size: str = "a4", **extra
) -> ReportContent:
    """Report content of engine inputs, as the service builds it from a stored scenario."""
    meta = ReportMeta(
        scenario_name=name,
        author="Test Author",
        generated_at=GENERATED_AT,
        prices_as_of=PRICES_AS_OF,
        engine_version="test",
        paper_size=paper_size,
        labels={"System": "dgx-h100"},
    )
    return ReportContent(meta=meta, evaluation=evaluation_of(inputs), **extra)


@pytest.fixture(scope="module")
def rich_content() -> ReportContent:
    """Every cost line, financing and all three pricing models, under a formula-like name."""
    return content_for(rich_scenario(), name=FORMULA_LIKE_NAME)


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    """Exports write their files under a temporary MEDIA_ROOT."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def planner(db):
    """An analyst of the Demo team, whose scenarios the demo ones are."""
    from tests.teams.members import member

    return member("planner", first_name="Pat", last_name="Planner")


@pytest.fixture
def api(planner):
    """An API client authenticated as the planner."""
    client = APIClient()
    client.force_authenticate(planner)
    return client


@pytest.fixture
def scenario(demo_scenarios, planner):
    """The 8x H100 demo (catalog and typed prices, three rent options), owned by the planner."""
    scenario = demo_scenarios[H100_DEMO]
    scenario.owner = planner
    scenario.save()
    return scenario
