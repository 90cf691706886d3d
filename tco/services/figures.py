"""Showing a saved scenario's figures: the one way the admin page, the scenario list and the team
home, the evaluate endpoint and the report take them.

    figures = scenario_figures(scenario=scenario, shown_as=PAGE)   # PAGE: a Showing of the admin's
    figures.shown                                                  # its rendering, kept or fresh
    figures.alerts()                                               # an approved one's alerts

Each ``Showing`` names a rendering of an evaluation (the page's HTML, the API's body, a report's
evaluation) and whether it is kept. A kept rendering lives under the evaluation cache's key
(tco/services/evaluation_cache.py) plus its name; it is computed again only when something the
figures read changed. Computing it is showing new figures, so it does what showing them does: a
draft's prices and figures are snapshotted (a later price refresh compares with them to alert on
a moved result), an approved scenario's figures at today's prices are compared with its approval's
and alerted on. The price alerts raised since an approval are read on every showing, never kept:
a refresh's re-pricing may raise one while the figures are kept.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from tco.models import PriceAlert
from tco.models import Scenario
from tco.services.evaluation import Evaluation
from tco.services.evaluation import scenario_evaluate
from tco.services.evaluation_cache import cached
from tco.services.evaluation_cache import evaluation_key
from tco.services.repricing import scenario_alert_today
from tco.services.repricing import scenario_snapshot_save

# What scenario_figures reads of the scenario it is given (the key reads the rest from the
# database): a caller that only shows kept figures may load these fields alone.
SHOWN_FIELDS = ("status", "approved_at", "prices_as_of")


@dataclass(frozen=True)
class Showing:
    """A way of showing figures: ``name`` keys its kept rendering, ``render`` makes it from the
    scenario (loaded whole) and its evaluation; ``kept`` False renders afresh every time."""

    name: str
    render: Callable[[Scenario, Evaluation], Any]
    kept: bool = True


@dataclass(frozen=True)
class Figures:
    """A scenario's figures as one Showing renders them."""

    scenario: Scenario
    shown: Any

    def alerts(self) -> QuerySet[PriceAlert] | None:
        """An approved scenario's price alerts since its approval, newest last; None for a draft."""
        if not self.scenario.is_approved:
            return None
        return self.scenario.price_alerts.filter(created_at__gte=self.scenario.approved_at)


def scenario_figures(*, scenario: Scenario, shown_as: Showing) -> Figures:
    """The saved ``scenario``'s figures as ``shown_as`` renders them, from the cache when nothing
    they read changed (see the module).

    Raises ScenarioInputError naming the field to fix when it cannot be evaluated (never kept).
    """
    if not shown_as.kept:
        return Figures(scenario, _shown(scenario, shown_as))
    return Figures(scenario, cached(figures_key(scenario, shown_as),
                                    lambda: _shown(_whole(scenario), shown_as)))


def figures_key(scenario: Scenario, shown_as: Showing) -> str:
    """The key ``shown_as``'s rendering of ``scenario`` is kept under."""
    return f"{shown_as.name}:{evaluation_key(scenario)}"


def _whole(scenario: Scenario) -> Scenario:
    """The scenario with every field, at the price date it is shown at (a caller may have loaded
    SHOWN_FIELDS alone)."""
    whole = Scenario.objects.select_related("team").get(pk=scenario.pk)
    whole.prices_as_of = scenario.prices_as_of
    return whole


def _shown(scenario: Scenario, shown_as: Showing) -> Any:
    """Evaluate, do what showing new figures does, and render."""
    evaluation = scenario_evaluate(scenario=scenario)
    if evaluation.pinned_at is None:
        scenario_snapshot_save(scenario=scenario, evaluation=evaluation)
    else:
        scenario_alert_today(scenario=scenario, evaluation=evaluation)
    return shown_as.render(scenario, evaluation)
