"""A scenario's history is served a page at a time, each page compared with the save before it,
so reading it costs the same after 60 saves as after 25 (issue 25, finding 3: 0.1 s after 10
saves, 1.4 s after 40, a 500 after 165)."""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.limits import HISTORY_PAGE_SIZE
from core.limits import MAX_HISTORY_PAGE_SIZE
from tests.teams.conftest import client_of

pytestmark = pytest.mark.django_db


def save_utilisations(scenario, count: int) -> None:
    """``count`` more saves, utilisation 0.01, 0.02, ... (each a history row)."""
    for step in range(1, count + 1):
        scenario.utilisation = Decimal(step) / 100
        scenario.save()


def history(client, scenario, **params):
    return client.get(f"/api/v1/scenarios/{scenario.pk}/history/", params)


def test_the_history_comes_in_pages_whose_last_save_is_compared_with_the_next_page(
        analyst, alpha_scenario):
    save_utilisations(alpha_scenario, 24)  # 25 saves with the creation
    client = client_of(analyst)

    first = history(client, alpha_scenario).json()
    second = history(client, alpha_scenario, page=2).json()

    assert first["count"] == 25
    assert len(first["results"]) == HISTORY_PAGE_SIZE == 20
    assert first["next"].endswith("page=2")
    # Newest first: the 20th row on page 1 is save 5 (0.05), changed from save 4 on page 2.
    assert first["results"][-1]["changes"] == [{"field": "utilisation", "old": "0.0400", "new": "0.0500"}]
    assert [row["history_type"] for row in second["results"]] == ["~"] * 4 + ["+"]
    assert second["results"][-1]["changes"] == []
    assert second["results"][-2]["changes"] == [{"field": "utilisation", "old": "1.0000", "new": "0.0100"}]


def test_a_page_costs_the_same_however_long_the_history(analyst, alpha_scenario):
    client = client_of(analyst)
    save_utilisations(alpha_scenario, 24)

    with CaptureQueriesContext(connection) as short:
        history(client, alpha_scenario)
    save_utilisations(alpha_scenario, 40)
    with CaptureQueriesContext(connection) as long:
        assert history(client, alpha_scenario).json()["count"] == 65

    assert len(long.captured_queries) == len(short.captured_queries)


def test_a_page_size_over_the_limit_is_refused_naming_it(analyst, alpha_scenario):
    response = history(client_of(analyst), alpha_scenario, page_size=MAX_HISTORY_PAGE_SIZE + 1)

    assert response.status_code == 400
    assert response.json() == {"page_size": [
        "must be a whole number from 1 to 100 (the history page limit)"]}
    assert len(history(client_of(analyst), alpha_scenario, page_size=1).json()["results"]) == 1
