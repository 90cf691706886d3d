"""A saved scenario's figures, computed once per state of what they depend on.

Evaluating a scenario reads its catalog prices (a few dozen queries), runs the engine with IRR
and sensitivity, and walks the result into JSON: most of a request's time, and the same work
every time nothing changed. The key names what can change the figures: the scenario's revision
(bumped by every save, its rent options included), its price date (or today's), the catalog
prices of its system and offerings (a refresh or a quote adds a row), its site's revision
(bumped by every change of the site, its racks, feeds and cooling), its team's contract price
books (each with a revision bumped by every change of the book, its discounts and savings
plans), the catalog's revision (bumped by every change of its specifications: systems,
accelerators, facility profiles, cooling, token prices, sources), the engine's version and the
code's (a digest of the sources: an upgrade computes the figures again). The scenario page and
the evaluate endpoint each keep their own rendering under it.

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

from catalog.models import CatalogRevision
from catalog.models import CloudOffering
from catalog.models import ExchangeRate
from catalog.models import PriceCheck
from catalog.models import PricePoint
from core.code_version import code_version
from costmodel.version import ENGINE_VERSION
from sites.models import Site
from tco.models import ContractPriceBook
from tco.models import RentOption
from tco.models import Scenario

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
    """One statement for every row count and last id the key names: asked on every cached
    answer, the ORM's five queries cost twenty times the database's own work."""
    price, check, option, offering = (model._meta.db_table for model in
                                      (PricePoint, PriceCheck, RentOption, CloudOffering))
    # A rent option's prices; with the cheapest region, those of its instance type anywhere.
    rented = (f"SELECT offering_id FROM {option} WHERE scenario_id = %(scenario)s UNION "
              f"SELECT same.id FROM {option} JOIN {offering} AS its ON its.id = {option}.offering_id "
              f"JOIN {offering} AS same ON same.provider = its.provider "
              f"AND same.instance_type = its.instance_type AND same.pricing_model = its.pricing_model "
              f"WHERE {option}.scenario_id = %(scenario)s AND {option}.cheapest_region")
    # The team's price books: a new book moves the last id, a deleted one the count, and a change
    # of a book, its discounts or savings plans (tco/signals.py) the sum of their revisions.
    books = (f"(SELECT COUNT(id) || '/' || COALESCE(MAX(id), 0) || '/' || COALESCE(SUM(revision), 0) "
             f"FROM {ContractPriceBook._meta.db_table} WHERE team_id = %(team)s)")
    return (f"SELECT MAX({price}.id), COUNT({price}.id), SUM({price}.amount), MAX({check}.checked_at), "
            f"(SELECT MAX(id) FROM {ExchangeRate._meta.db_table}), {books}, "
            f"(SELECT revision FROM {Site._meta.db_table} WHERE id = %(site)s), "
            f"(SELECT revision FROM {CatalogRevision._meta.db_table} WHERE id = {CatalogRevision.ROW}) "
            f"FROM {price} LEFT JOIN {check} ON {check}.price_point_id = {price}.id "
            f"WHERE {price}.system_id = %(system)s OR {price}.offering_id IN ({rented})")


KEY_QUERY = _key_query()


def evaluation_key(scenario: Scenario) -> str:
    """What the figures depend on.

    The prices of its system and rented offerings: a new row moves their last id and count, a
    corrected amount their sum, and a refresh that confirms a price makes it younger (the
    warnings change with the last check). A new exchange rate, a contract term added, changed or
    removed, the team's fiscal year, verdict basis or tolerance of old rates, a change at its
    site (its prices, racks, feeds, cooling) or of the catalog's specifications (a system's
    power, a facility profile, a token price) moves the figures too.
    """
    with connection.cursor() as cursor:
        cursor.execute(KEY_QUERY, {"scenario": scenario.pk, "system": scenario.system_id,
                                   "site": scenario.site_id, "team": scenario.team_id})
        seen = cursor.fetchone()
    # Without a price date the scenario takes the prices in force today, and a price dated
    # tomorrow takes over tomorrow without a new row.
    as_of = scenario.prices_as_of or f"today={timezone.localdate()}"
    team = scenario.team
    # The team's verdict basis and its tolerance of a rate's age change the verdict and warnings.
    named = (*seen, scenario.site_id, team.fiscal_year_start_month, team.reporting_currency,
             team.verdict_basis, team.exchange_rate_tolerance_days)
    # The last check's date and time as "2026-11-25T00:22:07": a space is no character of a key.
    return (f"scenario-result:{scenario.pk}:{scenario.revision}:{as_of}:{ENGINE_VERSION}:{code_version()}:"
            + ":".join(str(value).replace(" ", "T") for value in named))
