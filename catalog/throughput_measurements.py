"""Load ``throughput_measurements.yaml``: published serving throughputs, and the seeds' claims judged.

Each row names a model preset, a catalog accelerator and the document it was read from. Every
row is judged against the memory and bandwidth it would need (`judge_claim`): a row that fails
is stored with its arithmetic and never calibrated on; the seeds' claims, which state no
serving software nor lengths, are never calibrated on either.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from catalog.datafiles import DATA_DIR
from catalog.datafiles import CatalogDataError
from catalog.models import Accelerator
from catalog.models import Source
from catalog.models import ThroughputMeasurement
from catalog.models import ThroughputMeasurementKind
from costmodel.model_presets import MODEL_PRESETS
from costmodel.sizing import AcceleratorSpec
from costmodel.sizing import Precision
from costmodel.sizing.calibration import judge_claim

FILE_NAME = "throughput_measurements.yaml"
DOCUMENT_KEYS = {"key", "title", "kind", "url", "published_on", "date_basis", "note"}
MEASUREMENT_REQUIRED = {"key", "document", "where", "model", "accelerator", "accelerators",
                        "tensor_parallel", "precision", "software", "input_tokens",
                        "output_tokens", "tokens_per_s"}
MEASUREMENT_OPTIONAL = {"concurrency", "model_note", "note", "measured_on"}
CLAIM_REQUIRED = {"key", "document", "where", "model", "accelerator", "accelerators", "precision",
                  "batch_size", "tokens_per_s"}
NO_CONFIGURATION = ("Not calibrated on: the document states no serving software, input or output "
                    "length.")


def _checked_keys(row: dict[str, Any], required: set[str], optional: set[str], where: str) -> None:
    missing = sorted(required - set(row))
    unknown = sorted(set(row) - required - optional)
    if missing or unknown:
        problems = [f"missing {', '.join(missing)}"] if missing else []
        problems += [f"unknown {', '.join(unknown)}"] if unknown else []
        raise CatalogDataError(f"{where}: {'; '.join(problems)}")


def read_file(data_dir: Path = DATA_DIR) -> dict[str, list[dict[str, Any]]]:
    """The file's documents, measurements and seed claims, their keys and references checked."""
    path = data_dir / FILE_NAME
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise CatalogDataError(f"{FILE_NAME}: {exc}") from exc
    sections = {name: document.get(name) or [] for name in ("documents", "measurements",
                                                              "seed_claims")}
    for row in sections["documents"]:
        _checked_keys(row, {"key", "title", "kind"}, DOCUMENT_KEYS, f"{FILE_NAME}: {row.get('key')}")
    for name, required, optional in (("measurements", MEASUREMENT_REQUIRED, MEASUREMENT_OPTIONAL),
                                     ("seed_claims", CLAIM_REQUIRED, {"note"})):
        for row in sections[name]:
            where = f"{FILE_NAME}: {row.get('key')}"
            _checked_keys(row, required, optional, where)
            if row["model"] not in MODEL_PRESETS:
                raise CatalogDataError(f"{where}: model: unknown preset {row['model']!r}")
            try:
                Precision(row["precision"])
            except ValueError as exc:
                raise CatalogDataError(f"{where}: precision: unknown {row['precision']!r}") from exc
            if not float(row["tokens_per_s"]) > 0:
                raise CatalogDataError(f"{where}: tokens_per_s: must be positive")
    return sections


def _judged(row: dict[str, Any], accelerator: Accelerator, batch: float) -> tuple[bool, str]:
    spec = AcceleratorSpec(accelerator.name, float(accelerator.memory_gb),
                           float(accelerator.memory_bandwidth_gb_per_s))
    verdict = judge_claim(MODEL_PRESETS[row["model"]], spec, float(row["accelerators"]),
                          Precision(row["precision"]), batch, float(row["tokens_per_s"]))
    return verdict.possible, verdict.arithmetic


Upsert = Callable[[type, str, str, dict[str, Any]], str]


def write(upsert_by_key: Upsert, data_dir: Path = DATA_DIR) -> Counter:
    """Create or update the file's sources and rows (matched by key) with the catalog loader's
    ``upsert_by_key(model, key field, label, record)``; count what changed."""
    sections = read_file(data_dir)
    counter: Counter = Counter({"created": 0, "updated": 0, "unchanged": 0})
    for row in sections["documents"]:
        upsert_by_key(Source, "key", f"{FILE_NAME}: {row['key']}", row)
    sources = {s.key: s for s in Source.objects.filter(team__isnull=True)}
    accelerators = {a.slug: a for a in Accelerator.objects.all()}
    rows = [(ThroughputMeasurementKind.MEASUREMENT, row) for row in sections["measurements"]]
    rows += [(ThroughputMeasurementKind.SEED_CLAIM, row) for row in sections["seed_claims"]]
    for kind, row in rows:
        where = f"{FILE_NAME}: {row['key']}"
        if row["document"] not in sources:
            raise CatalogDataError(f"{where}: document: unknown source {row['document']!r}")
        accelerator = accelerators.get(row["accelerator"])
        if accelerator is None or accelerator.memory_gb is None \
                or accelerator.memory_bandwidth_gb_per_s is None:
            raise CatalogDataError(f"{where}: accelerator: {row['accelerator']!r} is not in the "
                                   "catalog with memory and bandwidth")
        claim = kind == ThroughputMeasurementKind.SEED_CLAIM
        batch = row.get("batch_size") if claim else row.get("concurrency")
        possible, arithmetic = _judged(row, accelerator,
                                       math.inf if batch is None else float(batch))
        note = row.get("note", "")
        if claim:
            note = f"{NO_CONFIGURATION} {note}".strip()
        values = {
            "kind": kind, "source": sources[row["document"]], "where": row["where"],
            "model_key": row["model"], "model_note": row.get("model_note", ""),
            "accelerator": accelerator, "accelerators": row["accelerators"],
            "tensor_parallel": row.get("tensor_parallel"), "precision": row["precision"],
            "serving_software": row.get("software", ""), "concurrency": batch,
            # A result dates from its own publication, else from its document's.
            "measured_on": row.get("measured_on") or sources[row["document"]].published_on,
            "input_tokens": row.get("input_tokens"), "output_tokens": row.get("output_tokens"),
            "tokens_per_s": Decimal(str(row["tokens_per_s"])).quantize(Decimal("0.01")),
            "physically_possible": possible,
            "judgement": arithmetic, "calibrated": possible and not claim, "note": note,
        }
        counter[upsert_by_key(ThroughputMeasurement, "key", where, {"key": row["key"], **values})] += 1
    return counter

