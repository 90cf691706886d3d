"""Serving throughput calibrated on the catalog's published measurements, and what it costs.

`calibration()` fits the engine's regime efficiencies on the catalog rows marked
``calibrated`` (cached until those rows or their accelerators change). `throughput_estimate`
sizes one serving configuration with them: output tokens/s with the range the leave-one-out
spread gives, the three measurements nearest to it, and, with a price, the cost per million
output tokens and the per-token API volume above which the fleet is cheaper, each with its
range. A measured tokens/s the user states (with its source) replaces the estimate.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from catalog.models import Accelerator
from catalog.models import ThroughputMeasurement
from catalog.models import ThroughputMeasurementKind
from tco.engine.inputs import HOURS_PER_MONTH
from tco.engine.metrics import SECONDS_PER_HOUR
from tco.engine.metrics import cost_per_million_tokens_usd
from tco.engine.model_presets import model_preset
from tco.engine.sizing import ModelShape
from tco.engine.sizing import Precision
from tco.engine.sizing import SizingInputError
from tco.engine.sizing.calibration import Calibration
from tco.engine.sizing.calibration import Measurement
from tco.engine.sizing.calibration import calibrate
from tco.engine.sizing.calibration import nearest
from tco.engine.sizing.results import jsonable
from tco.engine.sizing.throughput import Efficiency
from tco.engine.sizing.throughput import ServingSetup
from tco.engine.sizing.throughput import ThroughputEstimate
from tco.engine.sizing.throughput import serving_throughput
from tco.services.sizing import accelerator_spec

_CACHE: dict[tuple, Calibration] = {}


def serving_setup(*, model: ModelShape, accelerator: Accelerator, accelerators: float,
                  tensor_parallel: float, precision: str, input_tokens: float,
                  output_tokens: float, concurrency: float | None = None) -> ServingSetup:
    """The engine's configuration for a catalog accelerator (its NVLink/Infinity Fabric
    bandwidth, where the catalog has one, carries the tensor-parallel all-reduces)."""
    link = accelerator.interconnect_bandwidth_gb_per_s
    return ServingSetup(
        model=model, accelerator=accelerator_spec(accelerator), accelerators=float(accelerators),
        tensor_parallel=float(tensor_parallel), precision=Precision(precision),
        input_tokens=float(input_tokens), output_tokens=float(output_tokens),
        concurrency=math.nan if concurrency is None else float(concurrency),
        interconnect_gb_per_s=math.nan if link is None else float(link))


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
    ).select_related("accelerator", "source").order_by("key"))


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


@dataclass(frozen=True)
class Stated:
    """A measured tokens/s the user gives for their configuration, and where it comes from."""

    tokens_per_s: float
    source: str


@dataclass(frozen=True)
class Throughput:
    """Output tokens/s of a configuration: the figure used, its range and where it comes from."""

    tokens_per_s: float
    low: float
    high: float
    basis: str
    estimate: ThroughputEstimate | None
    setup: ServingSetup
    nearest: list[dict[str, Any]] = field(default_factory=list)
    efficiency: Efficiency | None = None
    calibration: dict[str, Any] = field(default_factory=dict)

    @property
    def accelerators(self) -> float:
        return float(self.setup.accelerators)

    def per_accelerator(self) -> tuple[float, float, float]:
        """(figure, low, high) per accelerator [output tokens/s]."""
        n = self.accelerators
        return self.tokens_per_s / n, self.low / n, self.high / n

    def all_tokens_factor(self) -> float:
        """Tokens processed (input + output) per output token of this request shape."""
        return float((self.setup.input_tokens + self.setup.output_tokens) / self.setup.output_tokens)


def _nearest_rows(measurements: Sequence[Measurement], rows: Sequence[ThroughputMeasurement],
                  setup: ServingSetup, efficiency: Efficiency) -> list[dict[str, Any]]:
    by_key = {row.key: row for row in rows}
    found = []
    for measurement, gap in nearest(measurements, setup):
        row = by_key[measurement.key]
        estimate = float(serving_throughput(measurement.setup, efficiency).tokens_per_s)
        found.append({
            "key": row.key, "description": measurement.label, "source": row.source.title,
            "url": row.source.url, "where": row.where, "distance": round(gap, 3),
            "measured_tokens_per_s": measurement.tokens_per_s,
            "estimated_tokens_per_s": round(estimate, 1),
            "ratio": round(estimate / measurement.tokens_per_s, 3),
            "input_tokens": row.input_tokens, "output_tokens": row.output_tokens,
            "concurrency": row.concurrency, "accelerators": row.accelerators,
        })
    return found


def throughput_estimate(setup: ServingSetup, *, stated: Stated | None = None) -> Throughput:
    """The calibrated output tokens/s of ``setup`` with its range and nearest measurements, or
    the user's stated measurement (which wins; its range is the figure itself).

    Raises SizingInputError naming the field when the configuration does not fit.
    """
    fitted, rows, measurements = calibration()
    efficiency = fitted.efficiency
    estimate = serving_throughput(setup, efficiency)
    summary = {"efficiency": jsonable(efficiency), "measurements": len(measurements),
               "median_ratio": round(fitted.median_ratio, 3),
               "range_low": round(fitted.range_low, 3), "range_high": round(fitted.range_high, 3),
               "leave_one_out_median_abs_log_error": round(
                   fitted.leave_one_out_median_abs_log_error, 3)}
    near = _nearest_rows(measurements, rows, setup, efficiency)
    if stated is not None:
        return Throughput(stated.tokens_per_s, stated.tokens_per_s, stated.tokens_per_s,
                          f"stated measurement: {stated.source}", estimate, setup, near,
                          efficiency, summary)
    if not bool(estimate.fits):
        raise SizingInputError("accelerators", f"{setup.model.name} does not fit: "
                                               f"{estimate.reason}")
    value = float(estimate.tokens_per_s)
    return Throughput(value, value * fitted.range_low, value * fitted.range_high,
                      f"estimate calibrated on {len(measurements)} published measurements",
                      estimate, setup, near, efficiency, summary)


def cost_with_range(throughput: Throughput, usd_per_accelerator_hour: float) -> dict[str, float]:
    """Cost per million output tokens at the figure, and at the high and low end of its range
    (more tokens per second, cheaper tokens) [USD/Mtoken]."""
    figure, low, high = throughput.per_accelerator()
    return {"usd_per_million_tokens": float(cost_per_million_tokens_usd(usd_per_accelerator_hour,
                                                                        figure)),
            "low": float(cost_per_million_tokens_usd(usd_per_accelerator_hour, high)),
            "high": float(cost_per_million_tokens_usd(usd_per_accelerator_hour, low))}


def api_breakeven(throughput: Throughput, usd_per_accelerator_hour: float,
                  api_usd_per_million_tokens: float) -> dict[str, Any]:
    """Output tokens a month above which the fleet costs less than the API, running all month.

    The fleet costs accelerators x price x 730 h a month whatever it serves; the API costs its
    price per million tokens. They cost the same at fleet cost / API price, which the fleet can
    only reach if its capacity (tokens/s x 3,600 x 730) is at least that: "never" where it is
    not, at the figure or at either end of its range.
    """
    monthly = throughput.accelerators * usd_per_accelerator_hour * HOURS_PER_MONTH
    volume = monthly / api_usd_per_million_tokens * 1e6
    capacities = [v * SECONDS_PER_HOUR * HOURS_PER_MONTH for v in (throughput.tokens_per_s, throughput.low,
                                                          throughput.high)]
    return {"fleet_usd_per_month": monthly, "breakeven_tokens_per_month": volume,
            "capacity_tokens_per_month": capacities[0],
            "capacity_low": capacities[1], "capacity_high": capacities[2],
            "reachable": volume <= capacities[0],
            "reachable_at_low": volume <= capacities[1],
            "reachable_at_high": volume <= capacities[2]}
