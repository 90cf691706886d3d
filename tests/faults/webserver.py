"""gunicorn on 127.0.0.1 with production settings, the test database and a given Redis."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import requests

from tests.faults.outages import free_port
from tests.worker import REPO_ROOT
from tests.worker import database_url

START_TIMEOUT_S = 60


class Gunicorn:
    """``gunicorn config.wsgi`` with 2 workers, as the issue's probes ran it."""

    def __init__(self, *, redis_url: str, log_path: Path, workers: int = 2, **env: str):
        self.port = free_port()
        self.log_path = log_path
        self.workers = workers
        self.env = {
            **os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "DJANGO_SECRET_KEY": "fault-test-only", "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
            "DJANGO_SECURE_SSL_REDIRECT": "false", "DATABASE_URL": database_url(),
            "REDIS_URL": redis_url, **env,
        }
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Gunicorn:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{self.port}",
             "--workers", str(self.workers), "--timeout", "30"],
            cwd=REPO_ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited early:\n{self.log_path.read_text()[-3000:]}")
            try:
                requests.get(f"{self.url}/admin/login/", timeout=10)  # not rate limited
                return self
            except requests.RequestException:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"gunicorn did not answer within {START_TIMEOUT_S}s; see {self.log_path}")

    def log(self) -> str:
        return self.log_path.read_text()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
