"""Chunk tables as Parquet bytes, their assembly into one file, and the CSV download of it.

Chunk results travel as Parquet bytes in the database, so workers on other machines need no
shared disk; the finisher streams them, one chunk at a time, into a single Parquet file.
"""
from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from core.csv_cells import inert_frame

# Rows per CSV piece of a download: a few MB of text at a time.
CSV_BATCH_ROWS = 65_536


def frame_to_parquet_bytes(frame: pd.DataFrame) -> bytes:
    """A chunk's table as Parquet bytes."""
    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), sink)
    return sink.getvalue().to_pybytes()


def parquet_bytes_to_table(payload: bytes | memoryview) -> pa.Table:
    """The table ``frame_to_parquet_bytes`` wrote."""
    return pq.read_table(pa.BufferReader(bytes(payload)))


def write_parquet(tables: Iterable[pa.Table], path: Path) -> int:
    """Write tables of one schema, in order, into one Parquet file; returns the row count.

    Only one table is held at a time, so memory follows the chunk size, not the run size.
    """
    rows = 0
    writer: pq.ParquetWriter | None = None
    try:
        for table in tables:
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
            rows += table.num_rows
    finally:
        if writer is not None:
            writer.close()
    if writer is None:
        raise ValueError("no chunk tables to write")
    return rows


def parquet_to_csv(source: BinaryIO | Path) -> Iterator[str]:
    """The Parquet file as CSV text, header first, in pieces of ``CSV_BATCH_ROWS`` rows.

    Rent option names (in column names and the winner column) are made inert for spreadsheets.
    """
    parquet = pq.ParquetFile(source)
    header = True
    for batch in parquet.iter_batches(batch_size=CSV_BATCH_ROWS):
        yield inert_frame(batch.to_pandas()).to_csv(index=False, header=header)
        header = False
