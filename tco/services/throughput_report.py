"""What the calibrated throughput changes: the measurements before and after, and a demo's money.

`measurement_table` sets each calibrated measurement beside the uncalibrated roofline (seed 001's
efficiencies) and the calibrated estimate, with the leave-one-out estimate; `demo_comparison`
evaluates the L40S inference demo with its stated 1,000 tokens/s and with the calibrated
estimate and its range, against a per-token API, giving cost per million tokens and the API
volume breakeven of each. `python manage.py throughput_report` prints both.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from catalog.models import Accelerator
from catalog.models import ThroughputMeasurement
from catalog.models import ThroughputMeasurementKind
from catalog.models import TokenApiPrice
from tco.engine.model_presets import model_preset
from tco.engine.sizing import InferenceTarget
from tco.engine.sizing import size_inference
from tco.engine.sizing.throughput import Efficiency
from tco.engine.sizing.throughput import ServingSetup
from tco.engine.sizing.throughput import serving_throughput
from tco.models import ApiOption
from tco.models import Scenario
from tco.services.evaluation import scenario_evaluate
from tco.services.sizing_throughput import calibration
from tco.services.sizing_throughput import serving_setup
from tco.services.sizing_throughput import throughput_estimate

L40S_DEMO = "Inference fleet: 32x L40S vs cloud"
# The demo's workload as the estimate reads it: "an 8B model" served in FP16 (the scenario's
# precision) at a saturating load, requests of 1,000 tokens in and 1,000 out (an assumption: the
# demo states no lengths; TensorRT-LLM's tables use 1,000/1,000 as their middle case).
L40S_DEMO_WORKLOAD = {"model": "llama-3.1-8b", "precision": "fp16", "input_tokens": 1000,
                      "output_tokens": 1000}
DEMO_API = ("Example API", "small model")


def decode_roofline_tokens_per_s(setup: ServingSetup, batch: float) -> float:
    """What the sizing gave before calibration (`size_inference`: decode only, full context every
    step, seed 001's efficiencies, its own layout) for the fleet of ``setup`` at ``batch``."""
    sizing = size_inference(setup.model, setup.accelerator, InferenceTarget(
        batch_size=batch, context_length=float(setup.input_tokens + setup.output_tokens),
        precision=setup.precision, kv_cache_precision=setup.kv_precision))
    return float(sizing.tokens_per_s_per_accelerator) * float(setup.accelerators)


def measurement_table() -> list[dict[str, Any]]:
    """Each calibrated measurement: measured, and estimate / measured for the decode roofline
    the sizing used before, the new model uncalibrated (seed 001's efficiencies), calibrated,
    and calibrated without the measurement (leave-one-out)."""
    fitted, rows, measurements = calibration()
    by_key = dict(zip(fitted.keys, zip(fitted.ratios, fitted.leave_one_out_ratios, strict=True),
                      strict=True))
    table = []
    for row, measurement in zip(rows, measurements, strict=True):
        uncalibrated = serving_throughput(measurement.setup, Efficiency())
        batch = float(serving_throughput(measurement.setup,
                                         fitted.efficiency).concurrency_per_replica)
        before = decode_roofline_tokens_per_s(measurement.setup, batch)
        after, leave_one_out = by_key[row.key]
        table.append({"key": row.key, "label": measurement.label,
                      "measured": measurement.tokens_per_s,
                      "before": before / measurement.tokens_per_s,
                      "uncalibrated": float(uncalibrated.tokens_per_s) / measurement.tokens_per_s,
                      "after": after, "leave_one_out": leave_one_out})
    return table


def seed_claims() -> list[ThroughputMeasurement]:
    """The seeds' throughput claims with their judgement."""
    return list(ThroughputMeasurement.objects.filter(kind=ThroughputMeasurementKind.SEED_CLAIM)
                .select_related("accelerator").order_by("key"))


@dataclass(frozen=True)
class DemoCase:
    """One evaluation of the demo at a throughput per accelerator."""

    label: str
    tokens_per_s_per_accelerator: float
    cost_per_million_tokens_usd: float
    api_usd_per_million_tokens: float
    api_breakeven_tokens_per_month: float
    fleet_tokens_per_month: float


def _evaluate(scenario: Scenario, tokens_per_s: float, api: ApiOption, label: str) -> DemoCase:
    case = copy.copy(scenario)
    case.tokens_per_s_per_accelerator = Decimal(f"{tokens_per_s:.3f}")
    result = scenario_evaluate(scenario=case, rent_options=list(scenario.rent_options.all()),
                               api_options=[api], pinned=False).result
    (api_result,) = result.api
    return DemoCase(label, tokens_per_s, float(result.buy.cost_per_million_tokens_usd),
                    float(api_result.blended_usd_per_million_tokens),
                    float(api_result.breakeven_tokens_per_month_buy),
                    float(result.tokens_per_month))


def demo_comparison(scenario: Scenario) -> list[DemoCase]:
    """The L40S demo at its stated throughput, and at the calibrated estimate and its range."""
    accelerator = Accelerator.objects.get(slug="l40s-pcie-48gb")
    workload = L40S_DEMO_WORKLOAD
    setup = serving_setup(model=model_preset(workload["model"]), accelerator=accelerator,
                          accelerators=1, tensor_parallel=1, precision=workload["precision"],
                          input_tokens=workload["input_tokens"],
                          output_tokens=workload["output_tokens"])
    estimate = throughput_estimate(setup)
    price = TokenApiPrice.objects.get(provider=DEMO_API[0], model_name=DEMO_API[1])
    api = ApiOption(name=f"{price.provider} {price.model_name}", price=price)
    stated = float(scenario.tokens_per_s_per_accelerator)
    return [_evaluate(scenario, stated, api, "before: the demo's stated figure"),
            _evaluate(scenario, estimate.tokens_per_s, api, "after: calibrated estimate"),
            _evaluate(scenario, estimate.low, api, "after: low end of its range"),
            _evaluate(scenario, estimate.high, api, "after: high end of its range")]
