"""The FinOps FOCUS columns, spelled once: the export writes them (finops/exports/focus.py) and the
import of actual costs reads them (finops/focus_import.py)."""

FOCUS_VERSION = "1.2"

#: The FOCUS 1.2 cost and usage columns, in the specification's (alphabetical) order.
FOCUS_COLUMNS = (
    "AvailabilityZone", "BilledCost", "BillingAccountId", "BillingAccountName", "BillingAccountType",
    "BillingCurrency", "BillingPeriodEnd", "BillingPeriodStart", "CapacityReservationId",
    "CapacityReservationStatus", "ChargeCategory", "ChargeClass", "ChargeDescription", "ChargeFrequency",
    "ChargePeriodEnd", "ChargePeriodStart", "CommitmentDiscountCategory", "CommitmentDiscountId",
    "CommitmentDiscountName", "CommitmentDiscountQuantity", "CommitmentDiscountStatus",
    "CommitmentDiscountType", "CommitmentDiscountUnit", "ConsumedQuantity", "ConsumedUnit",
    "ContractedCost", "ContractedUnitPrice", "EffectiveCost", "InvoiceId", "InvoiceIssuerName", "ListCost",
    "ListUnitPrice", "PricingCategory", "PricingCurrency", "PricingCurrencyContractedUnitPrice",
    "PricingCurrencyEffectiveCost", "PricingCurrencyListUnitPrice", "PricingQuantity", "PricingUnit",
    "ProviderName", "PublisherName", "RegionId", "RegionName", "ResourceId", "ResourceName",
    "ResourceType", "ServiceCategory", "ServiceName", "ServiceSubcategory", "SkuId", "SkuMeter",
    "SkuPriceDetails", "SkuPriceId", "SubAccountId", "SubAccountName", "SubAccountType", "Tags",
)
#: Our own columns (FOCUS: custom columns start with ``x_``).
OWN_COLUMNS = (
    "x_ScenarioId", "x_ScenarioVersion", "x_PlanId", "x_PriceSnapshotId", "x_IsProjection",
    "x_Percentile", "x_Option", "x_CostLine", "x_Month", "x_FinancingType", "x_DepreciationMethod",
    "x_UsefulLifeMonths",
)
COLUMNS = FOCUS_COLUMNS + OWN_COLUMNS
DECIMAL_COLUMNS = ("BilledCost", "EffectiveCost", "ListCost", "ContractedCost", "ListUnitPrice",
                   "ContractedUnitPrice", "PricingQuantity", "ConsumedQuantity",
                   "CommitmentDiscountQuantity", "PricingCurrencyContractedUnitPrice",
                   "PricingCurrencyEffectiveCost", "PricingCurrencyListUnitPrice")

#: The columns a cost file must have to be imported (FOCUS 1.3's ServiceProviderName is read
#: where ProviderName is missing), and the ChargeCategory values FOCUS allows.
REQUIRED = ("BilledCost", "BillingCurrency", "ChargeCategory", "ChargePeriodStart", "ProviderName")
CHARGE_CATEGORIES = ("Usage", "Purchase", "Tax", "Credit", "Adjustment")
