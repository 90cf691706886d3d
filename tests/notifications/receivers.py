"""Real receivers for alert tests: an SMTP server process (aiosmtpd, writing a Maildir) and an
HTTP webhook receiver on 127.0.0.1 that checks the signature and fails its first requests."""
from __future__ import annotations

import json
import mailbox
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from dataclasses import field
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path

from notifications.signing import SIGNATURE_HEADER
from notifications.signing import TIMESTAMP_HEADER
from notifications.signing import verify


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class SmtpServer:
    """``python -m aiosmtpd`` in a child process; messages land in a Maildir."""

    def __init__(self, maildir: Path) -> None:
        self.maildir, self.port = maildir, free_port()

    def __enter__(self) -> SmtpServer:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{self.port}",
             "-c", "aiosmtpd.handlers.Mailbox", str(self.maildir)])
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.1)
        self.process.kill()
        raise AssertionError(f"aiosmtpd did not listen on port {self.port}")

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)

    def messages(self) -> list:
        return list(mailbox.Maildir(self.maildir, create=False)) if (self.maildir / "new").exists() else []


@dataclass
class Received:
    status: int
    signature_ok: bool
    body: dict = field(default_factory=dict)


class WebhookReceiver:
    """Answers 500 to its first ``failures`` requests, then 200; refuses a bad signature (401)."""

    def __init__(self, secret: str, failures: int = 2) -> None:
        self.secret, self.failures, self.requests = secret, failures, []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                ok = verify(receiver.secret, self.headers.get(TIMESTAMP_HEADER, "0"), body,
                            self.headers.get(SIGNATURE_HEADER, ""))
                failing = len(receiver.requests) < receiver.failures
                status = 401 if not ok else (500 if failing else 200)
                receiver.requests.append(Received(status, ok, json.loads(body)))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks/tco"

    def __enter__(self) -> WebhookReceiver:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
