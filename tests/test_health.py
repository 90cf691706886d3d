"""/healthz and the two brokers: Redis in tests and production, the filesystem broker on a bare machine."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests.worker import REPO_ROOT
from tests.worker import WorkerProcess


@pytest.fixture(autouse=True)
def no_kept_worker_status():
    """Each test's workers come and go in this process's own cache: start from none kept."""
    from django.core.cache import cache

    cache.clear()


@pytest.mark.django_db
def test_healthz_reports_database_and_broker_and_no_worker(client):
    response = client.get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"] == {"ok": True, "vendor": "postgresql"}
    assert body["broker"]["ok"] is True
    assert body["workers"]["count"] == 0


@pytest.mark.worker
def test_healthz_sees_a_real_worker_on_redis(client, redis_worker):
    body = client.get("/healthz").json()

    assert body["workers"]["ok"] is True
    assert body["workers"]["count"] >= 1
    assert redis_worker.name.split("@")[1] not in str(body)  # no host names on a public page


@pytest.mark.django_db
def test_healthz_answers_from_the_kept_worker_status(client, monkeypatch):
    from core import health

    client.get("/healthz")  # pings once and keeps the answer
    pings = []
    monkeypatch.setattr(health.celery_app.control, "ping", lambda **kw: pings.append(kw) or [])
    monkeypatch.setattr(health.threading, "Thread", lambda target, daemon: type(
        "Later", (), {"start": lambda self: pings.append("refresh queued")})())

    for _ in range(3):
        assert client.get("/healthz").json()["workers"]["count"] == 0
    # No call waited for a ping; one background refresh was started for the three.
    assert pings == ["refresh queued"]


def test_healthz_answers_503_when_the_broker_is_down(client, settings, db):
    from config.celery_app import app

    old = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    try:
        response = client.get("/healthz")
    finally:
        app.conf.broker_url = old

    assert response.status_code == 503
    assert response.json()["broker"] == {"ok": False, "error": "OperationalError"}
    assert "127.0.0.1" not in response.content.decode()


@pytest.mark.worker
def test_embedded_filesystem_broker_delivers_to_a_real_worker(tmp_path, transactional_db):
    # No REDIS_URL: the settings fall back to kombu's filesystem transport under TCO_VAR_DIR.
    # The test process itself is on Redis, so the ping goes out through the celery CLI.
    worker = WorkerProcess(broker_env={"REDIS_URL": "", "TCO_VAR_DIR": str(tmp_path)})
    worker.start(wait=False)
    try:
        deadline = time.monotonic() + 60
        while True:
            ping = subprocess.run(
                [sys.executable, "-m", "celery", "-A", "config", "inspect", "ping",
                 "-d", worker.name, "--timeout", "2"],
                cwd=REPO_ROOT, env=worker.env, capture_output=True, text=True, timeout=60,
            )
            if ping.returncode == 0 or time.monotonic() > deadline:
                break
    finally:
        worker.stop()

    assert ping.returncode == 0, ping.stdout + ping.stderr + worker.log_path.read_text()
    assert "pong" in ping.stdout
    assert (tmp_path / "broker" / "control").is_dir()



@pytest.mark.worker
def test_healthz_sees_a_worker_on_the_filesystem_broker_by_its_heartbeat(client, tmp_path, transactional_db):
    """`make run`'s broker: a ping's reply waits for the folders' polls, longer than /healthz
    waits, so the worker's heartbeat file is what it counts (issue 44)."""
    from config.celery_app import app

    broker = {"url": app.conf.broker_url, "options": app.conf.broker_transport_options}
    # This process as `make run`'s web server: the filesystem broker under TCO_VAR_DIR.
    app.conf.broker_url = "filesystem://"
    app.conf.broker_transport_options = {
        name: str(tmp_path / "broker" / folder)
        for name, folder in (("data_folder_in", "queue"), ("data_folder_out", "queue"),
                             ("control_folder", "control"))}
    for folder in ("queue", "control"):
        (tmp_path / "broker" / folder).mkdir(parents=True)
    worker = WorkerProcess(broker_env={"REDIS_URL": "", "TCO_VAR_DIR": str(tmp_path)})
    try:
        before = client.get("/healthz").json()["workers"]
        worker.start(wait=False)
        deadline = time.monotonic() + 60
        while (working := client.get("/healthz").json()["workers"])["count"] == 0:
            assert time.monotonic() < deadline, worker.log_path.read_text()[-3000:]
            time.sleep(0.5)
        worker.stop()
        after = client.get("/healthz").json()["workers"]
    finally:
        worker.stop()
        app.conf.broker_url, app.conf.broker_transport_options = broker["url"], broker["options"]

    assert before == {"ok": False, "count": 0}
    assert working == {"ok": True, "count": 1}
    assert after == {"ok": False, "count": 0}  # its stop step removed the heartbeat
    assert worker.name.split("@")[1] not in str(working)
