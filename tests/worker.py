"""A real Celery worker process for the tests that exercise tasks end to end."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from django.conf import settings

from config.celery_app import app as celery_app
from config.queues import Queue

REPO_ROOT = Path(__file__).resolve().parent.parent
READY_TIMEOUT_S = 60


def database_url() -> str:
    """The URL of the database the test run is using (pytest-django's test_ database)."""
    db = settings.DATABASES["default"]
    user = db.get("USER") or "postgres"
    return f"postgres://{user}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


class WorkerProcess:
    """`celery worker` in a child process, pointed at the test database and the given broker."""

    def __init__(self, *, broker_env: dict[str, str], concurrency: int = 1, queues=tuple(Queue)):
        self.name = f"test-{uuid.uuid4().hex[:8]}@localhost"
        self.broker_env = broker_env
        self.concurrency = concurrency
        self.queues = ",".join(str(q) for q in queues)
        self.process: subprocess.Popen | None = None
        self.log_path = REPO_ROOT / "test-artifacts" / f"{self.name}.log"

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test",
                "DATABASE_URL": database_url(), "CELERY_TASK_ALWAYS_EAGER": "false",
                **self.broker_env}

    def start(self, *, wait: bool = True) -> WorkerProcess:
        env = self.env
        self.log_path.parent.mkdir(exist_ok=True)
        log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-n", self.name,
             "-Q", self.queues, "--concurrency", str(self.concurrency), "--loglevel", "INFO",
             "--without-gossip", "--without-mingle"],
            cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Celery worker exited early; see {self.log_path}:\n"
                                   + self.log_path.read_text()[-3000:])
            if celery_app.control.ping(destination=[self.name], timeout=0.5):
                return
        self.stop()
        raise RuntimeError(f"Celery worker did not answer within {READY_TIMEOUT_S}s; "
                           f"see {self.log_path}")

    def kill(self) -> None:
        """SIGKILL the whole worker (main process and its pool children), as a crash would."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
