"""What the calibrated throughput changes: the measurements before and after, and a demo's money.

`measurement_table` sets each calibrated measurement beside the estimate at seed 001's
efficiencies (uncalibrated) and the calibrated estimate, with the leave-one-out estimate;
`demo_comparison` evaluates the L40S inference demo with the 1,000 tokens/s it used to state
and with its sizing (the calibrated estimate) and that estimate's range, against a per-token
API, giving cost per million tokens and the API volume breakeven of each.
`python manage.py throughput_report` prints both.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from catalog.models import ThroughputMeasurement
from catalog.models import ThroughputMeasurementKind
from catalog.models import TokenApiPrice
from costmodel.sizing.throughput import Efficiency
from costmodel.sizing.throughput import serving_throughput
from tco.models import ApiOption
from tco.models import Scenario
from tco.services.evaluation import scenario_evaluate
from tco.services.sizing import size_spec
from tco.services.sizing_throughput import calibration

L40S_DEMO = "Inference fleet: 32x L40S vs cloud"
# What the demo stated before its throughput came from its sizing (a "demo assumption").
L40S_DEMO_STATED_TOKENS_PER_S = 1000.0
DEMO_API = ("Example API", "small model")


def measurement_table() -> list[dict[str, Any]]:
    """Each calibrated measurement: measured, and estimate / measured uncalibrated (seed 001's
    efficiencies), calibrated, and calibrated without the measurement (leave-one-out)."""
    fitted, rows, measurements = calibration()
    by_key = dict(zip(fitted.keys, zip(fitted.ratios, fitted.leave_one_out_ratios, strict=True),
                      strict=True))
    table = []
    for row, measurement in zip(rows, measurements, strict=True):
        uncalibrated = serving_throughput(measurement.setup, Efficiency())
        after, leave_one_out = by_key[row.key]
        table.append({"key": row.key, "label": measurement.label,
                      "measured": measurement.tokens_per_s,
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


def _evaluate(scenario: Scenario, tokens_per_s: float | None, api: ApiOption,
              label: str) -> DemoCase:
    case = copy.copy(scenario)
    if tokens_per_s is not None:
        case.tokens_per_s_per_accelerator = Decimal(f"{tokens_per_s:.3f}")
    evaluation = scenario_evaluate(scenario=case, rent_options=list(scenario.rent_options.all()),
                                   api_options=[api], pinned=False)
    result = evaluation.result
    (api_result,) = result.api
    return DemoCase(label, float(evaluation.inputs.workload.tokens_per_s_per_accelerator),
                    float(result.buy.cost_per_million_tokens_usd),
                    float(api_result.blended_usd_per_million_tokens),
                    float(api_result.breakeven_tokens_per_month_buy),
                    float(result.tokens_per_month))


def demo_comparison(scenario: Scenario) -> list[DemoCase]:
    """The L40S demo at the throughput it used to state, and at its sizing's calibrated estimate
    and both ends of the estimate's range."""
    sizing = size_spec(scenario.sizing, scenario.accelerator)
    low, high = sizing.throughput_range
    price = TokenApiPrice.objects.get(provider=DEMO_API[0], model_name=DEMO_API[1])
    api = ApiOption(name=f"{price.provider} {price.model_name}", price=price)
    return [_evaluate(scenario, L40S_DEMO_STATED_TOKENS_PER_S, api,
                      "before: the demo's stated figure"),
            _evaluate(scenario, None, api, "after: its sizing's calibrated estimate"),
            _evaluate(scenario, low, api, "after: low end of its range"),
            _evaluate(scenario, high, api, "after: high end of its range")]
