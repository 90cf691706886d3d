"""A NetBox import through the API and a real Celery worker on Redis, against a local HTTP server
answering NetBox's REST API with the recorded payloads (pynetbox on the worker talks real HTTP)."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer

import pytest

from sites.models import NetBoxImport
from sites.models import PowerFeed
from tests.sites.recorded_netbox import TOKEN
from tests.sites.recorded_netbox import recorded
from tests.worker import WorkerProcess
from tests.worker import poll_until

pytestmark = pytest.mark.worker


@pytest.fixture
def netbox():
    """NetBox's /api/dcim/<kind>/ on 127.0.0.1, from the recorded pages; 403 without the token."""
    pages = recorded()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            kind = self.path.split("?")[0].strip("/").split("/")[-1]
            if self.headers.get("Authorization") != f"Token {TOKEN}" or kind not in pages:
                self.send_response(403 if kind in pages else 404)
                self.end_headers()
                return
            body = json.dumps(pages[kind]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", pages
    server.shutdown()


@pytest.fixture
def worker(transactional_db, live_celery, settings, netbox):
    url, _ = netbox
    settings.NETBOX_URL, settings.NETBOX_TOKEN = url, TOKEN
    live_celery.control.purge()
    process = WorkerProcess(broker_env={"REDIS_URL": settings.REDIS_URL, "NETBOX_URL": url,
                                        "NETBOX_TOKEN": TOKEN}).start()
    yield process
    process.stop()


def _finished(pk):
    return poll_until(lambda: NetBoxImport.objects.filter(pk=pk, status__in=("done", "failed")).first(),
                      "finished NetBox import", timeout_s=60, poll_s=0.1)


def test_an_import_job_on_a_worker_creates_the_site_and_a_second_updates_only_the_changed_feed(
        worker, netbox, admin_client):
    answer = admin_client.post("/api/v1/netbox-imports/", {"sites": []}, content_type="application/json")
    assert answer.status_code == 202, answer.content
    job = _finished(answer.json()["id"])
    assert job.status == "done", job.error
    assert job.changes["created"]["power-feeds"] == ["R01-A", "R01-B", "R02-A", "R02-B"]
    assert PowerFeed.objects.count() == 4

    _, pages = netbox
    pages["power-feeds"]["results"][1]["max_utilization"] = 90  # R01-B's breaker re-rated to 90 %
    job = _finished(admin_client.post("/api/v1/netbox-imports/", {}, content_type="application/json")
                    .json()["id"])
    assert job.status == "done", job.error
    assert job.changes["created"] == {}
    assert job.changes["updated"] == {"power-feeds": {"R01-B": {"max_utilisation": [0.8, 0.9]}}}
    assert PowerFeed.objects.count() == 4
    polled = admin_client.get(f"/api/v1/netbox-imports/{job.pk}/").json()
    assert polled["status"] == "done" and polled["progress_percent"] == 100
