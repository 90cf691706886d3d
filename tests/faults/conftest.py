"""Fault-test fixtures: a private Redis to stop and start, and, from other folders, the
scenarios and the local HTTP server."""
from __future__ import annotations

import pytest

from tests.catalog.pricefeeds.conftest import local_server  # noqa: F401
from tests.faults.outages import PrivateRedis
from tests.reports.conftest import scenario  # noqa: F401
from tests.tco.conftest import planner  # noqa: F401
from tests.tco.conftest import run_scenario  # noqa: F401


@pytest.fixture
def private_redis(tmp_path):
    """A Redis server of the test's own, which the test may shut down and start again."""
    server = PrivateRedis(tmp_path / "redis").start()
    yield server
    server.stop()
