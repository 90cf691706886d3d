"""Run results in storage: chunk rows in proportion, one result whatever the chunking, a team quota.

Issue 25's finding 2 (``chunk_size: 1`` wrote one row per point inside the request; a cancel
left them pending) and finding 9 (run results had no quota) are the first tests here.
"""
from __future__ import annotations

from functools import partial

import pytest
from django.core.files.storage import default_storage

from tco.models import SweepChunk
from tco.models import SweepRun
from tco.runs.limits import chunks_in_flight
from tests.tco.run_results import result_bytes
from tests.tco.run_results import result_frame

# Chunks queued at once per run and per team, with the default 2 sweeps worker processes: 4.
PLACES = chunks_in_flight(2)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]

PRICE = "rent.0.price_usd_per_instance_hour"
URL = "/api/v1/runs/"


def start(api, scenario, spec, *, kind="sweep", **fields):
    return api.post(URL, {"scenario": scenario.pk, "kind": kind, "spec": spec, **fields},
                    content_type="application/json")


def grid(points: int) -> dict:
    """A one-axis sweep of ``points`` prices between $20 and $90."""
    return {"axes": [{"path": PRICE, "low": 20, "high": 90, "count": points}]}


def test_a_chunk_size_making_more_than_1024_chunks_is_refused_naming_the_limit(api, run_scenario):
    response = start(api, run_scenario, grid(100_000), chunk_size=1)

    assert response.status_code == 400
    assert response.json() == {"chunk_size": [
        "must be at least 98 for 100,000 points (a run has at most 1,024 chunks), got 1"]}
    assert not SweepRun.objects.exists()


def test_starting_a_large_run_writes_only_the_chunk_rows_it_queues(api, run_scenario,
                                                                    django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():  # queued, not run: the request's own writes only
        response = start(api, run_scenario, grid(100_000), chunk_size=98)

    assert response.status_code == 202, response.json()
    run = SweepRun.objects.get()
    assert run.chunks_total == 1_021  # 100,000 / 98, rounded up
    assert SweepChunk.objects.filter(run=run).count() == PLACES

    assert api.post(f"{URL}{run.pk}/cancel/").status_code == 202
    assert not SweepChunk.objects.filter(run=run, status="pending").exists()


def test_the_service_chooses_a_few_chunks_per_worker_process(api, run_scenario, settings,
                                                             django_capture_on_commit_callbacks):
    settings.SWEEP_WORKER_PROCESSES = 3
    with django_capture_on_commit_callbacks():
        response = start(api, run_scenario, grid(120_000))

    # 120,000 points / (3 processes x 4 chunks each) = 10,000 points a chunk, 12 chunks.
    assert (response.json()["chunk_size"], response.json()["chunks_total"]) == (10_000, 12)


def test_a_run_keeps_every_worker_process_busy(api, run_scenario, settings,
                                               django_capture_on_commit_callbacks):
    settings.SWEEP_WORKER_PROCESSES = 6
    with django_capture_on_commit_callbacks():
        first = start(api, run_scenario, grid(120_000)).json()
        second = start(api, run_scenario, grid(120_000)).json()

    # 120,000 points / (6 processes x 4 chunks each) = 5,000 points a chunk, 24 chunks; two a
    # process are queued at once: all six processes compute, one chunk each waits behind them.
    assert (first["chunk_size"], first["chunks_total"]) == (5_000, 24)
    assert SweepRun.objects.get(pk=first["id"]).chunks_queued == 12
    # The team's places are the first run's until its chunks finish: the two then take turns.
    assert SweepRun.objects.get(pk=second["id"]).chunks_queued == 0


def test_the_downloaded_result_is_the_same_bytes_whatever_the_chunking(api, run_scenario,
                                                                       django_capture_on_commit_callbacks):
    spec = {"axes": [{"path": "utilisation", "start": 0.2, "stop": 1, "step": 0.1},
                     {"path": "electricity_usd_per_kwh", "low": 0.05, "high": 0.25, "count": 5}]}
    with django_capture_on_commit_callbacks(execute=True):
        one = start(api, run_scenario, spec, chunk_size=45).json()
        seven = start(api, run_scenario, spec, chunk_size=7).json()
    one, seven = SweepRun.objects.get(pk=one["id"]), SweepRun.objects.get(pk=seven["id"])

    assert (one.chunks_total, seven.chunks_total) == (1, 7)
    assert result_bytes(one) == result_bytes(seven)
    downloaded = api.get(api.get(f"{URL}{seven.pk}/").json()["result_parquet_url"])
    assert b"".join(downloaded.streaming_content) == result_bytes(one)
    assert list(result_frame(seven)["point"]) == list(range(45))
    assert one.summary == seven.summary


def test_a_run_that_could_take_the_team_over_its_quota_is_refused_naming_the_limit(
        api, run_scenario, settings, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = start(api, run_scenario, grid(1_000))
    used = SweepRun.objects.get(pk=first.json()["id"]).result_bytes
    # One row: point, the buy cost per hour, buying's NPV, the winner's margin, the price, and 4
    # figures and the NPV of the one rent option, 8 bytes each, and a one-byte winner: 81 bytes;
    # 1,000 points could take 81,000 bytes.
    settings.RUN_RESULTS_QUOTA_BYTES = used + 80_999

    refused = start(api, run_scenario, grid(1_000))
    settings.RUN_RESULTS_QUOTA_BYTES = used + 81_000
    with django_capture_on_commit_callbacks():
        accepted = start(api, run_scenario, grid(1_000))

    assert refused.status_code == 400
    assert refused.json() == {"result_storage": [
        f"this run could store up to 81.00 kB and team demo's 1 runs hold {used / 1000:,.2f} kB of its "
        f"{(used + 80_999) / 1000:,.2f} kB quota for run results (RUN_RESULTS_QUOTA_BYTES): delete runs it "
        "no longer needs, or run fewer points"]}
    assert accepted.status_code == 202


def test_the_storage_endpoint_shows_each_teams_usage_and_deleting_runs_frees_it(
        api, run_scenario, settings, django_capture_on_commit_callbacks):
    settings.RUN_RESULTS_QUOTA_BYTES = 10**6
    with django_capture_on_commit_callbacks(execute=True):
        start(api, run_scenario, grid(1_000))
        start(api, run_scenario, grid(500))
    runs = SweepRun.objects.all()
    parts = SweepChunk.objects.values_list("result_name", flat=True)
    stored = sum(default_storage.size(name) for name in parts)

    usage = api.get(f"{URL}storage/").json()

    assert usage == [{"team": "demo", "runs": 2, "used_bytes": stored, "quota_bytes": 10**6,
                      "used_share": stored / 10**6, "used": f"{stored / 1000:,.2f} kB", "quota": "1.00 MB"}]
    with django_capture_on_commit_callbacks(execute=True):
        runs.delete()
    assert api.get(f"{URL}storage/").json()[0]["used_bytes"] == 0


def test_a_part_keeps_never_as_null_and_the_winner_as_categories_and_reads_back_as_the_table():
    import numpy as np

    from tco.runs.compute import PointsTable
    from tco.runs.results import part_bytes
    from tco.runs.results import part_save
    from tco.runs.results import part_table

    points = PointsTable(
        {"point": np.arange(3, dtype=np.int64),
         "Cloud: breakeven_month": np.array([12.0, np.nan, 30.0])},  # NaN: never breaks even
        winner=np.array([0, 1, 0], dtype=np.int8), categories=("buy", "Cloud"))
    name, size = part_save(987_654, 0, part_bytes(points.arrow()))

    table = part_table(name)
    assert name.endswith(".arrow")
    assert size == default_storage.size(name)
    assert table.column("Cloud: breakeven_month").null_count == 1
    assert table.column("winner").to_pylist() == ["buy", "Cloud", "buy"]
    assert table.equals(points.arrow())
    back = PointsTable.from_arrow(table)
    np.testing.assert_array_equal(back.column("Cloud: breakeven_month"), [12.0, np.nan, 30.0])
    assert (back.winner.tolist(), back.categories) == ([0, 1, 0], ("buy", "Cloud"))


def test_a_part_stored_as_parquet_by_an_earlier_release_still_reads():
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq
    from django.core.files.base import ContentFile

    from tco.runs.results import part_table
    from tco.runs.results import parts_column

    table = pa.table({"point": [0, 1], "Cloud: npv_saving_usd": [-5.0, 7.5]})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    name = default_storage.save("runs/987655/part-000000-0123456789ab.parquet", ContentFile(sink.getvalue()))

    assert part_table(name).equals(table)
    assert parts_column([name, name], "Cloud: npv_saving_usd").to_pylist() == [-5.0, 7.5, -5.0, 7.5]


@pytest.mark.parametrize("alongside", [False, True], ids=["once the engine is done", "on a thread"])
def test_a_part_encoded_as_its_rows_come_reads_back_as_one_table_and_an_encoding_error_surfaces(alongside):
    import pyarrow as pa

    from costmodel.examples import rich_scenario
    from tco.runs.compute import ROWS_PER_BATCH
    from tco.runs.compute import sweep_chunk_table
    from tco.runs.results import PartEncoder
    from tco.runs.results import part_bytes
    from tco.runs.specs import parse_sweep_spec

    inputs = rich_scenario()
    spec = parse_sweep_spec({"axes": [{"path": "workload.utilisation", "low": 0.2, "high": 1.0, "count": 100},
                                      {"path": "facility.electricity_usd_per_kwh", "low": 0.05, "high": 0.35,
                                       "count": 700}]}, inputs)
    batches, encoded = [], []

    def rows(table, start, stop):
        encoded.append(start)
        return table.arrow(start, stop)

    with PartEncoder(alongside=alongside) as part:
        table = sweep_chunk_table(inputs, spec, 0, 70_000, on_rows=lambda table, start, stop: (
            batches.append((start, stop)), part.write(partial(rows, table, start, stop))))
        encoded_with_the_engine = list(encoded)
        payload = part.finish()

    # 70,000 rows handed on in batches of 32,768 as they were computed: 3 record batches, encoded
    # in order, and without a thread only once the engine is done (not between its blocks).
    assert ROWS_PER_BATCH == 32_768
    assert batches == [(0, 32_768), (32_768, 65_536), (65_536, 70_000)]
    assert encoded == [0, 32_768, 65_536]
    if not alongside:
        assert encoded_with_the_engine == []
    reader = pa.ipc.open_file(payload)
    assert reader.num_record_batches == 3
    assert reader.read_all().equals(table.arrow())
    assert pa.ipc.open_file(part_bytes(table.arrow())).read_all().equals(table.arrow())

    # Raised when the table is written, or at the latest when the part is finished.
    with pytest.raises(pa.ArrowInvalid), PartEncoder(alongside=alongside) as part:
        part.write(lambda: pa.table({"point": [0]}))
        part.write(lambda: pa.table({"point": ["not a number"]}))  # another schema
        part.finish()
