"""A saved scenario's figures, computed once per state of what they depend on.

Evaluating a scenario reads its catalog prices (a few dozen queries), runs the engine with IRR
and sensitivity, and walks the result into JSON: most of a request's time, and the same work
every time nothing changed. The key names what can change the figures: every model the
evaluation reads, through one statement built from the registry of reads
(tco/services/evaluation_reads.py: the scenario's revision, its team, its site's revision, its
team's price books, the catalog's revision, the newest exchange rate, its prices and their
checks), the price date it is evaluated at and today's (an approved scenario shows today's
prices beside its pinned ones; a price dated tomorrow takes over tomorrow without a new row),
the engine's version and the code's (a digest of the sources: an upgrade computes the figures
again). Each way of showing the figures keeps its own rendering under it (tco/services/figures.py).

The cache is an aid, never a dependency: a cache that cannot answer (Redis down or timing out)
is a miss, logged, and the figures are computed as if nothing were kept (``cached``).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.utils import timezone
from redis.exceptions import RedisError

from core.code_version import code_version
from costmodel.version import ENGINE_VERSION
from tco.models import Scenario
from tco.services.evaluation_reads import READS
from tco.services.evaluation_reads import InKey

CACHE_SECONDS = 24 * 3600
logger = logging.getLogger(__name__)
# What a cache backend raises when its server is down or slow (redis-py wraps socket errors).
CACHE_FAILURES = (RedisError, OSError)


def cached(key: str, compute: Callable[[], Any], timeout: int = CACHE_SECONDS) -> Any:
    """``compute()``, kept under ``key`` for ``timeout`` seconds. A cache that fails to answer is
    a miss and a skipped write, logged; ``compute`` returning None is not kept."""
    try:
        value = cache.get(key)
    except CACHE_FAILURES as exc:
        logger.warning("cache_read_failed", extra={"key": key, "error": repr(exc)})
        return compute()
    if value is not None:
        return value
    value = compute()
    if value is not None:
        try:
            cache.set(key, value, timeout)
        except CACHE_FAILURES as exc:
            logger.warning("cache_write_failed", extra={"key": key, "error": repr(exc)})
    return value


def _key_query() -> str:
    """One statement for every part the registry's reads name: asked on every cached answer,
    a query per part cost twenty times the database's own work."""
    parts = ", ".join(f"({read.sql})" for read in READS if isinstance(read, InKey))
    return (f"WITH s AS (SELECT * FROM {Scenario._meta.db_table} WHERE id = %(scenario)s) "
            f"SELECT {parts} FROM s")


KEY_QUERY = _key_query()


def evaluation_key(scenario: Scenario) -> str:
    """What the figures of ``scenario`` (saved; its price date as given, which a report pins)
    depend on."""
    with connection.cursor() as cursor:
        cursor.execute(KEY_QUERY, {"scenario": scenario.pk})
        seen = cursor.fetchone() or ()  # no row: the scenario was deleted since it was read
    named = (scenario.prices_as_of or "today", timezone.localdate(), ENGINE_VERSION, code_version(),
             *seen)
    # A last check's date and time as "2026-11-25T00:22:07": a space is no character of a key.
    return f"scenario-result:{scenario.pk}:" + ":".join(str(value).replace(" ", "T") for value in named)
