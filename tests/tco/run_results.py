"""A finished run's result as the download gives it, for tests to read."""
from __future__ import annotations

import io

import pandas as pd

from tco.runs.results import parquet_stream
from tco.services.runs import run_part_names


def result_bytes(run) -> bytes:
    """The Parquet file ``GET /api/v1/runs/{id}/result.parquet`` answers with."""
    return b"".join(parquet_stream(run_part_names(run)))


def result_frame(run) -> pd.DataFrame:
    """The whole result, one row per point."""
    return pd.read_parquet(io.BytesIO(result_bytes(run)))
