"""Scenario models and the job rows of runs over them."""
from tco.models.alerts import (
    AlertKind,
    PriceAlert,
    RepriceJob,
    RepriceStatus,
    ScenarioSnapshot,
    SnapshotReason,
    Winner,
)
from tco.models.plans import PlanDrawChunk, PlanStatus, ProcurementPlan
from tco.models.runs import (
    ACTIVE_STATUSES,
    ChunkStatus,
    FailureType,
    RunKind,
    RunStatus,
    SweepChunk,
    SweepRun,
)
from tco.models.scenario import ApiOption, RentOption, Scenario, ScenarioStatus, StaleRevision

__all__ = [
    "ACTIVE_STATUSES",
    "ApiOption",
    "AlertKind",
    "ChunkStatus",
    "FailureType",
    "PlanDrawChunk",
    "PlanStatus",
    "PriceAlert",
    "ProcurementPlan",
    "RentOption",
    "RepriceJob",
    "RepriceStatus",
    "RunKind",
    "RunStatus",
    "Scenario",
    "ScenarioSnapshot",
    "ScenarioStatus",
    "SnapshotReason",
    "StaleRevision",
    "SweepChunk",
    "SweepRun",
    "Winner",
]
