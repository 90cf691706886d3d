"""Pure buy-vs-rent TCO engine: NumPy in, NumPy out; knows nothing of Django."""

from __future__ import annotations

from tco.engine.evaluate import evaluate
from tco.engine.footprint import Footprint
from tco.engine.inputs import (
    MAX_HORIZON_MONTHS,
    MAX_RENT_OPTIONS,
    ApiOption,
    BuyOption,
    Carbon,
    CoolingTier,
    Facility,
    Finance,
    Goodput,
    InputError,
    Numeric,
    PricingModel,
    RentOption,
    Scenario,
    TokenMix,
    Workload,
    batch_shape,
)
from tco.engine.overrides import (
    batch_slice,
    get_input,
    input_metadata,
    numeric_input_paths,
    with_overrides,
)
from tco.engine.recommend import recommendation
from tco.engine.result import ApiResult, BuyResult, CashFlows, Emissions, RentResult, Residual, Result
from tco.engine.sensitivity import SensitivityRow, Tornado, one_at_a_time, sensitivity_paths
from tco.engine.validation import validate

__all__ = [
    "MAX_HORIZON_MONTHS",
    "MAX_RENT_OPTIONS",
    "ApiOption",
    "ApiResult",
    "BuyOption",
    "BuyResult",
    "Carbon",
    "CashFlows",
    "CoolingTier",
    "Facility",
    "Emissions",
    "Finance",
    "Footprint",
    "Goodput",
    "InputError",
    "Numeric",
    "PricingModel",
    "RentOption",
    "RentResult",
    "Residual",
    "Result",
    "Scenario",
    "SensitivityRow",
    "TokenMix",
    "Tornado",
    "Workload",
    "batch_shape",
    "batch_slice",
    "evaluate",
    "get_input",
    "input_metadata",
    "numeric_input_paths",
    "one_at_a_time",
    "recommendation",
    "sensitivity_paths",
    "validate",
    "with_overrides",
]
