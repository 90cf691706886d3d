"""What AI compute costs: accelerators, systems, cloud offerings and facilities, each figure traceable
to the document it came from.

Invariants live in the database (CheckConstraint / UniqueConstraint) and, for readable field-named
errors in forms and the API, in each model's validators and ``clean()``. One module a subject;
every model is imported from here (``from catalog.models import PricePoint``).
"""
from catalog.exchange_rates.models import ExchangeRate
from catalog.models.egress import EgressRate
from catalog.models.facilities import CoolingTechnology
from catalog.models.facilities import FacilityProfile
from catalog.models.facilities import PowerDensityReference
from catalog.models.hardware import Accelerator
from catalog.models.hardware import AcceleratorPowerCap
from catalog.models.hardware import AcceleratorThroughput
from catalog.models.hardware import SystemPowerFigure
from catalog.models.hardware import SystemSku
from catalog.models.hardware import ThroughputMeasurement
from catalog.models.hardware import ThroughputMeasurementKind
from catalog.models.prices import CloudOffering
from catalog.models.prices import PricePoint
from catalog.models.prices import RentalCurvePrice
from catalog.models.prices import RentalTerm
from catalog.models.prices import TokenApiPrice
from catalog.models.refresh_jobs import PriceCheck
from catalog.models.refresh_jobs import PriceRefreshJob
from catalog.models.refresh_jobs import QuoteImport
from catalog.models.refresh_jobs import RefreshStatus
from catalog.models.revisions import CatalogRevision
from catalog.models.sources import Source

__all__ = [
    "Accelerator",
    "AcceleratorPowerCap",
    "AcceleratorThroughput",
    "CatalogRevision",
    "CloudOffering",
    "CoolingTechnology",
    "EgressRate",
    "ExchangeRate",
    "FacilityProfile",
    "PowerDensityReference",
    "PriceCheck",
    "PricePoint",
    "PriceRefreshJob",
    "QuoteImport",
    "RefreshStatus",
    "RentalCurvePrice",
    "RentalTerm",
    "Source",
    "SystemPowerFigure",
    "SystemSku",
    "ThroughputMeasurement",
    "ThroughputMeasurementKind",
    "TokenApiPrice",
]
