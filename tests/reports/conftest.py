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
# Summaries of a recorded one-axis sweep and Monte Carlo run, with figures no format shows whole.
SWEEP = {
    "points": 2,
    "axes": [{"path": "rent.2.price_usd_per_instance_hour", "count": 2, "min": 20.0, "max": 40.0}],
    "options": {
        "spot": {
            "buy_wins_share": 0.5,
            "npv_saving_usd": {"min": -5.123456, "max": 9.0, "mean": 1.9382716},
            "breakeven_month": {"min": 20.0, "max": None, "never_share": 0.5},
        }
    },
    "heatmap": {
        "x_path": "rent.2.price_usd_per_instance_hour",
        "y_path": None,
        "x_values": [20.0, 40.0],
        "y_values": [],
        "breakeven_month": {"spot": [[None, 20.0]]},
    },
}
MONTE_CARLO = {
    "samples": 100,
    "seed": 7,
    "buy_wins_probability": 0.61,
    "options": {
        "spot": {
            "buy_wins_probability": 0.61,
            "npv_saving_usd": {"p10": -1.5, "p50": 2.25, "p90": 4.125},
            "breakeven_month": {"p10": 12.0, "p50": 20.0, "p90": None, "never_share": 0.2},
            "histogram": {"bin_edges_usd": [-2.0, 0.0, 5.0], "counts": [39, 61]},
        }
    },
    "inputs": {"facility.electricity_usd_per_kwh": {"p10": 0.0812345, "p50": 0.1, "p90": 0.1234567,
                                                    "mean": 0.10123456}},
}
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
