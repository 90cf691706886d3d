"""Workers as if on two machines: they share only Redis, PostgreSQL and an S3-compatible object store.

Each worker has its own ``TCO_VAR_DIR`` (and so its own media folder), and results go to a
bucket on a real S3 API server on 127.0.0.1 (moto's, the S3 protocol AWS and MinIO speak), set
up by the same settings production uses (``S3_BUCKET``, ``S3_ENDPOINT_URL``...). The sweep is
computed by both workers, read back through the object store, and equals the engine called
directly; nothing lands on either worker's disk; deleting the run empties its folder in the bucket.
"""
from __future__ import annotations

import socket
import subprocess
import sys

import boto3
import numpy as np
import pytest
import redis
from numpy.testing import assert_allclose
from numpy.testing import assert_array_equal

import costmodel as engine
from core.queues import Queue
from tco.models import ACTIVE_STATUSES
from tco.models import RunKind
from tco.models import SweepChunk
from tco.models import SweepRun
from tco.services.runs import run_inputs
from tco.services.runs import run_spec
from tco.services.runs import sweep_run_start
from tests.tco.run_results import result_frame
from tests.worker import REPO_ROOT
from tests.worker import WorkerProcess
from tests.worker import poll_until

pytestmark = pytest.mark.worker

BUCKET = "tco-results"
PRICE = "rent.0.price_usd_per_instance_hour"
SAVING = "p5 on demand: npv_saving_usd"
CREDENTIALS = {"S3_ACCESS_KEY_ID": "tests", "S3_SECRET_ACCESS_KEY": "tests-secret", "S3_REGION": "us-east-1"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def object_store(tmp_path):
    """An S3 API server on 127.0.0.1 with an empty bucket; the settings that point at it."""
    port = _free_port()
    log = (REPO_ROOT / "test-artifacts" / "object-store.log")
    log.parent.mkdir(exist_ok=True)
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                              stdout=log.open("w"), stderr=subprocess.STDOUT)
    endpoint = f"http://127.0.0.1:{port}"
    client = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=CREDENTIALS["S3_ACCESS_KEY_ID"],
                          aws_secret_access_key=CREDENTIALS["S3_SECRET_ACCESS_KEY"],
                          region_name=CREDENTIALS["S3_REGION"])
    try:
        poll_until(lambda: _accepts(port), "object store listening", timeout_s=30)
        client.create_bucket(Bucket=BUCKET)
        yield {"S3_BUCKET": BUCKET, "S3_ENDPOINT_URL": endpoint, **CREDENTIALS}, client
    finally:
        server.terminate()
        server.wait(timeout=10)


def _accepts(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def s3_settings(settings, object_store):
    """This test process reads results from the bucket too, through the same settings."""
    env, _ = object_store
    settings.STORAGES = {**settings.STORAGES, "default": {
        "BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": {
            "bucket_name": env["S3_BUCKET"], "endpoint_url": env["S3_ENDPOINT_URL"],
            "region_name": env["S3_REGION"], "access_key": env["S3_ACCESS_KEY_ID"],
            "secret_key": env["S3_SECRET_ACCESS_KEY"], "file_overwrite": True, "default_acl": None}}}
    return object_store


def test_two_workers_sharing_only_broker_database_and_object_store_complete_a_sweep(
        transactional_db, live_celery, settings, s3_settings, run_scenario, tmp_path):
    env, bucket = s3_settings
    redis.Redis.from_url(settings.REDIS_URL).delete(*Queue)
    machines = [tmp_path / "machine-a", tmp_path / "machine-b"]
    workers = [WorkerProcess(broker_env={
        "DJANGO_SETTINGS_MODULE": "config.settings.base", "REDIS_URL": settings.REDIS_URL,
        "TCO_VAR_DIR": str(var_dir), **env}) for var_dir in machines]
    try:
        for worker in workers:
            worker.start()
        spec = {"axes": [{"path": "utilisation", "low": 0.05, "high": 1, "count": 100},
                         {"path": PRICE, "low": 20, "high": 100, "count": 80}]}
        run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, spec=spec, chunk_size=500)
        ended = SweepRun.objects.filter(pk=run.pk).exclude(status__in=ACTIVE_STATUSES)
        run = poll_until(ended.first, "finished run", timeout_s=120)
    finally:
        for worker in workers:
            worker.stop()

    assert run.status == "done", run.error
    assert run.chunks_done == 16
    computed_by = set(SweepChunk.objects.filter(run=run).values_list("worker", flat=True))
    assert computed_by == {worker.name for worker in workers}  # both machines took chunks
    stored = bucket.list_objects_v2(Bucket=BUCKET, Prefix=f"runs/{run.pk}/")["Contents"]
    assert len(stored) == 16
    assert run.result_bytes == sum(item["Size"] for item in stored)
    assert not any((var_dir / "media").exists() for var_dir in machines)  # no local result anywhere

    frame = result_frame(run)  # read back through the bucket
    grid = run_spec(run.kind, run.spec, run_inputs(run)).overrides(0, run.points_total)
    direct = engine.evaluate(engine.with_overrides(run_inputs(run), grid), detail=False)
    assert_array_equal(frame["point"], np.arange(8_000))
    assert_allclose(frame[SAVING], direct.rent[0].npv_saving_usd)

    run.delete()
    poll_until(lambda: bucket.list_objects_v2(Bucket=BUCKET, Prefix=f"runs/{run.pk}/")["KeyCount"] == 0
               or None, "objects deleted", timeout_s=10, poll_s=0.2)
