"""FinOps fixtures: the demo scenarios with their plan solved (its tasks run inline)."""
from __future__ import annotations

import pytest

from tco.demo import DEMO_PLAN
from tco.models import PlanStatus


@pytest.fixture
def demo(catalog, django_capture_on_commit_callbacks):
    """The three demo scenarios by name, and the demo plan solved with its draws."""
    from tco.demo import load_demo

    with django_capture_on_commit_callbacks(execute=True):
        scenarios = {scenario.name: scenario for scenario in load_demo()}
    plan = scenarios[DEMO_PLAN["scenario"]].plans.get(name=DEMO_PLAN["name"])
    assert plan.status == PlanStatus.DONE, plan.error
    return scenarios, plan
