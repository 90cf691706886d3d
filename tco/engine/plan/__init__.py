"""Procurement planning: the cheapest mix of owned, reserved, on-demand and spot for a demand curve.

Pure Python + NumPy + SciPy (HiGHS); knows nothing of Django.
"""

from tco.engine.plan.inputs import CapexTiming
from tco.engine.plan.inputs import Demand
from tco.engine.plan.inputs import Limits
from tco.engine.plan.inputs import OwnedChoice
from tco.engine.plan.inputs import PlanInputError
from tco.engine.plan.inputs import PlanInputs
from tco.engine.plan.inputs import RentChoice
from tco.engine.plan.planner import PlanResult
from tco.engine.plan.planner import make_plan

__all__ = [
    "CapexTiming",
    "Demand",
    "Limits",
    "OwnedChoice",
    "PlanInputError",
    "PlanInputs",
    "PlanResult",
    "RentChoice",
    "make_plan",
]
