"""Fixtures for the price-feed tests: sample payloads, a local HTTP server, offer-file builders."""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl
from urllib.parse import urlsplit

import pytest

from catalog.pricefeeds import HttpClient
from catalog.pricefeeds import HttpSettings

SAMPLES = Path(__file__).resolve().parent / "samples"  # copies of ../shared/reference/price-feeds


@dataclass
class Reply:
    """What the test server answers on one route."""

    body: bytes = b""
    status: int = 200
    delay_seconds: float = 0.0
    content_length: int | None = None  # override, to send a body shorter than announced
    headers: dict[str, str] = field(default_factory=dict)  # e.g. a redirect's Location


Route = Reply | Callable[[dict[str, str]], Reply]


@dataclass
class LocalServer:
    """A real HTTP server on 127.0.0.1 serving ``routes`` by path; counts every request."""

    base_url: str
    routes: dict[str, Route] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    def url(self, path: str) -> str:
        return self.base_url + path

    def hits(self, path: str) -> int:
        return sum(1 for requested, _ in self.requests if urlsplit(requested).path == path)


@pytest.fixture
def json_file(tmp_path: Path) -> Callable[[Any], Path]:
    """Writes a JSON document (a payload a test changed or made up) to a file and gives its path."""

    def write(document: Any) -> Path:
        path = tmp_path / "payload.json"
        path.write_text(json.dumps(document))
        return path

    return write


@pytest.fixture
def samples() -> Path:
    assert SAMPLES.is_dir(), f"sample payloads not found at {SAMPLES}"
    return SAMPLES


@pytest.fixture
def local_server() -> Iterator[LocalServer]:
    server_state: dict[str, LocalServer] = {}

    class Handler(BaseHTTPRequestHandler):
        """Answers from the routes of the LocalServer it serves."""

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            self._answer()

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length", 0))
            self.rfile.read(length)
            self._answer()

        def _answer(self) -> None:
            state = server_state["server"]
            state.requests.append((self.path, dict(self.headers)))
            parts = urlsplit(self.path)
            route = state.routes.get(parts.path)
            reply = Reply(status=404) if route is None else route
            if callable(reply):
                reply = reply(dict(parse_qsl(parts.query)))
            time.sleep(reply.delay_seconds)
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                length = reply.content_length or len(reply.body)
                self.send_header("Content-Length", str(length))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test); nothing to answer

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.block_on_close = False
    state = LocalServer(base_url=f"http://127.0.0.1:{httpd.server_address[1]}")
    server_state["server"] = state
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def fast_client() -> HttpClient:
    """Short timeouts, two retries, no backoff sleep: failure tests finish in well under 1 s."""
    return HttpClient(
        HttpSettings(
            connect_timeout_seconds=1.0,
            read_timeout_seconds=0.3,
            max_retries=2,
            backoff_factor_seconds=0.0,
            max_pages=5,
        )
    )


@pytest.fixture
def aws_sample_offer(samples: Path) -> dict[str, Any]:
    """The sample EC2 offer file as a dict, to copy and mutate."""
    return json.loads((samples / "aws-ec2-offer-sample.json").read_text())


BASE_SKU = "3D4V8UAYEMB38GU2"  # p5.48xlarge, Linux, shared, us-east-1, $55.04/h


@pytest.fixture
def write_offer(tmp_path: Path, aws_sample_offer: dict[str, Any]) -> Callable[..., Path]:
    """Write an offer file with one product: the sample p5.48xlarge with attribute overrides.

    ``write_offer(sku="WINBYOL000000001", price="60.0", licenseModel=...)`` returns its path.
    """

    def write(
        *,
        sku: str = "TESTSKU000000001",
        price: str = "55.0400000000",
        currency: str = "USD",
        product_family: str = "Compute Instance",
        **attributes: str,
    ) -> Path:
        offer = copy.deepcopy(aws_sample_offer)
        product = copy.deepcopy(offer["products"][BASE_SKU])
        product["sku"] = sku
        product["productFamily"] = product_family
        product["attributes"].update(attributes)
        term = copy.deepcopy(offer["terms"]["OnDemand"][BASE_SKU][f"{BASE_SKU}.JRTCKXETXF"])
        term["sku"] = sku
        ((rate_code, dimension),) = term["priceDimensions"].items()
        dimension["pricePerUnit"] = {currency: price}
        term["priceDimensions"] = {rate_code.replace(BASE_SKU, sku): dimension}
        offer["products"] = {sku: product}
        offer["terms"] = {"OnDemand": {sku: {f"{sku}.JRTCKXETXF": term}}, "Reserved": {}}
        path = tmp_path / f"offer-{sku}.json"
        path.write_text(json.dumps(offer, indent=2))
        return path

    return write
