"""A real Celery worker in a child process, for the benchmarks and the tests that run tasks.

    worker = WorkerProcess(env={"DATABASE_URL": ..., "REDIS_URL": ...}, concurrency=2).start()
    ...
    worker.stop()

It serves every queue unless told otherwise, logs to ``log_dir/<name>.log`` and counts as
started once it answers a ping, so the first task sent to it is not waiting for start-up.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterable
from collections.abc import Mapping
from pathlib import Path

from config.celery_app import app as celery_app
from core.queues import Queue

REPO_ROOT = Path(__file__).resolve().parent.parent
READY_TIMEOUT_S = 60


class WorkerProcess:
    """`celery worker` in a child process with ``env`` over this process's environment."""

    def __init__(self, *, env: Mapping[str, str], concurrency: int = 1,
                 queues: Iterable[str] = tuple(Queue), log_dir: Path = REPO_ROOT / "var") -> None:
        self.name = f"worker-{uuid.uuid4().hex[:8]}@localhost"
        self.env = {**os.environ, "CELERY_TASK_ALWAYS_EAGER": "false", **env}
        self.concurrency = concurrency
        self.queues = ",".join(str(q) for q in queues)
        self.process: subprocess.Popen | None = None
        self.log_path = log_dir / f"{self.name}.log"

    def start(self, *, wait: bool = True) -> WorkerProcess:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-n", self.name,
             "-Q", self.queues, "--concurrency", str(self.concurrency), "--loglevel", "INFO",
             "--without-gossip", "--without-mingle"],
            cwd=REPO_ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
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
