"""The catalog's published measurements as the calibration every inference sizing uses.

`calibration()` fits the engine's regime efficiencies on the catalog rows marked
``calibrated`` (cached until those rows or their accelerators change); `calibrated()` hands
them, with the range the leave-one-out spread gives, to `costmodel.sizing.size_inference`
(through `tco.services.sizing`, the one path of every inference sizing). `nearest_measurements`
names the measurements closest to a sized configuration with their dates and ages,
`catalog_software_gain` the yearly gain fitted on the catalog's dated results of one
configuration, and `api_breakeven` the per-token API volume above which the sized fleet is
cheaper, at the estimate and at both ends of its range.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date
from typing import Any

from django.utils import timezone

from catalog.models import Accelerator
from catalog.models import ThroughputMeasurement
from catalog.models import ThroughputMeasurementKind
from costmodel.inputs import HOURS_PER_MONTH
from costmodel.metrics import SECONDS_PER_HOUR
from costmodel.model_presets import model_preset
from costmodel.sizing import ModelShape
from costmodel.sizing import Precision
from costmodel.sizing import SizingInputError
from costmodel.sizing.calibration import Calibration
from costmodel.sizing.calibration import Measurement
from costmodel.sizing.calibration import calibrate
from costmodel.sizing.calibration import nearest
from costmodel.sizing.inference import Calibrated
from costmodel.sizing.results import jsonable
from costmodel.sizing.software_gain import DAYS_PER_YEAR
from costmodel.sizing.software_gain import DatedResult
from costmodel.sizing.software_gain import YearlyGain
from costmodel.sizing.software_gain import fit_yearly_gain
from costmodel.sizing.throughput import ServingSetup
from costmodel.sizing.throughput import serving_throughput
from tco.services.accelerator_spec import accelerator_spec

_CACHE: dict[tuple, Calibration] = {}


def serving_setup(*, model: ModelShape, accelerator: Accelerator, accelerators: float,
                  tensor_parallel: float, precision: str, input_tokens: float,
                  output_tokens: float, concurrency: float | None = None) -> ServingSetup:
    """The engine's configuration for a catalog accelerator (its NVLink/Infinity Fabric
    bandwidth, where the catalog has one, carries the tensor-parallel all-reduces)."""
    return ServingSetup(
        model=model, accelerator=accelerator_spec(accelerator), accelerators=float(accelerators),
        tensor_parallel=float(tensor_parallel), precision=Precision(precision),
        input_tokens=float(input_tokens), output_tokens=float(output_tokens),
        concurrency=math.nan if concurrency is None else float(concurrency))


def measurement_of(row: ThroughputMeasurement) -> Measurement:
    """A catalog measurement as the engine fits it."""
    setup = serving_setup(model=model_preset(row.model_key), accelerator=row.accelerator,
                          accelerators=row.accelerators, tensor_parallel=row.tensor_parallel,
                          precision=row.precision, input_tokens=row.input_tokens,
                          output_tokens=row.output_tokens, concurrency=row.concurrency)
    label = (f"{row.model_key} on {row.accelerators} x {row.accelerator.name}, "
             f"{row.precision.upper()}, {row.serving_software}")
    return Measurement(row.key, setup, float(row.tokens_per_s), label)


def calibration_rows() -> list[ThroughputMeasurement]:
    """The catalog measurements the estimate is fitted on."""
    return list(ThroughputMeasurement.objects.filter(
        kind=ThroughputMeasurementKind.MEASUREMENT, calibrated=True,
    ).select_related("accelerator", "source").prefetch_related("accelerator__throughputs").order_by("key"))


def _fingerprint(rows: Sequence[ThroughputMeasurement]) -> tuple:
    return tuple((r.key, str(r.tokens_per_s), r.accelerators, r.tensor_parallel, r.precision,
                  r.concurrency, r.input_tokens, r.output_tokens, r.model_key,
                  r.accelerator.memory_gb, r.accelerator.memory_bandwidth_gb_per_s,
                  r.accelerator.interconnect_bandwidth_gb_per_s,
                  tuple(sorted(accelerator_spec(r.accelerator).dense_tflops.items())))
                 for r in rows)


def calibration() -> tuple[Calibration, list[ThroughputMeasurement], list[Measurement]]:
    """The fit on the catalog's calibrated measurements (cached until they change), the rows and
    their engine view. Raises SizingInputError naming ``measurements`` when there are none."""
    rows = calibration_rows()
    if not rows:
        raise SizingInputError("measurements", "the catalog has no throughput measurements to "
                               "calibrate on; run load_catalog")
    measurements = [measurement_of(row) for row in rows]
    key = _fingerprint(rows)
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = calibrate(measurements)
    return _CACHE[key], rows, measurements


def calibrated() -> Calibrated:
    """The fitted efficiencies and the range they leave, as the engine's sizing takes them."""
    fitted, _, measurements = calibration()
    return Calibrated(fitted.efficiency, fitted.range_low, fitted.range_high,
                      f"{len(measurements)} published measurements (catalog)")


def calibration_summary() -> dict[str, Any]:
    """The fit as an answer shows it: efficiencies, how many measurements, the median ratio,
    the range factors and the leave-one-out miss."""
    fitted, _, measurements = calibration()
    return {"efficiency": jsonable(fitted.efficiency), "measurements": len(measurements),
            "median_ratio": round(fitted.median_ratio, 3),
            "range_low": round(fitted.range_low, 3), "range_high": round(fitted.range_high, 3),
            "leave_one_out_median_abs_log_error": round(
                fitted.leave_one_out_median_abs_log_error, 3)}


def age_years(published_on: date | None, today: date | None = None) -> float | None:
    """Years from a result's publication to ``today`` (default: the local date), one decimal."""
    if published_on is None:
        return None
    today = today or timezone.localdate()
    return round((today - published_on).days / DAYS_PER_YEAR, 1)


def _length_bucket(tokens: int | None) -> int:
    """Request lengths within about 10 % of each other share a bucket (294 and 302 do)."""
    return round(math.log(tokens or 1) / math.log(1.1))


def catalog_software_gain() -> YearlyGain | None:
    """The yearly gain fitted on the catalog's published measurements of one configuration
    (accelerator, model, weight format, fleet, layout, load and request lengths) at two dates or
    more; None when it has no such pair."""
    rows = ThroughputMeasurement.objects.filter(
        kind=ThroughputMeasurementKind.MEASUREMENT, calibrated=True, measured_on__isnull=False,
    ).select_related("accelerator")
    return fit_yearly_gain([
        DatedResult((row.accelerator.slug, row.model_key, row.precision, row.accelerators,
                     row.tensor_parallel, row.concurrency, _length_bucket(row.input_tokens),
                     _length_bucket(row.output_tokens)),
                    row.measured_on, float(row.tokens_per_s) / row.accelerators,
                    f"{row.model_key} on {row.accelerators} x {row.accelerator.name}, "
                    f"{row.precision.upper()}")
        for row in rows])


def nearest_measurements(setup: ServingSetup) -> list[dict[str, Any]]:
    """The catalog measurements nearest to ``setup``, each with its estimate / measured, its
    date, age and software."""
    fitted, rows, measurements = calibration()
    by_key = {row.key: row for row in rows}
    found = []
    for measurement, gap in nearest(measurements, setup):
        row = by_key[measurement.key]
        estimate = float(serving_throughput(measurement.setup, fitted.efficiency).tokens_per_s)
        found.append({
            "key": row.key, "description": measurement.label, "source": row.source.title,
            "url": row.source.url, "where": row.where, "distance": round(gap, 3),
            "measured_tokens_per_s": measurement.tokens_per_s,
            "estimated_tokens_per_s": round(estimate, 1),
            "ratio": round(estimate / measurement.tokens_per_s, 3),
            "input_tokens": row.input_tokens, "output_tokens": row.output_tokens,
            "concurrency": row.concurrency, "accelerators": row.accelerators,
            "software": row.serving_software,
            "measured_on": None if row.measured_on is None else row.measured_on.isoformat(),
            "age_years": age_years(row.measured_on),
        })
    return found


def api_breakeven(accelerators: float, tokens_per_s_per_accelerator: tuple[float, float, float],
                  usd_per_accelerator_hour: float,
                  api_usd_per_million_tokens: float) -> dict[str, Any]:
    """Output tokens a month above which the fleet costs less than the API, running all month.

    The fleet costs accelerators x price x 730 h a month whatever it serves; the API costs its
    price per million tokens. They cost the same at fleet cost / API price, which the fleet can
    only reach if its capacity (tokens/s x 3,600 x 730) is at least that: "never" where it is
    not, at the figure or at either end of its range (figure, low, high per accelerator).
    """
    monthly = accelerators * usd_per_accelerator_hour * HOURS_PER_MONTH
    volume = monthly / api_usd_per_million_tokens * 1e6
    capacities = [accelerators * v * SECONDS_PER_HOUR * HOURS_PER_MONTH
                  for v in tokens_per_s_per_accelerator]
    return {"fleet_usd_per_month": monthly, "breakeven_tokens_per_month": volume,
            "capacity_tokens_per_month": capacities[0],
            "capacity_low": capacities[1], "capacity_high": capacities[2],
            "reachable": volume <= capacities[0],
            "reachable_at_low": volume <= capacities[1],
            "reachable_at_high": volume <= capacities[2]}
