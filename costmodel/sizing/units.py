"""Unit conversions shared by the sizing modules."""

from __future__ import annotations

# Decimal GB, the unit vendors quote HBM capacity and bandwidth in.
BYTES_PER_GB = 1e9
FLOPS_PER_TFLOPS = 1e12
SECONDS_PER_DAY = 86_400.0
