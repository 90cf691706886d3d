"""Scenario models and the job rows of runs over them."""
from tco.models.runs import (
    ACTIVE_STATUSES,
    ChunkStatus,
    FailureType,
    RunKind,
    RunStatus,
    SweepChunk,
    SweepRun,
)
from tco.models.scenario import RentOption, Scenario

__all__ = [
    "ACTIVE_STATUSES",
    "ChunkStatus",
    "FailureType",
    "RentOption",
    "RunKind",
    "RunStatus",
    "Scenario",
    "SweepChunk",
    "SweepRun",
]
