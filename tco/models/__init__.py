"""Scenario models and the job rows of runs over them."""
from tco.choices import AlertKind
from tco.choices import ChunkStatus
from tco.choices import FailureType
from tco.choices import PlanStatus
from tco.choices import RepriceStatus
from tco.choices import RunKind
from tco.choices import RunStatus
from tco.choices import ScenarioStatus
from tco.choices import SnapshotReason
from tco.choices import Winner
from tco.models.alerts import PriceAlert
from tco.models.alerts import RepriceJob
from tco.models.alerts import ScenarioSnapshot
from tco.models.plans import PlanDrawChunk
from tco.models.plans import ProcurementPlan
from tco.models.price_books import ContractDiscount
from tco.models.price_books import ContractPriceBook
from tco.models.price_books import SavingsPlanCommitment
from tco.models.runs import ACTIVE_STATUSES
from tco.models.runs import SweepChunk
from tco.models.runs import SweepRun
from tco.models.scenario import ApiOption
from tco.models.scenario import RentOption
from tco.models.scenario import Scenario
from tco.models.scenario import StaleRevision
from tco.models.strategy_runs import StrategyRun
from tco.models.strategy_runs import StrategyRunChunk

__all__ = [
    "ACTIVE_STATUSES",
    "ApiOption",
    "ContractDiscount",
    "ContractPriceBook",
    "SavingsPlanCommitment",
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
    "StrategyRun",
    "StrategyRunChunk",
    "SweepChunk",
    "SweepRun",
    "Winner",
]
