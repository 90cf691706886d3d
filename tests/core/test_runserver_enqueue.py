"""A job queued from `manage.py runserver` reaches the configured broker, as from gunicorn: each
of its requests runs in a thread of its own, where Celery found no current app and sent through
its fallback app (amqp://guest@localhost) until the project's app was made the default."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import requests
from knox.models import AuthToken

from tests.faults.outages import free_port
from tests.teams.members import member
from tests.worker import REPO_ROOT
from tests.worker import database_url


@pytest.mark.django_db(transaction=True)
def test_a_job_queued_from_the_development_server_reaches_the_filesystem_broker(tmp_path):
    staff = member("ops", is_staff=True)
    _, key = AuthToken.objects.create(staff)
    port = free_port()
    env = {name: value for name, value in os.environ.items()
           if name not in ("DJANGO_SETTINGS_MODULE", "REDIS_URL", "PYTEST_XDIST_WORKER")}
    env.update(TCO_VAR_DIR=str(tmp_path), DATABASE_URL=database_url(), NETBOX_URL="https://netbox.example.com",
               NETBOX_TOKEN="0123")  # the import is only queued: no worker runs it
    log = (tmp_path / "runserver.log").open("w")
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
                              cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                answer = requests.post(f"http://127.0.0.1:{port}/api/v1/netbox-imports/", json={},
                                       headers={"Authorization": f"Token {key}"}, timeout=30)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline, (tmp_path / "runserver.log").read_text()[-2000:]
                time.sleep(0.5)
        assert answer.status_code == 202, answer.text
        queued = sorted((tmp_path / "broker" / "queue").glob("*.msg"))
        assert [path.name.split(".", 1)[1] for path in queued] == ["default.msg"]
    finally:
        server.terminate()
        server.wait(timeout=30)
