"""Pure buy-vs-rent TCO engine: NumPy in, NumPy out; knows nothing of Django."""

from __future__ import annotations

from tco.engine.blocks import BLOCK_POINTS
from tco.engine.blocks import evaluate_points
from tco.engine.evaluate import evaluate
from tco.engine.footprint import Footprint
from tco.engine.inputs import DEFAULT_BILLING_BASIS
from tco.engine.inputs import MAX_HORIZON_MONTHS
from tco.engine.inputs import MAX_RENT_OPTIONS
from tco.engine.inputs import ApiOption
from tco.engine.inputs import BillingBasis
from tco.engine.inputs import BuyOption
from tco.engine.inputs import Carbon
from tco.engine.inputs import CoolingTier
from tco.engine.inputs import Exchange
from tco.engine.inputs import Facility
from tco.engine.inputs import Finance
from tco.engine.inputs import Goodput
from tco.engine.inputs import InputError
from tco.engine.inputs import Numeric
from tco.engine.inputs import PricingModel
from tco.engine.inputs import RentOption
from tco.engine.inputs import Scenario
from tco.engine.inputs import TokenMix
from tco.engine.inputs import Workload
from tco.engine.inputs import batch_shape
from tco.engine.overrides import batch_slice
from tco.engine.overrides import get_input
from tco.engine.overrides import input_metadata
from tco.engine.overrides import numeric_input_paths
from tco.engine.overrides import with_overrides
from tco.engine.recommend import recommendation
from tco.engine.result import ApiResult
from tco.engine.result import BuyResult
from tco.engine.result import CashFlows
from tco.engine.result import Emissions
from tco.engine.result import RentResult
from tco.engine.result import Residual
from tco.engine.result import Result
from tco.engine.sensitivity import SensitivityRow
from tco.engine.sensitivity import Tornado
from tco.engine.sensitivity import one_at_a_time
from tco.engine.sensitivity import sensitivity_paths
from tco.engine.validation import validate
from tco.engine.verdict import Verdict
from tco.engine.verdict import verdict_of

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
