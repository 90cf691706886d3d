"""Enumerations the catalog's fields take their values from."""

from __future__ import annotations

from django.db import models


class SourceKind(models.TextChoices):
    """What kind of document a figure was taken from."""

    SEED_DOCUMENT = "seed_document", "Seed document"
    REFERENCE_DOCUMENT = "reference_document", "Reference document"
    VENDOR_PRICE_LIST = "vendor_price_list", "Vendor price list"
    CLOUD_PRICE_API = "cloud_price_api", "Cloud price API"
    QUOTE = "quote", "Quote"
    ASSUMPTION = "assumption", "Documented assumption"


class Vendor(models.TextChoices):
    """Who designs the accelerator."""

    NVIDIA = "nvidia", "NVIDIA"
    AMD = "amd", "AMD"
    INTEL = "intel", "Intel"
    GOOGLE = "google", "Google"
    AWS = "aws", "AWS"
    MICROSOFT = "microsoft", "Microsoft"


class AcceleratorKind(models.TextChoices):
    """Whether an accelerator is a GPU or a purpose-built AI ASIC."""

    GPU = "gpu", "GPU"
    ASIC = "asic", "AI ASIC"


class FormFactor(models.TextChoices):
    """How the accelerator is packaged."""

    SXM = "sxm", "SXM module"
    OAM = "oam", "OAM module"
    PCIE = "pcie", "PCIe card"
    SUPERCHIP = "superchip", "CPU+GPU superchip"
    CUSTOM = "custom", "Custom board (cloud only, not sold)"


class Precision(models.TextChoices):
    """Number format a throughput figure is quoted for (integer formats are in tera-ops)."""

    FP64 = "FP64", "FP64"
    FP32 = "FP32", "FP32"
    TF32 = "TF32", "TF32"
    FP16 = "FP16", "FP16"
    BF16 = "BF16", "BF16"
    FP8 = "FP8", "FP8"
    FP4 = "FP4", "FP4"
    INT8 = "INT8", "INT8"
    INT4 = "INT4", "INT4"


class SystemKind(models.TextChoices):
    """What a purchasable system SKU is."""

    ACCELERATOR = "accelerator", "Bare accelerator (card or module)"
    BASEBOARD = "baseboard", "Multi-accelerator baseboard"
    DGX_NODE = "dgx_node", "HGX/DGX node"
    SERVER = "server", "Server"
    WORKSTATION = "workstation", "Workstation"
    RACK_SCALE = "rack_scale", "Rack-scale system"
    SUPERCHIP = "superchip", "CPU+GPU superchip"


class Provider(models.TextChoices):
    """Who rents the offering; `market` is a price band a survey quotes across providers."""

    AWS = "aws", "AWS"
    AZURE = "azure", "Microsoft Azure"
    GCP = "gcp", "Google Cloud"
    ORACLE = "oracle", "Oracle Cloud"
    LAMBDA = "lambda", "Lambda"
    COREWEAVE = "coreweave", "CoreWeave"
    RUNPOD = "runpod", "RunPod"
    VASTAI = "vastai", "Vast.ai"
    THUNDER = "thunder", "Thunder Compute"
    SPHERON = "spheron", "Spheron"
    RUNCRATE = "runcrate", "Runcrate"
    TENSORWAVE = "tensorwave", "TensorWave"
    VULTR = "vultr", "Vultr"
    NEBIUS = "nebius", "Nebius"
    MARKET = "market", "Market survey (band across providers)"


class PricingModel(models.TextChoices):
    """How a cloud offering is paid for."""

    ON_DEMAND = "on_demand", "On-demand"
    RESERVED_1Y = "reserved_1y", "Reserved / committed 1 year"
    RESERVED_3Y = "reserved_3y", "Reserved / committed 3 years"
    SPOT = "spot", "Spot / preemptible"
    CAPACITY_BLOCK = "capacity_block", "Capacity block"


# How a pricing model reads inside an offering's name ("..., us-east-1, reserved 3 years").
PRICING_WORDS = {
    PricingModel.ON_DEMAND: "on-demand",
    PricingModel.RESERVED_1Y: "reserved 1 year",
    PricingModel.RESERVED_3Y: "reserved 3 years",
    PricingModel.SPOT: "spot",
    PricingModel.CAPACITY_BLOCK: "capacity block",
}


class SystemCooling(models.TextChoices):
    """How a system's heat leaves it: which rooms it can run in."""

    AIR = "air", "Air-cooled"
    LIQUID = "liquid", "Liquid cooling required"
    EITHER = "either", "Air or liquid"


class CoolingMedium(models.TextChoices):
    """Which systems a cooling technology serves: air-cooled ones or liquid-cooled ones."""

    AIR = "air", "Air-cooled systems"
    LIQUID = "liquid", "Liquid-cooled systems"


class Rating(models.TextChoices):
    """Qualitative level the seeds use for cooling cost and complexity."""

    LOW = "low", "Low"
    MEDIUM = "medium", "Medium"
    HIGH = "high", "High"
    VERY_HIGH = "very_high", "Very high"


class FacilityKind(models.TextChoices):
    """Whether the space is rented per kW or owned and built out."""

    COLOCATION = "colocation", "Colocation"
    OWNED = "owned", "Owned data center"
