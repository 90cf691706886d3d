"""Fixtures of other folders that the fault tests use: the run scenario and the local HTTP server."""
from __future__ import annotations

from tests.catalog.pricefeeds.conftest import local_server  # noqa: F401
from tests.tco.conftest import planner, run_scenario  # noqa: F401
