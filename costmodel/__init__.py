"""Pure buy-vs-rent TCO engine: NumPy in, NumPy out; knows nothing of Django."""

from __future__ import annotations

from costmodel.blocks import BLOCK_POINTS
from costmodel.blocks import evaluate_points
from costmodel.evaluate import evaluate
from costmodel.footprint import Footprint
from costmodel.inputs import DEFAULT_BILLING_BASIS
from costmodel.inputs import MAX_HORIZON_MONTHS
from costmodel.inputs import MAX_RENT_OPTIONS
from costmodel.inputs import ApiOption
from costmodel.inputs import BillingBasis
from costmodel.inputs import BuyOption
from costmodel.inputs import Carbon
from costmodel.inputs import CoolingTier
from costmodel.inputs import Exchange
from costmodel.inputs import Facility
from costmodel.inputs import Finance
from costmodel.inputs import Goodput
from costmodel.inputs import InputError
from costmodel.inputs import Numeric
from costmodel.inputs import PricingModel
from costmodel.inputs import RentOption
from costmodel.inputs import Scenario
from costmodel.inputs import TokenMix
from costmodel.inputs import Workload
from costmodel.inputs import batch_shape
from costmodel.overrides import batch_slice
from costmodel.overrides import get_input
from costmodel.overrides import input_metadata
from costmodel.overrides import numeric_input_paths
from costmodel.overrides import with_overrides
from costmodel.recommend import recommendation
from costmodel.result import ApiResult
from costmodel.result import BuyResult
from costmodel.result import CashFlows
from costmodel.result import Emissions
from costmodel.result import RentResult
from costmodel.result import Residual
from costmodel.result import Result
from costmodel.sensitivity import SensitivityRow
from costmodel.sensitivity import Tornado
from costmodel.sensitivity import one_at_a_time
from costmodel.sensitivity import sensitivity_paths
from costmodel.validation import validate
from costmodel.verdict import Verdict
from costmodel.verdict import verdict_of

__all__ = [
    "BLOCK_POINTS",
    "DEFAULT_BILLING_BASIS",
    "MAX_HORIZON_MONTHS",
    "MAX_RENT_OPTIONS",
    "ApiOption",
    "ApiResult",
    "BillingBasis",
    "BuyOption",
    "BuyResult",
    "Carbon",
    "Exchange",
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
    "Verdict",
    "Workload",
    "batch_shape",
    "batch_slice",
    "evaluate",
    "evaluate_points",
    "get_input",
    "input_metadata",
    "numeric_input_paths",
    "one_at_a_time",
    "recommendation",
    "sensitivity_paths",
    "validate",
    "verdict_of",
    "with_overrides",
]
