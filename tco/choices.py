"""Enumerations the scenario, run, plan and alert fields take their values from."""

from __future__ import annotations

from django.db import models


class BillingBasis(models.TextChoices):
    """Which hours a rent option is billed for (the engine's ``BillingBasis``)."""

    HELD = "held", "Every hour the capacity is held"
    USED = "used", "Only the hours used (the workload scales to zero)"


class ScenarioStatus(models.TextChoices):
    """Whether a scenario may still change."""

    DRAFT = "draft", "Draft"
    APPROVED = "approved", "Approved (frozen)"


class PriceRangePoint(models.TextChoices):
    """Which end of a quoted price range ("$450,000-500,000") a scenario costs."""

    LOW = "low", "Low end"
    TYPICAL = "typical", "Typical (middle of the range)"
    HIGH = "high", "High end"


class SnapshotReason(models.TextChoices):
    """What wrote a snapshot."""

    EVALUATED = "evaluated", "Evaluated"
    REPRICED = "repriced", "Re-priced after a price refresh"
    APPROVED = "approved", "Approved: the prices signed"


class AlertKind(models.TextChoices):
    """What moved."""

    WINNER_CHANGED = "winner_changed", "Winner changed"
    BREAKEVEN_MOVED = "breakeven_moved", "Breakeven month moved"


class Winner(models.TextChoices):
    """Which option has the lower NPV."""

    BUY = "buy", "Buy"
    RENT = "rent", "Rent"


class RepriceStatus(models.TextChoices):
    """Where the re-pricing after a refresh is."""

    PENDING = "pending", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class PlanStatus(models.TextChoices):
    """Where a plan's job is."""

    PENDING = "pending", "Queued"
    SOLVING = "solving", "Solving"
    DRAWING = "drawing", "Re-evaluating over draws"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class RunKind(models.TextChoices):
    """What a run computes over its scenario."""

    SWEEP = "sweep", "Sweep"
    MONTE_CARLO = "monte_carlo", "Monte Carlo"
    SENSITIVITY = "sensitivity", "Sensitivity"


class RunStatus(models.TextChoices):
    """Where a run is: queued, computing chunks, assembling its result, or ended."""

    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    FINISHING = "finishing", "Assembling the result"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class FailureType(models.TextChoices):
    """Why a run failed: its inputs, the system, or time."""

    USER = "user", "Bad input"
    SYSTEM = "system", "System error"
    TIMEOUT = "timeout", "Timed out"


class ChunkStatus(models.TextChoices):
    """Where one chunk is."""

    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    DONE = "done", "Done"


class VerdictBasis(models.TextChoices):
    """What the verdict ranks on (the engine's ``PRE_TAX``/``AFTER_TAX``); empty = chosen for
    the scenario (tco/services/verdict_basis.py)."""

    PRE_TAX = "pre_tax", "Before tax"
    AFTER_TAX = "after_tax", "After tax"


class TaxDepreciation(models.TextChoices):
    """How the tax return depreciates owned systems (the books use straight line, see
    costmodel/tax.py for the tables)."""

    STRAIGHT_LINE = "straight_line", "Straight line over the tax life"
    DECLINING_BALANCE = "declining_balance", "Declining balance, switching to straight line"
    MACRS_3 = "macrs_3", "MACRS 3-year, half-year convention"
    MACRS_5 = "macrs_5", "MACRS 5-year, half-year convention"
    MACRS_7 = "macrs_7", "MACRS 7-year, half-year convention"
