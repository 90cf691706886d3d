"""Read the catalog's YAML data files (``catalog/data/``) into plain records, without querying.

The files are written by hand from the seed documents; ``catalog/data/README.md`` describes their
format and the rules applied here:

- Every figure names its sources: an entry's ``source`` applies to each figure it gives, and
  ``sources: {field: [keys]}`` overrides it per figure. The result is the row's ``field_sources``.
- A throughput row may list several precisions or sources; it becomes one row per pair.
- Per precision, the *preferred* figure is the dense row marked ``preferred: true``; when no row
  is marked, the dense rows must agree and the first is preferred. ``preferred: false`` keeps a
  figure for the record without ever using it.
- A price quoted per accelerator-hour (``amount_per_accelerator_hour``) is stored per
  instance-hour (times the offering's accelerators per instance), the original in its note.
- A price's as-of date defaults to its source's ``published_on``; its retrieval time is the
  source's ``retrieved_on`` at midnight UTC, so loading twice gives identical rows.
- A system's planning price range is the price marked ``planning_range: true``, or its only price.
- A system given only its maximum power gets the documented idle share as its idle power.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml
from django.db import models

from catalog.models import Accelerator
from catalog.models import CoolingTechnology
from catalog.models import FacilityProfile
from catalog.models import PowerDensityReference
from catalog.models import SystemSku

DATA_DIR = Path(__file__).resolve().parent / "data"
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

ACCELERATOR_FIGURES = Accelerator.FIGURE_FIELDS
# A system's purchase price range is set from its planning price, never given directly.
SYSTEM_FIGURES = tuple(f for f in SystemSku.FIGURE_FIELDS if not f.startswith("purchase_price"))
COOLING_FIGURES = CoolingTechnology.FIGURE_FIELDS
FACILITY_FIGURES = FacilityProfile.FIGURE_FIELDS
DECIMAL_FIELDS = frozenset(
    field.name
    for model in (Accelerator, SystemSku, CoolingTechnology, FacilityProfile, PowerDensityReference)
    for field in model._meta.fields
    if isinstance(field, models.DecimalField)
)


class CatalogDataError(ValueError):
    """A data file breaks the format or the provenance rules; the message says where."""


@dataclass
class CatalogData:
    """Every record the data files describe, ready for the loader service to write."""

    sources: list[dict[str, Any]] = field(default_factory=list)
    accelerators: list[dict[str, Any]] = field(default_factory=list)
    throughputs: list[dict[str, Any]] = field(default_factory=list)
    power_caps: list[dict[str, Any]] = field(default_factory=list)
    systems: list[dict[str, Any]] = field(default_factory=list)
    system_prices: list[dict[str, Any]] = field(default_factory=list)
    system_power_figures: list[dict[str, Any]] = field(default_factory=list)
    offerings: list[dict[str, Any]] = field(default_factory=list)
    offering_prices: list[dict[str, Any]] = field(default_factory=list)
    cooling_technologies: list[dict[str, Any]] = field(default_factory=list)
    facility_profiles: list[dict[str, Any]] = field(default_factory=list)
    power_densities: list[dict[str, Any]] = field(default_factory=list)
    token_api_prices: list[dict[str, Any]] = field(default_factory=list)
    egress_rates: list[dict[str, Any]] = field(default_factory=list)


def to_decimal(value: Any) -> Decimal:
    """Decimal from a YAML number without binary-float noise (32.77 stays 32.77)."""
    return Decimal(str(value))


def read_catalog_data(data_dir: Path = DATA_DIR) -> CatalogData:
    """Read and check all data files in ``data_dir``.

    Raises
    ------
    CatalogDataError
        Naming the file and entry of the first problem found.
    """
    data = CatalogData()
    sources = _read_sources(_load(data_dir, "sources.yaml", "sources"), data)
    _read_accelerators(_load(data_dir, "accelerators.yaml", "accelerators"), sources, data)
    _read_systems(_load_document(data_dir / "systems.yaml"), sources, data)
    _read_offerings(_load(data_dir, "offerings.yaml", "offerings"), sources, data)
    _read_cooling(_load(data_dir, "cooling.yaml", "cooling_technologies"), sources, data)
    _read_facilities(_load(data_dir, "facilities.yaml", "facility_profiles"), sources, data)
    _read_power_densities(_load(data_dir, "power_density.yaml", "power_densities"), sources, data)
    _read_token_api_prices(_load(data_dir, "token_api_prices.yaml", "token_api_prices"), sources, data)
    _read_egress_rates(_load(data_dir, "egress_rates.yaml", "egress_rates"), sources, data)
    return data


# --- file and entry helpers -------------------------------------------------------------------


def _load_document(path: Path) -> dict[str, Any]:
    try:
        # libyaml's safe loader parses the files ten times faster than the pure-Python one.
        document = yaml.load(path.read_text(encoding="utf-8"), Loader=SafeLoader)
    except (OSError, yaml.YAMLError) as exc:
        raise CatalogDataError(f"{path.name}: cannot read: {exc}") from exc
    if not isinstance(document, dict):
        raise CatalogDataError(f"{path.name}: expected a mapping at the top level")
    return document


def _load(data_dir: Path, file_name: str, list_key: str) -> list[tuple[str, dict[str, Any]]]:
    return _entries(_load_document(data_dir / file_name), file_name, list_key)


def _entries(document: dict[str, Any], file_name: str, list_key: str) -> list[tuple[str, dict[str, Any]]]:
    """The entries of a file's list, each with a label saying where it is, for error messages."""
    entries = document.get(list_key)
    if not isinstance(entries, list):
        raise CatalogDataError(f"{file_name}: expected a list under '{list_key}'")
    labelled = []
    for index, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise CatalogDataError(f"{file_name}: entry {index} is not a mapping")
        name = entry.get("slug") or entry.get("key") or entry.get("instance_type") or index
        labelled.append((f"{file_name}: {name}", entry))
    return labelled


def _check_keys(entry: dict[str, Any], where: str, required: set[str], optional: set[str]) -> None:
    missing = required - entry.keys()
    if missing:
        raise CatalogDataError(f"{where}: missing {', '.join(sorted(missing))}")
    unknown = entry.keys() - required - optional
    if unknown:
        raise CatalogDataError(f"{where}: unknown keys {', '.join(sorted(unknown))}")


def _checked(
    entries: list[tuple[str, dict[str, Any]]], required: set[str], optional: set[str]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each entry in turn, once its keys are checked (so the first bad entry is the one named)."""
    for where, entry in entries:
        _check_keys(entry, where, required, optional)
        yield where, entry


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _source_keys(value: Any, sources: dict[str, dict[str, Any]], where: str) -> list[str]:
    keys = _as_list(value)
    for key in keys:
        if key not in sources:
            raise CatalogDataError(f"{where}: unknown source '{key}'")
    return keys


def _figures(
    entry: dict[str, Any], names: tuple[str, ...], sources: dict[str, dict[str, Any]], where: str
) -> dict[str, Any]:
    """The figures an entry gives, converted, plus their ``field_sources``."""
    default = entry.get("source")
    overrides = entry.get("sources") or {}
    unknown = set(overrides) - set(names)
    if unknown:
        raise CatalogDataError(f"{where}: sources given for non-figures {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    field_sources: dict[str, list[str]] = {}
    for name in names:
        value = entry.get(name)
        if value is None:
            continue
        values[name] = to_decimal(value) if name in DECIMAL_FIELDS else value
        keys = overrides.get(name, default)
        if keys is None:
            raise CatalogDataError(f"{where}: {name} has no source")
        field_sources[name] = _source_keys(keys, sources, f"{where}: {name}")
    values["field_sources"] = field_sources
    return values


def _retrieved_at(source: dict[str, Any]) -> dt.datetime:
    return dt.datetime.combine(source["retrieved_on"], dt.time.min, tzinfo=dt.UTC)


def _price(
    entry: dict[str, Any],
    sources: dict[str, dict[str, Any]],
    where: str,
    accelerators_per_instance: int | None = None,
) -> dict[str, Any]:
    optional = {"amount", "amount_high", "currency", "as_of", "note", "source_url", "planning_range"}
    if accelerators_per_instance is not None:
        optional |= {"amount_per_accelerator_hour", "amount_high_per_accelerator_hour"}
    _check_keys(entry, where, {"source"}, optional)
    (source_key,) = _source_keys(entry["source"], sources, where)
    source = sources[source_key]
    note = entry.get("note", "")
    per_accelerator = entry.get("amount_per_accelerator_hour")
    if per_accelerator is not None:
        if "amount" in entry:
            raise CatalogDataError(f"{where}: give amount or amount_per_accelerator_hour, not both")
        amount = to_decimal(per_accelerator) * accelerators_per_instance
        high_per = entry.get("amount_high_per_accelerator_hour")
        amount_high = None if high_per is None else to_decimal(high_per) * accelerators_per_instance
        conversion = (
            f"Quoted per accelerator-hour (${per_accelerator}"
            + (f"–{high_per}" if high_per is not None else "")
            + f"), stored per instance-hour × {accelerators_per_instance}."
        )
        note = f"{note} {conversion}".strip()
    elif "amount" in entry:
        amount = to_decimal(entry["amount"])
        amount_high = None if entry.get("amount_high") is None else to_decimal(entry["amount_high"])
    else:
        raise CatalogDataError(f"{where}: price needs an amount")
    as_of = entry.get("as_of", source["published_on"])
    if as_of is None:
        raise CatalogDataError(f"{where}: source {source_key} has no date; give as_of")
    return {
        "amount": amount,
        "amount_high": amount_high,
        "currency": entry.get("currency", "USD"),
        "as_of": as_of,
        "source": source_key,
        "source_url": entry.get("source_url", source.get("url", "")),
        "retrieved_at": _retrieved_at(source),
        "note": note,
    }


# --- one reader per file ----------------------------------------------------------------------


def _read_sources(entries, data: CatalogData) -> dict[str, dict[str, Any]]:
    sources: dict[str, dict[str, Any]] = {}
    for where, entry in _checked(
        entries,
        {"key", "title", "kind", "retrieved_on"},
        {"url", "document", "published_on", "date_basis", "note"},
    ):
        if entry["key"] in sources:
            raise CatalogDataError(f"{where}: duplicate key")
        if entry.get("published_on") and not entry.get("date_basis"):
            raise CatalogDataError(f"{where}: say in date_basis where published_on comes from")
        record = {
            "key": entry["key"],
            "title": entry["title"],
            "kind": entry["kind"],
            "url": entry.get("url", ""),
            "document": entry.get("document", ""),
            "published_on": entry.get("published_on"),
            "date_basis": entry.get("date_basis", ""),
            "retrieved_on": entry["retrieved_on"],
            "note": entry.get("note", "").strip(),
        }
        sources[record["key"]] = record
        data.sources.append(record)
    return sources


def _read_accelerators(entries, sources, data: CatalogData) -> None:
    for where, entry in _checked(
        entries,
        {"slug", "vendor", "family", "name", "kind"},
        {"source", "sources", "notes", "throughput", "power_caps", *ACCELERATOR_FIGURES},
    ):
        data.accelerators.append(
            {
                "slug": entry["slug"],
                "vendor": entry["vendor"],
                "family": entry["family"],
                "name": entry["name"],
                "kind": entry["kind"],
                "notes": entry.get("notes", "").strip(),
                **_figures(entry, ACCELERATOR_FIGURES, sources, where),
            }
        )
        data.throughputs.extend(_throughputs(entry["slug"], entry.get("throughput", []), sources, where))
        for cap in entry.get("power_caps", []):
            _check_keys(cap, where, {"power_limit_w", "loss_pct", "source"}, {"note"})
            low, high = cap["loss_pct"]
            (source_key,) = _source_keys(cap["source"], sources, where)
            data.power_caps.append(
                {
                    "accelerator": entry["slug"],
                    "power_limit_w": cap["power_limit_w"],
                    "throughput_loss_pct_low": to_decimal(low),
                    "throughput_loss_pct_high": to_decimal(high),
                    "source": source_key,
                    "note": cap.get("note", ""),
                }
            )


def _throughputs(slug: str, entries: list[dict[str, Any]], sources, where: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    marks: list[bool | None] = []
    for entry in entries:
        _check_keys(entry, where, {"precision", "tflops", "source"}, {"sparse", "preferred", "note"})
        sparse = bool(entry.get("sparse", False))
        if sparse and entry.get("preferred"):
            raise CatalogDataError(f"{where}: a with-sparsity figure cannot be preferred")
        for precision in _as_list(entry["precision"]):
            for source_key in _source_keys(entry["source"], sources, where):
                rows.append(
                    {
                        "accelerator": slug,
                        "precision": precision,
                        "tflops": to_decimal(entry["tflops"]),
                        "is_sparse": sparse,
                        "is_preferred": False,
                        "source": source_key,
                        "note": entry.get("note", "").strip(),
                    }
                )
                marks.append(entry.get("preferred"))
    for precision in dict.fromkeys(row["precision"] for row in rows):
        _choose_preferred(rows, marks, precision, f"{where}: {precision}")
    return rows


def _choose_preferred(rows, marks, precision: str, where: str) -> None:
    dense = [
        (row, mark)
        for row, mark in zip(rows, marks, strict=True)
        if row["precision"] == precision and not row["is_sparse"]
    ]
    marked = [row for row, mark in dense if mark is True]
    if len(marked) > 1:
        raise CatalogDataError(f"{where}: more than one figure marked preferred")
    if marked:
        marked[0]["is_preferred"] = True
        return
    candidates = [row for row, mark in dense if mark is not False]
    if not candidates:
        return
    if len({row["tflops"] for row in candidates}) > 1:
        raise CatalogDataError(f"{where}: dense figures disagree; mark one preferred: true")
    candidates[0]["is_preferred"] = True


def _read_systems(document: dict[str, Any], sources, data: CatalogData) -> None:
    idle_share = to_decimal(document["idle_power_share_of_max"])
    (idle_source,) = _source_keys(document["idle_power_source"], sources, "systems.yaml")
    entries = _entries(document, "systems.yaml", "systems")
    for where, entry in _checked(
        entries,
        {"slug", "name", "vendor", "kind", "accelerator", "accelerators_per_system"},
        {"source", "sources", "notes", "purchase_prices", "power_figures", *SYSTEM_FIGURES},
    ):
        record = {
            "slug": entry["slug"],
            "name": entry["name"],
            "vendor": entry["vendor"],
            "kind": entry["kind"],
            "accelerator": entry["accelerator"],
            "notes": entry.get("notes", "").strip(),
            **_figures(entry, SYSTEM_FIGURES, sources, where),
        }
        if "power_max_kw" in record and "power_idle_kw" not in record:
            record["power_idle_kw"] = (record["power_max_kw"] * idle_share).quantize(Decimal("0.001"))
            record["field_sources"]["power_idle_kw"] = [idle_source]
        prices = [_price(p, sources, where) for p in entry.get("purchase_prices", [])]
        planning = _planning_price(entry.get("purchase_prices", []), prices, where)
        if planning is not None:
            record["purchase_price_low_usd"] = planning["amount"]
            record["field_sources"]["purchase_price_low_usd"] = [planning["source"]]
            if planning["amount_high"] is not None:
                record["purchase_price_high_usd"] = planning["amount_high"]
                record["field_sources"]["purchase_price_high_usd"] = [planning["source"]]
        data.systems.append(record)
        data.system_prices.extend({"system": entry["slug"], **price} for price in prices)
        data.system_power_figures.extend(_power_figures(entry, sources, where))


def _power_figures(entry: dict[str, Any], sources, where: str) -> Iterator[dict[str, Any]]:
    """Other sources' maximum power of a system, kept beside the figure it is costed at."""
    for figure in entry.get("power_figures", []):
        _check_keys(figure, where, {"power_max_kw", "source"}, {"note"})
        (source_key,) = _source_keys(figure["source"], sources, where)
        yield {"system": entry["slug"], "power_max_kw": to_decimal(figure["power_max_kw"]),
               "source": source_key, "note": figure.get("note", "").strip()}


def _planning_price(entries, prices, where: str) -> dict[str, Any] | None:
    if not prices:
        return None
    marked = [price for entry, price in zip(entries, prices, strict=True) if entry.get("planning_range")]
    if len(marked) > 1:
        raise CatalogDataError(f"{where}: more than one price marked planning_range")
    if not marked and len(prices) > 1:
        raise CatalogDataError(f"{where}: several prices; mark one planning_range: true")
    planning = marked[0] if marked else prices[0]
    if planning["currency"] != "USD":
        raise CatalogDataError(f"{where}: the planning range must be in USD")
    return planning


def _read_offerings(entries, sources, data: CatalogData) -> None:
    for where, entry in _checked(
        entries,
        {"provider", "instance_type", "accelerator", "accelerators_per_instance", "pricing_model"},
        {"region", "notes", "prices"},
    ):
        key = {
            "provider": entry["provider"],
            "instance_type": entry["instance_type"],
            "region": entry.get("region", "unspecified"),
            "pricing_model": entry["pricing_model"],
        }
        data.offerings.append(
            {
                **key,
                "accelerator": entry["accelerator"],
                "accelerators_per_instance": entry["accelerators_per_instance"],
                "notes": entry.get("notes", "").strip(),
            }
        )
        for price in entry.get("prices", []):
            data.offering_prices.append(
                {"offering": key, **_price(price, sources, where, entry["accelerators_per_instance"])}
            )


def _read_cooling(entries, sources, data: CatalogData) -> None:
    data.cooling_technologies.extend(_sourced_rows(entries, sources, ("slug", "name"), COOLING_FIGURES))


def _read_facilities(entries, sources, data: CatalogData) -> None:
    data.facility_profiles.extend(_sourced_rows(entries, sources, ("slug", "name", "kind"), FACILITY_FIGURES))


def _sourced_rows(entries, sources, plain: tuple[str, ...], figures: tuple[str, ...]) -> list[dict[str, Any]]:
    """Rows of ``plain`` fields as written, notes, and ``figures`` each with the sources it names."""
    rows = []
    for where, entry in _checked(entries, {*plain, "source"}, {"sources", "notes", *figures}):
        rows.append(
            {
                **{field: entry[field] for field in plain},
                "notes": entry.get("notes", "").strip(),
                **_figures(entry, figures, sources, where),
            }
        )
    return rows


def _read_power_densities(entries, sources, data: CatalogData) -> None:
    for where, entry in _checked(
        entries,
        {"configuration", "source"},
        {"power_kw", "racks", "kw_per_rack_low", "kw_per_rack_high", "cooling_note", "note"},
    ):
        (source_key,) = _source_keys(entry["source"], sources, where)
        record = {
            "configuration": entry["configuration"],
            "source": source_key,
            "racks": entry.get("racks"),
            "cooling_note": entry.get("cooling_note", ""),
            "note": entry.get("note", "").strip(),
        }
        for name in ("power_kw", "kw_per_rack_low", "kw_per_rack_high"):
            value = entry.get(name)
            record[name] = None if value is None else to_decimal(value)
        data.power_densities.append(record)


def _read_token_api_prices(entries, sources, data: CatalogData) -> None:
    """Published per-token prices (USD per million tokens); cached input defaults to input;
    ``training`` is a fine-tuning price per million training tokens, where one is published."""
    for where, entry in _checked(entries, {"provider", "model", "input", "output", "source"},
                                 {"cached_input", "as_of", "note", "serves_model",
                                  "training"}):
        (source_key,) = _source_keys(entry["source"], sources, where)
        as_of = entry.get("as_of", sources[source_key]["published_on"])
        if as_of is None:
            raise CatalogDataError(f"{where}: source {source_key} has no date; give as_of")
        data.token_api_prices.append({
            "provider": entry["provider"],
            "model_name": entry["model"],
            "usd_per_million_input": to_decimal(entry["input"]),
            "usd_per_million_cached_input": to_decimal(entry.get("cached_input", entry["input"])),
            "usd_per_million_output": to_decimal(entry["output"]),
            "usd_per_million_training": (None if entry.get("training") is None
                                         else to_decimal(entry["training"])),
            "as_of": as_of,
            "source": source_key,
            "serves_model": entry.get("serves_model", ""),
            "note": entry.get("note", "").strip(),
        })


def _read_egress_rates(entries, sources, data: CatalogData) -> None:
    """Providers' published internet egress prices (USD per GB), dated by their source."""
    for where, entry in _checked(entries, {"provider", "usd_per_gb", "tier", "source"}, {"as_of", "note"}):
        (source_key,) = _source_keys(entry["source"], sources, where)
        as_of = entry.get("as_of", sources[source_key]["published_on"])
        if as_of is None:
            raise CatalogDataError(f"{where}: source {source_key} has no date; give as_of")
        data.egress_rates.append({
            "provider": entry["provider"],
            "usd_per_gb": to_decimal(entry["usd_per_gb"]),
            "tier": entry["tier"],
            "as_of": as_of,
            "source": source_key,
            "note": entry.get("note", "").strip(),
        })
