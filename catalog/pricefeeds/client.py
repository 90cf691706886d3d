"""The one HTTP client every price feed uses: timeouts, retries with backoff, streamed downloads."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3 import exceptions as urllib3_exceptions
from urllib3.util.retry import Retry

from catalog.pricefeeds.errors import HostNotAllowed
from catalog.pricefeeds.errors import UpstreamHTTPError
from catalog.pricefeeds.sources import decode_json
from core.outbound import CheckedAdapter
from core.outbound import OutboundRefused
from core.outbound import OutboundSession

# Statuses worth another try: rate limiting (Azure and GCP answer 429) and server errors.
RETRY_STATUSES = (429, 500, 502, 503, 504)


@dataclass(frozen=True)
class HttpSettings:
    """Timeouts, retries and paging limits for feed requests."""

    connect_timeout_seconds: float = 10.0
    read_timeout_seconds: float = 60.0
    max_retries: int = 4
    # urllib3 sleeps backoff_factor x 2^(retry - 1) seconds between retries, capped by Retry.
    backoff_factor_seconds: float = 1.0
    max_pages: int = 500
    download_chunk_bytes: int = 1 << 20
    #: Hosts requests may go to (a deployment's PRICE_FEED_HOSTS); None: any host, for a client
    #: a test or a script points at a recorded payload's server.
    allowed_hosts: tuple[str, ...] | None = None


class _AllowListSession(OutboundSession):
    """A session that calls only public addresses (core/outbound.py) and follows a redirect only
    to an allowed host (headers such as an API key would follow it; requests drops only
    ``Authorization`` on a change of host)."""

    def __init__(self, check_host, adapter: HTTPAdapter) -> None:
        super().__init__(adapter=adapter)
        self._check_host = check_host

    def get_redirect_target(self, resp: requests.Response) -> str | None:
        target = super().get_redirect_target(resp)
        if target is not None:
            self._check_host(urljoin(resp.url, target), "")
        return target


class HttpClient:
    """A requests.Session that retries connection errors, timeouts and 429/5xx answers.

    Every failure that survives the retries becomes ``UpstreamHTTPError`` naming the
    provider and the URL, so a job can record why nothing was written.
    """

    def __init__(self, settings: HttpSettings | None = None) -> None:
        self.settings = settings or HttpSettings()
        retry = Retry(
            total=self.settings.max_retries,
            connect=self.settings.max_retries,
            read=self.settings.max_retries,
            status=self.settings.max_retries,
            backoff_factor=self.settings.backoff_factor_seconds,
            status_forcelist=RETRY_STATUSES,
            # RunPod's GraphQL query is a read, so a POST is as safe to repeat as a GET.
            allowed_methods=frozenset({"GET", "POST"}),
            respect_retry_after_header=True,
            raise_on_status=False,
        )
        self.session = _AllowListSession(self._host_check, CheckedAdapter(max_retries=retry))

    def _host_check(self, url: str, provider: str) -> None:
        """Refuse ``url`` unless its host is allowed (any host when no list is set)."""
        allowed = self.settings.allowed_hosts
        host = urlsplit(url).hostname or ""
        if allowed is not None and host.lower() not in {name.lower() for name in allowed}:
            raise HostNotAllowed(provider, host or url, "not in PRICE_FEED_HOSTS; nothing was sent")

    @property
    def timeout(self) -> tuple[float, float]:
        """(connect, read) timeouts for requests [s]."""
        return (self.settings.connect_timeout_seconds, self.settings.read_timeout_seconds)

    def get_json(
        self,
        url: str,
        *,
        provider: str,
        headers: dict[str, str] | None = None,
    ) -> Any:
        """GET a JSON document; numbers with a fraction come back as Decimal."""
        response = self._send("GET", url, provider=provider, headers=headers)
        return decode_json(response.content, provider=provider, record=response.url)

    def get_bytes(self, url: str, *, provider: str) -> bytes:
        """GET a small document (an XML or CSV file) whole."""
        return self._send("GET", url, provider=provider).content

    def post_json(
        self,
        url: str,
        *,
        provider: str,
        body: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> Any:
        """POST a JSON body (GraphQL) and decode the JSON answer."""
        response = self._send("POST", url, provider=provider, data=json.dumps(body), headers=headers)
        return decode_json(response.content, provider=provider, record=response.url)

    def download(self, url: str, destination: Path, *, provider: str) -> Path:
        """Stream ``url`` to ``destination`` in chunks, so memory does not grow with the file.

        A body shorter than its Content-Length raises UpstreamHTTPError (urllib3 enforces it).
        """
        self._host_check(url, provider)
        try:
            with self.session.get(url, stream=True, timeout=self.timeout) as response:
                self._raise_for_status(response, provider=provider)
                with destination.open("wb") as out:
                    for chunk in response.iter_content(self.settings.download_chunk_bytes):
                        out.write(chunk)
        except HostNotAllowed as exc:
            raise _redirect_refused(exc, provider) from exc
        except OutboundRefused as exc:
            raise HostNotAllowed(provider, url, str(exc)) from exc
        except requests.RequestException as exc:
            raise UpstreamHTTPError(provider, f"GET {url}", _describe(exc)) from exc
        return destination

    def _send(self, method: str, url: str, *, provider: str, **kwargs: Any) -> requests.Response:
        self._host_check(url, provider)
        try:
            response = self.session.request(method, url, timeout=self.timeout, **kwargs)
        except HostNotAllowed as exc:
            raise _redirect_refused(exc, provider) from exc
        except OutboundRefused as exc:
            raise HostNotAllowed(provider, url, str(exc)) from exc
        except requests.RequestException as exc:
            raise UpstreamHTTPError(provider, f"{method} {url}", _describe(exc)) from exc
        self._raise_for_status(response, provider=provider)
        return response

    def _raise_for_status(self, response: requests.Response, *, provider: str) -> None:
        if response.status_code >= 400:
            retried = response.status_code in RETRY_STATUSES
            after = f" after {self.settings.max_retries} retries" if retried else ""
            raise UpstreamHTTPError(
                provider,
                f"{response.request.method} {response.url}",
                f"HTTP {response.status_code}{after}",
            )


def _redirect_refused(exc: HostNotAllowed, provider: str) -> HostNotAllowed:
    """The session's refusal of a redirect (it knows no provider), said for ``provider``."""
    return HostNotAllowed(provider, f"redirect to {exc.record}", exc.reason)


def _describe(exc: requests.RequestException) -> str:
    """What went wrong in words a person acts on, not urllib3's repr of a connection pool."""
    host = urlsplit(str(exc.request.url)).hostname if exc.request is not None else None
    where = f"the host {host}" if host else "the host"
    # urllib3's NewConnectionError (and its NameResolutionError) are ConnectTimeoutErrors too.
    if _caused_by(exc, urllib3_exceptions.NameResolutionError):
        return (f"{where} could not be found (no DNS answer): check the URL and this machine's "
                "network, or refresh from a local copy in PRICE_FEED_FOLDERS")
    if _caused_by(exc, urllib3_exceptions.NewConnectionError):
        return f"{where} could not be reached (connection failed: refused or dropped)"
    if isinstance(exc, requests.Timeout) or _caused_by(exc, urllib3_exceptions.TimeoutError):
        return f"{where} did not answer in time (timed out)"
    if isinstance(exc, requests.ConnectionError):
        return f"{where} could not be reached (connection failed: refused or dropped)"
    return f"the request failed ({type(exc).__name__})"


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``kind`` is among the exceptions ``exc`` wraps (urllib3 nests them in its args)."""
    pending = [exc]
    while pending:
        current = pending.pop()
        if isinstance(current, kind):
            return True
        pending += [arg for arg in current.args if isinstance(arg, BaseException)]
        pending += [link for link in (current.__cause__, current.__context__) if link is not None]
        reason = getattr(current, "reason", None)
        if isinstance(reason, BaseException):
            pending.append(reason)
    return False
