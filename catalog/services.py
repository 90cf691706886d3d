"""Writes to the catalog: loading the data files, recording prices, importing quote files.

Every write goes through ``full_clean()`` first, so the data files, quote files, admin and API
all hit the same field validators and ``clean()`` rules (the bulk loader leaves the check
constraints to the database, which enforces them anyway).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.db import models
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from simple_history.utils import bulk_create_with_history

from catalog import throughput_measurements
from catalog import token_api_examples
from catalog.choices import SourceKind
from catalog.datafiles import DATA_DIR
from catalog.datafiles import CatalogData
from catalog.datafiles import CatalogDataError
from catalog.datafiles import read_catalog_data
from catalog.importers import QuoteFileRejected
from catalog.importers import QuoteRow
from catalog.importers import RowError
from catalog.importers import parse_quote_file
from catalog.models import Accelerator
from catalog.models import AcceleratorPowerCap
from catalog.models import AcceleratorThroughput
from catalog.models import CloudOffering
from catalog.models import CoolingTechnology
from catalog.models import EgressRate
from catalog.models import FacilityProfile
from catalog.models import PowerDensityReference
from catalog.models import PricePoint
from catalog.models import Source
from catalog.models import SystemPowerFigure
from catalog.models import SystemSku
from catalog.models import ThroughputMeasurement
from catalog.models import TokenApiPrice
from catalog.selectors import visible_rows
from catalog.signals import bump_catalog_revision
from catalog.signals import revision_once
from teams.models import Team

CREATED, UPDATED, UNCHANGED = "created", "updated", "unchanged"


def _same(instance: models.Model, name: str, value: Any) -> bool:
    field = instance._meta.get_field(name)
    if field.is_relation:
        return getattr(instance, field.attname) == (value.pk if value is not None else None)
    return getattr(instance, name) == value


def _plain(value: Any) -> Any:
    return value.pk if isinstance(value, models.Model) else value


class _ExistingRows:
    """Every row of a model, indexed by the natural key the loader matches it on (one query)."""

    def __init__(
        self, model: type[models.Model], key_fields: tuple[str, ...], rows: models.QuerySet | None = None
    ):
        attnames = [model._meta.get_field(name).attname for name in key_fields]
        self.model = model
        self.key_fields = key_fields
        rows = _public_rows(model) if rows is None else rows
        self.rows = {tuple(getattr(row, a) for a in attnames): row for row in rows}

    def get(self, lookup: dict[str, Any]) -> models.Model | None:
        return self.rows.get(tuple(_plain(lookup[name]) for name in self.key_fields))


def _by(model: type[models.Model], attribute: str) -> dict[Any, models.Model]:
    return {getattr(row, attribute): row for row in _public_rows(model)}


def _public_rows(model: type[models.Model]) -> models.QuerySet:
    """The model's public rows: the data files describe the public catalog, so a team's own
    sources, offerings and quotes are never matched, changed or counted."""
    rows = model.objects.all()
    return rows.filter(team__isnull=True) if any(f.name == "team" for f in model._meta.fields) else rows


def _upsert(existing: _ExistingRows, lookup: dict[str, Any], values: dict[str, Any]) -> str:
    """Create the row, update the fields that differ, or leave it alone; say which.

    Field validators and ``clean()`` run in Python; the check constraints are left to the
    database, because Django evaluates each one with a query of its own (seconds per load).
    """
    instance = existing.get(lookup)
    if instance is None:
        instance = existing.model(**lookup, **values)
        instance.full_clean(validate_constraints=False)
        instance.save()
        return CREATED
    changed = [name for name, value in values.items() if not _same(instance, name, value)]
    if not changed:
        return UNCHANGED
    for name in changed:
        setattr(instance, name, values[name])
    instance.full_clean(validate_constraints=False)
    instance.save(update_fields=changed)
    return UPDATED


# --- loading the data files -------------------------------------------------------------------


@transaction.atomic
def catalog_load(*, data_dir: Path = DATA_DIR) -> dict[str, Counter]:
    """Fill the catalog from the YAML data files, idempotently, in one transaction.

    Rows are matched on their natural keys; a second run with unchanged files creates and
    updates nothing. Rows the files no longer mention are left in place (they may be history).

    Returns
    -------
    dict
        ``{model verbose name plural: Counter(created=…, updated=…, unchanged=…)}``.

    Raises
    ------
    CatalogDataError
        A file breaks the format, or a row fails validation (message names file and row).
    """
    data = read_catalog_data(data_dir)
    counts: dict[str, Counter] = {}
    writers = (
        (Source, _write_sources),
        (Accelerator, _write_accelerators),
        (AcceleratorThroughput, _write_throughputs),
        (AcceleratorPowerCap, _write_power_caps),
        (SystemSku, _write_systems),
        (SystemPowerFigure, _write_system_power_figures),
        (CloudOffering, _write_offerings),
        (PricePoint, _write_prices),
        (CoolingTechnology, _write_cooling),
        (FacilityProfile, _write_facilities),
        (PowerDensityReference, _write_power_densities),
        (TokenApiPrice, _write_token_api_prices),
        (EgressRate, _write_egress_rates),
    )
    for model, write in writers:
        counter: Counter = Counter({CREATED: 0, UPDATED: 0, UNCHANGED: 0})
        for outcome in write(data):
            counter[outcome] += 1
        counts[str(model._meta.verbose_name_plural)] = counter
    counts[str(ThroughputMeasurement._meta.verbose_name_plural)] = throughput_measurements.write(
        upsert_by_key, data_dir)
    return counts


def _field_errors(exc: ValidationError) -> list[tuple[str, str]]:
    """(field, message) pairs of a ValidationError; field is '' for errors of the whole row."""
    if not hasattr(exc, "error_dict"):
        return [("", message) for message in exc.messages]
    return [
        ("" if field == "__all__" else field, message)
        for field, messages in exc.message_dict.items()
        for message in messages
    ]


def _checked(label: str, existing: _ExistingRows, lookup: dict[str, Any], values: dict[str, Any]) -> str:
    try:
        return _upsert(existing, lookup, values)
    except IntegrityError as exc:
        raise CatalogDataError(f"{label}: {exc}") from exc
    except ValidationError as exc:
        details = "; ".join(
            f"{field}: {message}" if field else message for field, message in _field_errors(exc)
        )
        raise CatalogDataError(f"{label}: {details}") from exc


def upsert_by_key(model: type[models.Model], key: str, label: str, record: dict[str, Any]) -> str:
    """Create or update one row found by its ``key`` field; say which (see `_upsert`)."""
    values = {k: v for k, v in record.items() if k != key}
    return _checked(label, _ExistingRows(model, (key,)), {key: record[key]}, values)


def _write_by_key(model: type[models.Model], key: str, file_name: str, records: list[dict[str, Any]]):
    """Rows found by one field (a source's key, a slug) and written as the file gives them."""
    existing = _ExistingRows(model, (key,))
    for record in records:
        values = {k: v for k, v in record.items() if k != key}
        yield _checked(f"{file_name}: {record[key]}", existing, {key: record[key]}, values)


def _write_per_source(
    model: type[models.Model],
    records: list[dict[str, Any]],
    key: tuple[str, ...],
    figures: tuple[str, ...],
    label: str,
):
    """An accelerator's figures as each source gives them: rows found by accelerator, ``key`` and
    source; ``label`` is formatted with the record for error messages."""
    existing = _ExistingRows(model, ("accelerator", *key, "source"))
    accelerators, sources = _by(Accelerator, "slug"), _by(Source, "key")
    for record in records:
        lookup = {
            "accelerator": accelerators[record["accelerator"]],
            **{k: record[k] for k in key},
            "source": sources[record["source"]],
        }
        values = {k: record[k] for k in figures}
        yield _checked(f"accelerators.yaml: {label.format_map(record)}", existing, lookup, values)


def _write_sources(data: CatalogData):
    return _write_by_key(Source, "key", "sources.yaml", data.sources)


def _write_token_api_prices(data: CatalogData):
    """Published per-token prices (token_api_prices.yaml), then the shipped examples."""
    existing = _ExistingRows(TokenApiPrice, ("provider", "model_name", "as_of"))
    sources = _by(Source, "key")
    for record in data.token_api_prices:
        key = {name: record[name] for name in ("provider", "model_name", "as_of")}
        values = {name: value for name, value in record.items() if name not in key}
        yield _upsert(existing, key, {**values, "source": sources[record["source"]], "is_example": False})
    yield from _write_token_api_examples()


def _write_egress_rates(data: CatalogData):
    """Providers' published internet egress prices (egress_rates.yaml), one row a provider and date."""
    existing = _ExistingRows(EgressRate, ("provider", "as_of"))
    sources = _by(Source, "key")
    for record in data.egress_rates:
        key = {name: record[name] for name in ("provider", "as_of")}
        values = {name: value for name, value in record.items() if name not in key}
        yield _checked(f"egress_rates.yaml: {record['provider']}", existing, key,
                       {**values, "source": sources[record["source"]]})


def _write_token_api_examples():
    """The shipped example API prices (catalog/token_api_examples.py), marked as examples."""
    source_values = {k: v for k, v in token_api_examples.SOURCE.items() if k != "key"}
    _upsert(_ExistingRows(Source, ("key",)), {"key": token_api_examples.SOURCE["key"]}, source_values)
    source = Source.objects.get(key=token_api_examples.SOURCE["key"], team__isnull=True)
    existing = _ExistingRows(TokenApiPrice, ("provider", "model_name", "as_of"))
    for provider, model, price_in, cached, price_out in token_api_examples.EXAMPLES:
        yield _upsert(existing, {"provider": provider, "model_name": model,
                                 "as_of": token_api_examples.AS_OF},
                      {"usd_per_million_input": price_in, "usd_per_million_cached_input": cached,
                       "usd_per_million_output": price_out, "source": source, "is_example": True,
                       "note": "Shipped example, not a real price list."})


def _write_accelerators(data: CatalogData):
    return _write_by_key(Accelerator, "slug", "accelerators.yaml", data.accelerators)


def _write_throughputs(data: CatalogData):
    # Rows losing the preferred mark go first, so at most one row per precision is ever preferred.
    records = sorted(data.throughputs, key=lambda r: r["is_preferred"])
    return _write_per_source(
        AcceleratorThroughput, records, ("precision", "is_sparse"), ("tflops", "is_preferred", "note"),
        "{accelerator} {precision} {source}",
    )


def _write_power_caps(data: CatalogData):
    return _write_per_source(
        AcceleratorPowerCap, data.power_caps, ("power_limit_w",),
        ("throughput_loss_pct_low", "throughput_loss_pct_high", "note"),
        "{accelerator} power cap {power_limit_w} W",
    )


def _write_systems(data: CatalogData):
    existing = _ExistingRows(SystemSku, ("slug",))
    accelerators = _by(Accelerator, "slug")
    for record in data.systems:
        label = f"systems.yaml: {record['slug']}"
        if record["accelerator"] not in accelerators:
            raise CatalogDataError(f"{label}: unknown accelerator '{record['accelerator']}'")
        values = {k: v for k, v in record.items() if k != "slug"}
        values["accelerator"] = accelerators[record["accelerator"]]
        yield _checked(label, existing, {"slug": record["slug"]}, values)


def _write_system_power_figures(data: CatalogData):
    existing = _ExistingRows(SystemPowerFigure, ("system", "source", "power_max_kw"))
    systems, sources = _by(SystemSku, "slug"), _by(Source, "key")
    for record in data.system_power_figures:
        lookup = {"system": systems[record["system"]], "source": sources[record["source"]],
                  "power_max_kw": record["power_max_kw"]}
        yield _checked(f"systems.yaml: {record['system']} power figure", existing, lookup,
                       {"note": record["note"]})


OFFERING_KEY = ("provider", "instance_type", "region", "pricing_model")


def _write_offerings(data: CatalogData):
    existing = _ExistingRows(CloudOffering, OFFERING_KEY)
    accelerators = _by(Accelerator, "slug")
    for record in data.offerings:
        key = {k: record[k] for k in OFFERING_KEY}
        label = f"offerings.yaml: {' '.join(key.values())}"
        if record["accelerator"] not in accelerators:
            raise CatalogDataError(f"{label}: unknown accelerator '{record['accelerator']}'")
        values = {
            "accelerator": accelerators[record["accelerator"]],
            "accelerators_per_instance": record["accelerators_per_instance"],
            "notes": record["notes"],
        }
        yield _checked(label, existing, key, values)


def _write_prices(data: CatalogData):
    existing = _ExistingRows(PricePoint, ("offering", "system", "as_of", "source", "amount"))
    sources, systems = _by(Source, "key"), _by(SystemSku, "slug")
    offerings = {tuple(getattr(o, k) for k in OFFERING_KEY): o for o in _public_rows(CloudOffering)}
    targets = [(None, systems[r["system"]], r, "systems.yaml") for r in data.system_prices] + [
        (offerings[tuple(r["offering"].values())], None, r, "offerings.yaml") for r in data.offering_prices
    ]
    for offering, system, record, file_name in targets:
        lookup = {
            "offering": offering,
            "system": system,
            "as_of": record["as_of"],
            "source": sources[record["source"]],
            "amount": record["amount"],
        }
        values = {k: record[k] for k in ("amount_high", "currency", "source_url", "retrieved_at", "note")}
        label = f"{file_name}: price {record['amount']} of {offering or system}"
        yield _checked(label, existing, lookup, values)


def _write_cooling(data: CatalogData):
    return _write_by_key(CoolingTechnology, "slug", "cooling.yaml", data.cooling_technologies)


def _write_facilities(data: CatalogData):
    existing = _ExistingRows(FacilityProfile, ("slug",))
    cooling = _by(CoolingTechnology, "slug")
    for record in data.facility_profiles:
        label = f"facilities.yaml: {record['slug']}"
        values = {k: v for k, v in record.items() if k != "slug"}
        if values.get("max_cooling") not in cooling:
            raise CatalogDataError(f"{label}: unknown cooling technology '{values.get('max_cooling')}'")
        values["max_cooling"] = cooling[values["max_cooling"]]
        yield _checked(label, existing, {"slug": record["slug"]}, values)


def _write_power_densities(data: CatalogData):
    existing = _ExistingRows(PowerDensityReference, ("configuration", "source"))
    sources = _by(Source, "key")
    for record in data.power_densities:
        lookup = {"configuration": record["configuration"], "source": sources[record["source"]]}
        values = {k: v for k, v in record.items() if k not in ("configuration", "source")}
        label = f"power_density.yaml: {record['configuration']}"
        yield _checked(label, existing, lookup, values)


# --- prices -----------------------------------------------------------------------------------


def price_point_record(
    *,
    amount,
    as_of: dt.date,
    source: Source,
    offering: CloudOffering | None = None,
    system: SystemSku | None = None,
    amount_high=None,
    currency: str = "USD",
    source_url: str = "",
    retrieved_at: dt.datetime | None = None,
    note: str = "",
    team: Team | None = None,
) -> tuple[PricePoint, bool]:
    """Record a price of an offering (per instance-hour) or a system (per unit): public, or
    the confidential quote of ``team``.

    History is append-only: an existing row with the same team, target, ``as_of``, source and
    amount is returned unchanged (``created`` False), so recording a price twice adds nothing.

    Raises
    ------
    django.core.exceptions.ValidationError
        With field-named errors (non-positive amount, unknown currency, no or two targets).
    """
    existing = PricePoint.objects.filter(
        team=team, offering=offering, system=system, as_of=as_of, source=source, amount=amount
    ).first()
    if existing is not None:
        return existing, False
    price = PricePoint(
        offering=offering,
        system=system,
        amount=amount,
        amount_high=amount_high,
        currency=currency,
        as_of=as_of,
        source=source,
        source_url=source_url,
        retrieved_at=retrieved_at or timezone.now(),
        note=note,
        team=team,
    )
    price.full_clean()
    price.save()
    return price, True


def _owned_first(rows: models.QuerySet, team: Team | None) -> models.QuerySet:
    """``rows`` that are public or ``team``'s own, the team's first (its quote was against them)."""
    return rows.filter(visible_rows([team.pk] if team else [])).order_by(F("team").asc(nulls_last=True))


# --- quote files ------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuoteImportResult:
    """What importing a quote file wrote."""

    prices_created: int
    prices_unchanged: int
    offerings_created: int


def quote_file_import(*, file_name: str, content: bytes, team: Team | None) -> QuoteImportResult:
    """Import a vendor quote file (CSV or XLSX; columns in ``catalog.importers``) as the
    confidential prices of ``team``, or as public prices when ``team`` is None.

    All or nothing: every row is checked first, and if any is bad the whole file is refused.

    Raises
    ------
    QuoteFileRejected
        Listing every bad row with its row number, column and reason; nothing is written.
    """
    rows, errors = parse_quote_file(file_name=file_name, content=content)
    return quote_rows_import(rows=rows, errors=errors, team=team)


# Rows checked between two progress reports of a quote import.
QUOTE_PROGRESS_EVERY = 250
Progress = Callable[[int], None]


def quote_rows_import(
    *,
    rows: list[QuoteRow],
    errors: Sequence[RowError] = (),
    team: Team | None = None,
    imported_by: User | None = None,
) -> QuoteImportResult:
    """Write parsed quote rows after checking every reference they make, in one transaction;
    see quote_file_import. (An upload is imported by a job, in batches: catalog/quote_imports.py.)

    The new sources move the catalog's revision once, after the commit: a bump per source would
    lock the revision row for the whole write, and every other catalog write with it.
    """
    checked = quote_rows_check(rows=rows, errors=errors, team=team, imported_by=imported_by)
    with revision_once(), transaction.atomic():
        counts = checked.write(0, len(rows))
    return QuoteImportResult(prices_created=counts["prices_created"],
                             prices_unchanged=len(rows) - counts["prices_created"],
                             offerings_created=counts["offerings_created"])


def quote_rows_check(
    *,
    rows: list[QuoteRow],
    errors: Sequence[RowError] = (),
    team: Team | None = None,
    imported_by: User | None = None,
    progress: Progress = lambda rows_checked: None,
) -> QuotesToWrite:
    """Check every row of a parsed quote file and what it refers to, writing nothing; the rows'
    prices, ready to write. QuoteFileRejected names each bad row (``errors`` are the parser's,
    so one refusal lists value and reference errors together).

    The references are read in a few queries, reporting ``progress(rows checked)`` as they go;
    each new source and offering, and each price, is validated here, so writing cannot refuse a
    row once it has begun.
    """
    errors = list(errors)
    lookup = _QuoteLookup(team, rows)
    retrieved_at = timezone.now()
    sources: dict[str, Source] = {}
    prices = []
    for checked, row in enumerate(rows, start=1):
        target = _quote_target(row, errors, lookup)
        try:
            if row.source not in sources:
                sources[row.source] = _quote_source(row, retrieved_at.date(), team)
            if isinstance(target, CloudOffering) and target.pk is None and id(target) not in lookup.new:
                target.full_clean(validate_constraints=False)
                lookup.new[id(target)] = target
        except ValidationError as exc:
            errors += _row_errors(row, exc)
        if target is not None and row.source in sources:
            price = PricePoint(
                **{"offering" if isinstance(target, CloudOffering) else "system": target},
                amount=row.amount, amount_high=row.amount_high, currency=row.currency, as_of=row.as_of,
                source=sources[row.source], source_url=row.source if row.source_is_url else "",
                retrieved_at=retrieved_at, note=row.note, team=team,
            )
            try:
                # The references are checked above and the database holds the constraints: no query a row.
                price.full_clean(exclude=["offering", "system", "source", "team"], validate_unique=False,
                                 validate_constraints=False)
            except ValidationError as exc:
                # A new offering has no id until the first batch saves it: the model's rule of one
                # target, which reads ids, is met by construction here.
                errors += [error for error in _row_errors(row, exc)
                           if not (error.field == "offering" and target.pk is None)]
            prices.append(price)
        if checked % QUOTE_PROGRESS_EVERY == 0:
            progress(checked)
    if errors:
        raise QuoteFileRejected(errors)
    return QuotesToWrite(prices=prices, sources=[s for s in sources.values() if s.pk is None],
                         offerings=list(lookup.new.values()), team=team, imported_by=imported_by)


class QuotesToWrite:
    """A checked quote file's prices, one a row, written a slice at a time inside the caller's
    transaction; the new sources and offerings with the first slice.

    A price already recorded (same team, target, date, source and amount), in the catalog or
    earlier in the file, is counted unchanged and not written again: a file imported again, or
    an import run again after a crash, writes no price twice.
    """

    def __init__(self, *, prices: list[PricePoint], sources: list[Source], offerings: list[CloudOffering],
                 team: Team | None, imported_by: User | None):
        self.prices, self.sources, self.offerings = prices, sources, offerings
        self.team, self.imported_by = team, imported_by
        self.known: set[tuple] | None = None

    def write(self, start: int, stop: int) -> dict[str, int]:
        """Write the prices of rows ``start`` to ``stop``; how many prices and offerings are new."""
        offerings_created = 0
        if self.known is None:
            for source in self.sources:
                source.save()
            CloudOffering.objects.bulk_create(self.offerings)
            offerings_created = len(self.offerings)
            if self.offerings:  # bulk_create sends no post_save
                bump_catalog_revision()
            self.known = set(PricePoint.objects.filter(
                team=self.team, source__in={price.source for price in self.prices},
                as_of__in={price.as_of for price in self.prices},
            ).values_list("offering_id", "system_id", "as_of", "source_id", "amount"))
        new = []
        for price in self.prices[start:stop]:
            key = (getattr(price.offering, "pk", None), price.system_id, price.as_of, price.source.pk,
                   price.amount)
            if key not in self.known:
                self.known.add(key)
                new.append(price)
        # The price history records who imported each price, as it does for one added by hand.
        bulk_create_with_history(new, PricePoint, batch_size=500, default_user=self.imported_by,
                                 default_change_reason="quote import")
        return {"prices_created": len(new), "offerings_created": offerings_created}


class _QuoteLookup:
    """The catalog rows a quote file refers to, each read once: systems, accelerators and the
    offerings the team may quote against (public ones and its own, its own first); and the
    offerings the file introduces (``new``)."""

    def __init__(self, team: Team | None, rows: list[QuoteRow]):
        self.team = team
        self.systems = SystemSku.objects.in_bulk({row.slug for row in rows if row.kind == "system"},
                                                 field_name="slug")
        self.accelerators = Accelerator.objects.in_bulk({row.accelerator for row in rows if row.accelerator},
                                                        field_name="slug")
        self.offerings: dict[tuple[str, ...], CloudOffering] = {}
        self.new: dict[int, CloudOffering] = {}
        offerings = _owned_first(CloudOffering.objects.filter(
            instance_type__in={row.instance_type for row in rows if row.kind == "offering"}), team)
        for offering in offerings.select_related("accelerator").reverse():  # the team's own win
            self.offerings[tuple(getattr(offering, name) for name in OFFERING_KEY)] = offering


def _row_errors(row: QuoteRow, exc: ValidationError) -> list[RowError]:
    return [RowError(row.row, field or "row", message) for field, message in _field_errors(exc)]


def _quote_target(
    row: QuoteRow, errors: list[RowError], lookup: _QuoteLookup
) -> CloudOffering | SystemSku | None:
    """The system or offering a row prices; an unsaved offering when the row introduces one.

    A team's quote finds public offerings and the team's own, and an offering it introduces is
    the team's: its instance name and region are as confidential as its price.
    """
    if row.kind == "system":
        system = lookup.systems.get(row.slug)
        if system is None:
            errors.append(RowError(row.row, "slug", f"unknown system '{row.slug}'"))
        return system
    key = {
        "provider": row.provider,
        "instance_type": row.instance_type,
        "region": row.region,
        "pricing_model": row.pricing_model,
    }
    offering = lookup.offerings.get(tuple(key.values()))
    accelerator = None
    if row.accelerator:
        accelerator = lookup.accelerators.get(row.accelerator)
        if accelerator is None:
            errors.append(RowError(row.row, "accelerator", f"unknown accelerator '{row.accelerator}'"))
            return None
    if offering is not None:
        if accelerator is not None and offering.accelerator_id != accelerator.pk:
            errors.append(
                RowError(
                    row.row,
                    "accelerator",
                    f"the offering exists with accelerator '{offering.accelerator.slug}'",
                )
            )
        if row.accelerators_per_instance not in (None, offering.accelerators_per_instance):
            errors.append(
                RowError(
                    row.row,
                    "accelerators_per_instance",
                    f"the offering exists with {offering.accelerators_per_instance} per instance",
                )
            )
        return offering
    if accelerator is None:
        errors.append(RowError(row.row, "accelerator", "is required for an offering not in the catalog"))
    if row.accelerators_per_instance is None:
        errors.append(
            RowError(row.row, "accelerators_per_instance", "is required for an offering not in the catalog")
        )
    if accelerator is None or row.accelerators_per_instance is None:
        return None
    offering = CloudOffering(**key, accelerator=accelerator,
                             accelerators_per_instance=row.accelerators_per_instance, team=lookup.team)
    lookup.offerings[tuple(key.values())] = offering
    return offering


def _quote_source(row: QuoteRow, retrieved_on: dt.date, team: Team | None) -> Source:
    """The row's source: a public one or the team's own, else a new one of the team, checked and
    not saved yet."""
    source = _owned_first(Source.objects.filter(key=row.source), team).first()
    if source is not None:
        return source
    source = Source(
        team=team,
        key=row.source,
        title=row.source[:300],
        kind=SourceKind.QUOTE,
        url=row.source if row.source_is_url else "",
        retrieved_on=retrieved_on,
    )
    try:
        source.full_clean()
    except ValidationError as exc:
        # The row's only say in the Source is its `source` column, so that is what is wrong.
        raise ValidationError({"source": [message for _, message in _field_errors(exc)]}) from exc
    return source
