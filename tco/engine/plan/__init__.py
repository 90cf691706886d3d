"""Procurement planning: the cheapest mix of owned, reserved, on-demand and spot for a demand curve.

Pure Python + NumPy + SciPy (HiGHS); knows nothing of Django.
"""

from tco.engine.plan.inputs import (
    CapexTiming,
    Demand,
    Limits,
    OwnedChoice,
    PlanInputError,
    PlanInputs,
    RentChoice,
)
from tco.engine.plan.planner import PlanResult, make_plan

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
