"""Procurement planning: the cheapest mix of owned, reserved, on-demand and spot for a demand curve.

Pure Python + NumPy + SciPy (HiGHS); knows nothing of Django.
"""

from costmodel.plan.inputs import CapexTiming
from costmodel.plan.inputs import Demand
from costmodel.plan.inputs import Limits
from costmodel.plan.inputs import OwnedChoice
from costmodel.plan.inputs import PlanInputError
from costmodel.plan.inputs import PlanInputs
from costmodel.plan.inputs import RentChoice
from costmodel.plan.planner import PlanResult
from costmodel.plan.planner import make_plan

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
