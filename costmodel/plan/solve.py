"""Solve a plan's program with HiGHS (SciPy ``milp``) and read the plan out of the solution."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.optimize import Bounds
from scipy.optimize import LinearConstraint
from scipy.optimize import linprog
from scipy.optimize import milp

from costmodel.plan.program import CATEGORIES
from costmodel.plan.program import Program

# HiGHS proves optimality within this relative gap; small enough for cent-level figures.
MIP_RELATIVE_GAP = 1e-6
# Each solve (the plan, its baselines, its limits' re-solves) stops after this long; the plan's
# size limits (costmodel/plan/spec.py) keep a plan far inside it (0.4 s for 60 months x 7 choices).
TIME_LIMIT_S = 60.0
# A row whose activity is this close to its bound (relative) is at its limit.
AT_LIMIT_TOLERANCE = 1e-7


@dataclass(frozen=True)
class Solution:
    """Values of a program's variables, and the cash they cause (fixed cash included)."""

    program: Program
    x: NDArray[np.float64]

    @property
    def cash_by_category(self) -> dict[str, NDArray[np.float64]]:
        """Category -> cash per month 0..n_months [USD]."""
        return {c: self.program.cash[c].T @ self.x + self.program.fixed_cash[c] for c in CATEGORIES}

    @property
    def cash_usd(self) -> NDArray[np.float64]:
        total = sum(self.cash_by_category.values())
        assert isinstance(total, np.ndarray), "an array: there is at least one category"
        return total

    @property
    def npv_usd(self) -> float:
        return float(self.program.objective @ self.x + self.program.fixed_npv_usd)

    def activity(self) -> NDArray[np.float64]:
        activity: NDArray[np.float64] = self.program.A @ self.x  # SciPy has no type hints
        return activity

    def at_limit(self, row: int, granularity: float = 0.0) -> bool:
        """Whether a row is at its bound, or closer to it than one whole unit (``granularity``) can go."""
        activity = float(self.activity()[row])
        bound: float = (
            self.program.row_ub[row] if np.isfinite(self.program.row_ub[row]) else self.program.row_lb[row]
        )
        return abs(activity - bound) < max(granularity, AT_LIMIT_TOLERANCE * max(1.0, abs(bound)))


class Infeasible(Exception):
    """No choice of whole systems and commitments serves the demand within the limits."""


class SolveTimeLimit(Exception):
    """The solver reached its time limit before proving a plan: said in words, not HiGHS's."""

    def __init__(self, limit_s: float = TIME_LIMIT_S) -> None:
        super().__init__(f"no plan within the {limit_s:g} s solve limit: fewer months or choices, "
                         "or a longer limit")


def solve_program(program: Program, *, relax: bool = False) -> Solution:
    """Minimise the present value of cost; ``relax`` drops integrality (an LP). Raises ``Infeasible``."""
    constraints = LinearConstraint(program.A, program.row_lb, program.row_ub) if program.rows else ()
    result = milp(
        program.objective,
        constraints=constraints,
        integrality=np.zeros_like(program.integrality) if relax else program.integrality,
        bounds=Bounds(0.0, program.var_ub),
        options={"mip_rel_gap": MIP_RELATIVE_GAP, "time_limit": TIME_LIMIT_S},
    )
    if result.status == 2:
        raise Infeasible()
    if result.status == 1:  # the time (or iteration) limit: a plan not proven cheapest is no answer
        raise SolveTimeLimit()
    if result.x is None:
        raise RuntimeError(f"the solver stopped without a plan: {result.message}")
    x = np.where(program.integrality.astype(bool) & ~relax, np.round(result.x), result.x)
    return Solution(program, x)


def relief_values(program: Program) -> NDArray[np.float64]:
    """Dual value of every row in the LP relaxation, as NPV saved per unit of relaxing it [USD].

    Relaxing means raising an upper bound (a power limit) or lowering a lower
    bound (a minimum share). HiGHS (through ``linprog``) reports the marginal
    d NPV / d b of each row of ``A_ub x <= b_ub``; a lower bound enters as
    ``-A x <= -lb``, so in both cases the saving is minus the marginal.
    """
    upper = np.isfinite(program.row_ub)
    lower = np.isfinite(program.row_lb)
    A = program.A
    A_ub = sparse.vstack([A[upper], -A[lower]], format="csr")
    b_ub = np.concatenate([program.row_ub[upper], -program.row_lb[lower]])
    result = linprog(
        program.objective,
        A_ub=A_ub,
        b_ub=b_ub,
        bounds=np.column_stack([np.zeros_like(program.var_ub), program.var_ub]),
        method="highs",
    )
    if result.status != 0:
        raise Infeasible()
    marginals = result.ineqlin.marginals
    duals = np.zeros(len(program.rows))
    duals[np.flatnonzero(upper)] -= marginals[: upper.sum()]
    duals[np.flatnonzero(lower)] -= marginals[upper.sum() :]
    return duals
