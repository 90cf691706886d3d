"""A run's result in storage: one Arrow part per chunk, written once, where it stays.

Parts go through Django's storage API (``default_storage``): a folder on one machine, or an
S3-compatible object store that workers on many machines share (django-storages, set by
``S3_BUCKET``), with no code change and no local path. A part is named
``runs/<run>/part-<index>-<token>.arrow``: the token keeps a redelivered chunk's copy from
overwriting the one that was counted (the worker that loses the count deletes its own copy).
A part is an Arrow IPC file with LZ4-compressed buffers, one record batch per 32,768 rows as
the chunk computed them (``PartEncoder``): it writes a 125,000-point part in about 10 ms
against 20 ms for Parquet with LZ4 (without statistics), at the same size (7.6 MB); parts of
runs stored before are Parquet (``.parquet``) and read as such.

Nothing assembles the parts. A sweep's finisher reads none of them (its chunks' workers
counted what the summary needs), a Monte Carlo finisher only the columns it needs, and a
download streams the parts in point order as one Parquet file whose row groups hold a fixed
number of rows, so its bytes are the same whatever the chunking.
"""
from __future__ import annotations

import io
import re
import secrets
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Sequence
from concurrent.futures import Future
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import pyarrow as pa
import pyarrow.parquet as pq
from django.core.files.base import File
from django.core.files.storage import default_storage

from core.csv_cells import inert_frame
from tco.runs.compute import WINNER_COLUMN

RUNS_FOLDER = "runs"
# A download is Parquet. Only the winner repeats a few values; dictionary-encoding the float
# columns made writing 40,000 points 6x slower (97 vs 16 ms) and the file larger (3.0 vs 2.6 MB).
DICTIONARY_COLUMNS = [WINNER_COLUMN]
# How a part is written (a download is written again, so its bytes do not depend on it): in
# one thread, which was faster than Arrow's own threads (8.1 vs 9.6 ms a part).
PART_WRITE_OPTIONS = pa.ipc.IpcWriteOptions(compression="lz4", use_threads=False)
PART_SUFFIX = ".arrow"
# Rows per row group of a download, and per CSV piece: a few MB at a time.
ROW_GROUP_ROWS = 65_536


def run_folder(run_id: int) -> str:
    """The storage folder of a run's parts."""
    return f"{RUNS_FOLDER}/{run_id}"


def part_save(run_id: int, index: int, payload: pa.Buffer) -> tuple[str, int]:
    """Store a chunk's part (``part_bytes``, ``PartEncoder``) as its own object; its storage
    name and size [bytes]."""
    name = f"{run_folder(run_id)}/part-{index:06d}-{secrets.token_hex(6)}{PART_SUFFIX}"
    return default_storage.save(name, _PartFile(payload)), len(payload)


class _PartFile(File):
    """A part's bytes as the file a storage reads, a piece at a time, straight from the encoder's
    buffer: no copy of the whole part first (12.7 MB at 209,715 points; a part is written in
    3.0 instead of 4.1 ms). A folder storage copies it in pieces of 1 MiB, not Django's 64 KiB:
    a 7.6 MB part in 2.1 instead of 3.0 ms (an object store reads it in its own pieces)."""

    DEFAULT_CHUNK_SIZE = 1024 * 1024

    def __init__(self, payload: pa.Buffer) -> None:
        super().__init__(pa.BufferReader(payload))
        self.size = payload.size


def part_bytes(table: pa.Table) -> pa.Buffer:
    """A table as a part's bytes."""
    with PartEncoder(alongside=False) as part:
        part.write(lambda: table)
        return part.finish()


class PartEncoder:
    """A part's bytes, encoded a record batch at a time as the caller computes the next rows.

        with PartEncoder() as part:
            part.write(rows)  # a callable giving a pyarrow.Table
            ...
            payload = part.finish()

    ``alongside``: the tables are encoded (and the work ``beside`` done, a sweep chunk's tally)
    on a thread of their own, while the caller goes on.
    A worker with fewer processes than its machine's cores makes it its processes' default
    (``alongside_by_default``): its chunks' ~12 ms of encoding (Arrow arrays, LZ4) then use
    a core no process computes on. Measured on the 2-core benchmark machine, 1,000,000 points:
    1 worker process 1.19-1.22 s with the thread against 1.25-1.34 s without; with 2
    processes the thread only took turns with the engine (0.73-0.75 s against 0.69-0.73 s).

    Without the thread, the work waits for ``finish``: encoded between the engine's blocks, the
    tables pushed the engine's own arrays out of the caches. A 125,000-point chunk of the
    benchmark sweep cost 18.1 instead of 25.4 ms beside the engine alone (medians of 40,
    alternated in one process on the 2-core AMD EPYC machine); the part is the same, batch for batch.
    """

    # Set in a worker's main process before it forks (tco/runs/worker_steps.py).
    alongside_by_default = False

    def __init__(self, *, alongside: bool | None = None) -> None:
        alongside = self.alongside_by_default if alongside is None else alongside
        # One thread a chunk, started in the process that computes it (a forked pool process
        # inherits no threads).
        self._thread = None
        if alongside:
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="part-encoder")
        self._sink = pa.BufferOutputStream()
        self._writer: pa.ipc.RecordBatchFileWriter | None = None
        self._queued: list[Future] = []
        self._deferred: list[Callable[[], None]] = []

    def __enter__(self) -> PartEncoder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._thread is not None:
            self._thread.shutdown(cancel_futures=True)

    def write(self, rows: Callable[[], pa.Table]) -> None:
        """Encode the table ``rows`` gives (the schema of the first), after those written before."""
        self.beside(partial(self._encode, rows))

    def beside(self, work: Callable[[], None]) -> None:
        """Do ``work`` on the chunk's rows (its tally) after what was written before: on the
        part's thread when it has one, else in ``finish``, which waits for it either way."""
        if self._thread is None:
            self._deferred.append(work)
        else:
            self._queued.append(self._thread.submit(work))

    def finish(self) -> pa.Buffer:
        """The part's bytes once every table written is encoded (and the work ``beside`` done); an
        error of either is raised here."""
        for queued in self._queued:
            queued.result()
        for work in self._deferred:
            work()
        self._deferred.clear()
        if self._writer is None:
            raise ValueError("a part holds at least one table")
        self._writer.close()
        return self._sink.getvalue()

    def _encode(self, rows: Callable[[], pa.Table]) -> None:
        table = rows()
        if self._writer is None:
            self._writer = pa.ipc.new_file(self._sink, table.schema, options=PART_WRITE_OPTIONS)
        self._writer.write_table(table)


def part_delete(name: str) -> None:
    """Delete one part (a copy that lost the count)."""
    default_storage.delete(name)


def run_objects_delete(run_id: int) -> int:
    """Delete every object of a run (its parts, counted or not); how many were deleted."""
    folder = run_folder(run_id)
    try:
        _, files = default_storage.listdir(folder)
    except FileNotFoundError:  # a folder storage that never wrote one
        return 0
    for name in files:
        default_storage.delete(f"{folder}/{name}")
    return len(files)


def part_table(name: str) -> pa.Table:
    """One whole part, read in one request."""
    with default_storage.open(name, "rb") as handle:
        payload = pa.BufferReader(handle.read())
    if name.endswith(PART_SUFFIX):
        return pa.ipc.open_file(payload).read_all()
    return pq.read_table(payload)


def parts_column(names: Sequence[str], column: str) -> pa.ChunkedArray:
    """One column over every part, in point order: only that column's bytes are read from a
    seekable file (a folder storage); an object store's file is fetched whole."""
    arrays = []
    for name in names:
        with default_storage.open(name, "rb") as handle:
            if name.endswith(PART_SUFFIX):
                reader = pa.ipc.open_file(handle)
                fields = [reader.schema.get_field_index(column)]
                reader = pa.ipc.open_file(handle, options=pa.ipc.IpcReadOptions(included_fields=fields))
                arrays.extend(reader.get_batch(i).column(0) for i in range(reader.num_record_batches))
            else:
                arrays.extend(pq.read_table(handle, columns=[column]).column(0).chunks)
    return pa.chunked_array(arrays)


# "usd" as a word of a stored column's name ("npv_usd", "price_usd_per_instance_hour").
_USD_WORD = re.compile(r"(?<![a-z])usd(?![a-z])")


def money_columns(columns: Sequence[str], currency: str) -> list[str]:
    """The stored columns' names as a download gives them: amounts are in the run's currency
    (its scenario's reporting currency), so a name's "usd" says that currency.

    >>> money_columns(["point", "buy: npv_usd", "rent.0.price_usd_per_instance_hour"], "EUR")
    ['point', 'buy: npv_eur', 'rent.0.price_eur_per_instance_hour']
    """
    code = currency.lower()
    return [_USD_WORD.sub(code, column) for column in columns]


def parquet_stream(names: Sequence[str], currency: str = "USD") -> Iterator[bytes]:
    """The parts as one Parquet file, a row group at a time (memory follows ROW_GROUP_ROWS); its
    money columns named in ``currency`` (``money_columns``)."""
    sink = _Drain()
    writer: pq.ParquetWriter | None = None
    for batch in _fixed_batches(part_table(name) for name in names):
        batch = batch.rename_columns(money_columns(batch.column_names, currency))
        if writer is None:
            writer = pq.ParquetWriter(sink, batch.schema, use_dictionary=DICTIONARY_COLUMNS)
        writer.write_table(batch)
        yield sink.take()
    if writer is not None:
        writer.close()
        yield sink.take()


def csv_stream(names: Sequence[str], currency: str = "USD") -> Iterator[str]:
    """The parts as CSV text, header first, its money columns named in ``currency``
    (``money_columns``); rent option names made inert for spreadsheets."""
    header = True
    for batch in _fixed_batches(part_table(name) for name in names):
        batch = batch.rename_columns(money_columns(batch.column_names, currency))
        yield inert_frame(batch.to_pandas()).to_csv(index=False, header=header)
        header = False


def _fixed_batches(tables: Iterable[pa.Table]) -> Iterator[pa.Table]:
    """The rows of ``tables`` again, cut into tables of ROW_GROUP_ROWS rows (the last shorter)."""
    pending: list[pa.Table] = []
    held = 0
    for table in tables:
        pending.append(table)
        held += table.num_rows
        while held >= ROW_GROUP_ROWS:
            joined = pa.concat_tables(pending)
            yield joined.slice(0, ROW_GROUP_ROWS).combine_chunks()
            rest = joined.slice(ROW_GROUP_ROWS)
            pending, held = [rest], rest.num_rows
    if held:
        yield pa.concat_tables(pending).combine_chunks()


class _Drain(io.RawIOBase):
    """A write-only file that hands over what was written since the last ``take``."""

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self._position = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        piece = bytes(data)
        self._pieces.append(piece)
        self._position += len(piece)
        return len(piece)

    def tell(self) -> int:
        return self._position

    def take(self) -> bytes:
        taken, self._pieces = b"".join(self._pieces), []
        return taken
