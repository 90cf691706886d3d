"""Every model a scenario's shown figures read, declared once with how a change of its rows
reaches the key they are kept under (tco/services/evaluation_cache.py).

Each model is one of:

- ``InKey``: the key's one statement reads its rows itself (``sql``, a scalar subquery over the
  scenario's row ``s``): the scenario's revision, its team's every column, its site's revision,
  its team's price books, the catalog's revision, the newest exchange rate, the prices of its
  system and rented offerings with their last checks (a refresh writes thousands in bulk, which
  no signal sees, so the key counts them).
- ``Revises``: saving or deleting one of its rows moves the revision of an ``InKey`` model
  (``revise(row)``); ``tco/signals.py`` connects a receiver per entry, so declaring a model here
  is what makes its changes reach the key.
- ``SavedWithScenario``: written only with a save of the scenario, which moves its revision
  (its rent and per-token options, the snapshot its approval pins).
- ``ReadFresh``: read on every showing beside the kept figures, never kept (the price alerts
  of an approved scenario).

tests/tco/test_figures_key.py records the queries of an evaluation and of each rendering and
fails on a table no entry here names.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db.models import Model

from catalog.models import Accelerator
from catalog.models import AcceleratorPowerCap
from catalog.models import AcceleratorThroughput
from catalog.models import CatalogRevision
from catalog.models import CloudOffering
from catalog.models import CoolingTechnology
from catalog.models import EgressRate
from catalog.models import ExchangeRate
from catalog.models import FacilityProfile
from catalog.models import PowerDensityReference
from catalog.models import PriceCheck
from catalog.models import PricePoint
from catalog.models import RentalCurvePrice
from catalog.models import Source
from catalog.models import SystemSku
from catalog.models import ThroughputMeasurement
from catalog.models import TokenApiPrice
from catalog.signals import bump_catalog_revision
from sites.models import PowerFeed
from sites.models import PowerPanel
from sites.models import RackPosition
from sites.models import Room
from sites.models import Site
from sites.models import SiteCooling
from tco.models import ApiOption
from tco.models import ContractDiscount
from tco.models import ContractPriceBook
from tco.models import PriceAlert
from tco.models import RentOption
from tco.models import SavingsPlanCommitment
from tco.models import Scenario
from tco.models import ScenarioSnapshot
from teams.models import Team


@dataclass(frozen=True)
class InKey:
    """Rows of ``models`` the key's statement reads itself, through ``sql``."""

    models: tuple[type[Model], ...]
    sql: str


@dataclass(frozen=True)
class Revises:
    """A saved or deleted row of ``model`` moves the revision of ``revised`` (``revise(row)``)."""

    model: type[Model]
    revised: type[Model]
    revise: Callable[[Any], None]


@dataclass(frozen=True)
class SavedWithScenario:
    """Rows written only with a save of their scenario, which moves its revision."""

    model: type[Model]


@dataclass(frozen=True)
class ReadFresh:
    """Rows read on every showing, beside the kept figures."""

    model: type[Model]


Read = InKey | Revises | SavedWithScenario | ReadFresh


def _table(model: type[Model]) -> str:
    return model._meta.db_table


def _every_column(model: type[Model]) -> str:
    """One text of every column of a row: a change of any field moves it."""
    return " || '/' || ".join(f"COALESCE(CAST({field.column} AS TEXT), '')"
                              for field in model._meta.concrete_fields)


def _prices_sql() -> str:
    """The prices of the scenario's system and rented offerings (with the cheapest region, those
    of the instance type anywhere): a new row moves their last id and count, a corrected amount
    their sum, a refresh that confirms a price their last check."""
    price, check, option, offering = map(_table, (PricePoint, PriceCheck, RentOption, CloudOffering))
    rented = (f"SELECT offering_id FROM {option} WHERE scenario_id = s.id UNION "
              f"SELECT same.id FROM {option} JOIN {offering} AS its ON its.id = {option}.offering_id "
              f"JOIN {offering} AS same ON same.provider = its.provider "
              f"AND same.instance_type = its.instance_type AND same.pricing_model = its.pricing_model "
              f"WHERE {option}.scenario_id = s.id AND {option}.cheapest_region")
    return (f"SELECT COALESCE(MAX({price}.id), 0) || '/' || COUNT({price}.id) || '/' "
            f"|| COALESCE(SUM({price}.amount), 0) || '/' "
            f"|| COALESCE(CAST(MAX({check}.checked_at) AS TEXT), '') "
            f"FROM {price} LEFT JOIN {check} ON {check}.price_point_id = {price}.id "
            f"WHERE {price}.system_id = s.system_id OR {price}.offering_id IN ({rented})")


def _site_revision(row: Any) -> None:
    Site.revise(pk=row.site_id)


def _feed_site_revision(feed: Any) -> None:
    Site.revise(power_panels=feed.panel_id)


def _book_revision(row: Any) -> None:
    ContractPriceBook.revise(pk=row.book_id)


def _catalog_revision(row: Any) -> None:
    bump_catalog_revision()


# What the catalog's revision stands for: every specification a scenario's figures, warnings and
# sources read besides prices and price checks. Exchange rates are written in bulk and never
# changed (the key's newest id sees a new one); a deleted one moves the revision.
CATALOG_SPECIFICATIONS = (Source, Accelerator, AcceleratorThroughput, AcceleratorPowerCap, SystemSku,
                          CloudOffering, CoolingTechnology, FacilityProfile, PowerDensityReference,
                          TokenApiPrice, ThroughputMeasurement, ExchangeRate, RentalCurvePrice,
                          EgressRate)

READS: tuple[Read, ...] = (
    InKey((Scenario,), "s.revision"),
    InKey((Team,), f"SELECT {_every_column(Team)} FROM {_table(Team)} WHERE id = s.team_id"),
    InKey((Site,), f"SELECT id || '/' || revision FROM {_table(Site)} WHERE id = s.site_id"),
    # A new book moves the last id, a deleted one the count, a changed one the sum of revisions.
    InKey((ContractPriceBook,),
          f"SELECT COUNT(id) || '/' || COALESCE(MAX(id), 0) || '/' || COALESCE(SUM(revision), 0) "
          f"FROM {_table(ContractPriceBook)} WHERE team_id = s.team_id"),
    InKey((CatalogRevision,),
          f"SELECT revision FROM {_table(CatalogRevision)} WHERE id = {CatalogRevision.ROW}"),
    InKey((ExchangeRate,), f"SELECT MAX(id) FROM {_table(ExchangeRate)}"),
    InKey((PricePoint, PriceCheck), _prices_sql()),
    *(Revises(model, Site, _site_revision) for model in (SiteCooling, Room, RackPosition, PowerPanel)),
    Revises(PowerFeed, Site, _feed_site_revision),
    *(Revises(model, ContractPriceBook, _book_revision)
      for model in (ContractDiscount, SavingsPlanCommitment)),
    *(Revises(model, CatalogRevision, _catalog_revision) for model in CATALOG_SPECIFICATIONS),
    SavedWithScenario(RentOption),
    SavedWithScenario(ApiOption),
    SavedWithScenario(ScenarioSnapshot),
    ReadFresh(PriceAlert),
)


def read_models() -> set[type[Model]]:
    """Every model an entry names."""
    named: set[type[Model]] = set()
    for read in READS:
        named.update(read.models if isinstance(read, InKey) else (read.model,))
    return named


def _check() -> None:
    """A revision moved must be one the key reads, or the move reaches nothing."""
    keyed = {model for read in READS if isinstance(read, InKey) for model in read.models}
    lost = [read.model.__name__ for read in READS if isinstance(read, Revises) and read.revised not in keyed]
    if lost:
        raise ImproperlyConfigured(f"these move a revision the key does not read: {', '.join(lost)}")


_check()
