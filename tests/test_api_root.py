"""/api/v1/ is a browsable index of the collections."""
from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_the_api_root_lists_the_collections(client):
    body = client.get("/api/v1/", HTTP_ACCEPT="application/json").json()

    assert body["accelerators"].endswith("/api/v1/accelerators/")
    assert body["scenarios"].endswith("/api/v1/scenarios/")
