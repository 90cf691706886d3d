"""Scenario models and the job rows of runs over them."""
from tco.models.alerts import AlertKind
from tco.models.alerts import PriceAlert
from tco.models.alerts import RepriceJob
from tco.models.alerts import RepriceStatus
from tco.models.alerts import ScenarioSnapshot
from tco.models.alerts import SnapshotReason
from tco.models.alerts import Winner
from tco.models.plans import PlanDrawChunk
from tco.models.plans import PlanStatus
from tco.models.plans import ProcurementPlan
from tco.models.runs import ACTIVE_STATUSES
from tco.models.runs import ChunkStatus
from tco.models.runs import FailureType
from tco.models.runs import RunKind
from tco.models.runs import RunStatus
from tco.models.runs import SweepChunk
from tco.models.runs import SweepRun
from tco.models.scenario import ApiOption
from tco.models.scenario import RentOption
from tco.models.scenario import Scenario
from tco.models.scenario import ScenarioStatus
from tco.models.scenario import StaleRevision

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
