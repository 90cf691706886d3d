"""The engine's view of a catalog accelerator, shared by sizing and the throughput calibration."""
from __future__ import annotations

import math

from catalog.models import Accelerator
from catalog.selectors import dense_tflops
from costmodel.sizing import AcceleratorSpec
from costmodel.sizing import Precision
from costmodel.sizing import SizingInputError


def accelerator_spec(accelerator: Accelerator) -> AcceleratorSpec:
    """The engine's view of a catalog accelerator: memory, bandwidth, dense TFLOPS by precision.

    Precisions the engine does not size for (FP64) are left out. Raises SizingInputError
    naming ``accelerator`` when the catalog has no memory or bandwidth figure for it.
    """
    for figure in ("memory_gb", "memory_bandwidth_gb_per_s"):
        if getattr(accelerator, figure) is None:
            raise SizingInputError("accelerator", f"the catalog has no {figure} for "
                                                  f"{accelerator.slug}; it cannot be sized")
    engine_precisions = {precision.value for precision in Precision}
    link = accelerator.interconnect_bandwidth_gb_per_s
    sources = accelerator.field_sources or {}
    return AcceleratorSpec(
        name=accelerator.name,
        memory_gb=float(accelerator.memory_gb),
        memory_bandwidth_gb_per_s=float(accelerator.memory_bandwidth_gb_per_s),
        dense_tflops={precision.lower(): float(tflops)
                      for precision, tflops in dense_tflops(accelerator).items()
                      if precision.lower() in engine_precisions},
        source=(f"catalog accelerator {accelerator.slug} (memory_gb: "
                f"{', '.join(sources.get('memory_gb', []))}; memory_bandwidth_gb_per_s: "
                f"{', '.join(sources.get('memory_bandwidth_gb_per_s', []))}; dense TFLOPS: the "
                "catalog's preferred figure per precision)"),
        interconnect_gb_per_s=math.nan if link is None else float(link),
    )
