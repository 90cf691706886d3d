"""Every HTTP request this service sends to another server goes through here: NetBox imports,
webhooks, price feeds and exchange rates.

    session = OutboundSession(pinned_to=settings.NETBOX_URL, max_requests=2000, deadline_s=240)

An ``OutboundSession`` (a requests.Session):

- connects only to public addresses. The host is resolved and every address it resolves to is
  checked *before* connecting, and the socket goes to the checked address (no second lookup
  that a rebinding DNS could answer differently). Loopback, private, link-local (the cloud
  metadata service at 169.254.169.254), shared, reserved, multicast and unspecified addresses are
  refused whatever a caller's host allowlist says ("*" included), in any spelling the resolver
  takes (``2130706433``, ``0x7f000001``, ``0177.0.0.1``, ``127.1``, ``localhost.``, a
  ``169.254.169.254.nip.io``). Only ``OUTBOUND_ALLOWED_NETWORKS`` (empty by default; the test
  settings name 127.0.0.1 for their local servers) opens such a network.
- may be pinned to one origin (scheme, host and port): a followed link (NetBox's ``next``) or a
  redirect anywhere else is refused before anything is sent, so a token never leaves its host.
- bounds how many requests it sends and how long it lives, and gives every request a timeout.
- ignores the proxy variables of the environment (a proxy would connect for it, unchecked).
"""
from __future__ import annotations

import ipaddress
import socket
import time
from typing import Any
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3 import connection as urllib3_connection
from urllib3.connectionpool import HTTPConnectionPool
from urllib3.connectionpool import HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError
from urllib3.exceptions import NameResolutionError
from urllib3.exceptions import NewConnectionError
from urllib3.util.connection import create_connection

DEFAULT_TIMEOUT_S = (10.0, 60.0)
# Names of internal services no public DNS answers for, refused without a lookup.
INTERNAL_NAMES = ("localhost", "metadata", "metadata.google.internal", "instance-data")
INTERNAL_SUFFIXES = (".localhost", ".internal", ".local", ".localdomain")


class OutboundRefused(Exception):
    """A request that was not sent; the message says why. Deliberately not an OSError, so no
    retry layer (urllib3's, requests') takes it for a network failure and tries again."""


def _allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    # Read when a request is made: the price feeds import this module without Django.
    from django.conf import settings

    return [ipaddress.ip_network(entry, strict=False)
            for entry in getattr(settings, "OUTBOUND_ALLOWED_NETWORKS", [])]


def address_refusal(address: str) -> str | None:
    """Why a connection to the IP ``address`` is refused, or None when it may be made."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if any(ip in network for network in _allowed_networks()):
        return None
    if ip.is_global and not ip.is_multicast:
        return None
    kind = ("loopback" if ip.is_loopback else "link-local" if ip.is_link_local
            else "private" if ip.is_private else "non-public")
    return f"{ip} is an internal address ({kind}); only public addresses may be called"


def literal_address(host: str) -> str | None:
    """The IP a host written as an address stands for, in every form the C resolver takes
    (``2130706433``, ``0x7f000001``, ``0177.0.0.1``, ``127.1``); None for a name."""
    host = host.strip("[]").rstrip(".")
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    try:
        return socket.inet_ntoa(socket.inet_aton(host))
    except OSError:
        return None


def host_refusal(host: str) -> str | None:
    """Why ``host`` is refused without resolving it (an internal name or address), or None."""
    name = host.lower().rstrip(".")
    address = literal_address(name)
    if address is not None:
        return address_refusal(address)
    if name in INTERNAL_NAMES or name.endswith(INTERNAL_SUFFIXES) or "." not in name:
        return f"{host} names an internal address; only public hosts may be called"
    return None


def checked_address(host: str, port: int, resolve=socket.getaddrinfo) -> str:
    """The address to connect to for ``host``: every address it resolves to must be allowed, or
    OutboundRefused says which is not. ``resolve`` has getaddrinfo's signature."""
    address = literal_address(host)
    answers = resolve(address or host.rstrip("."), port, 0, socket.SOCK_STREAM)
    for *_rest, sockaddr in answers:
        reason = address_refusal(sockaddr[0])
        if reason is not None:
            raise OutboundRefused(f"{host} resolves to {reason}; nothing was sent")
    return answers[0][4][0]


class _CheckedConnection(urllib3_connection.HTTPConnection):
    """urllib3's connection, opened to the address ``checked_address`` allowed (one lookup)."""

    def _new_conn(self) -> socket.socket:
        try:
            address = checked_address(self._dns_host, self.port)
            return create_connection((address, self.port), self.timeout, source_address=self.source_address,
                                     socket_options=self.socket_options)
        except socket.gaierror as exc:
            raise NameResolutionError(self.host, self, exc) from exc
        except TimeoutError as exc:
            raise ConnectTimeoutError(self, f"Connection to {self.host} timed out. "
                                            f"(connect timeout={self.timeout})") from exc
        except OSError as exc:
            raise NewConnectionError(self, f"Failed to establish a new connection: {exc}") from exc


class _CheckedHTTPSConnection(_CheckedConnection, urllib3_connection.HTTPSConnection):
    pass


class _CheckedPool(HTTPConnectionPool):
    ConnectionCls = _CheckedConnection


class _CheckedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _CheckedHTTPSConnection


class CheckedAdapter(HTTPAdapter):
    """requests' adapter whose connections go only to addresses ``address_refusal`` allows."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _CheckedPool, "https": _CheckedHTTPSPool}


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or (443 if scheme == "https" else 80)
    return scheme, (parts.hostname or "").lower().rstrip("."), port


class OutboundSession(requests.Session):
    """A session that calls only public addresses, optionally only ``pinned_to``'s origin, at
    most ``max_requests`` times within ``deadline_s`` seconds of its creation."""

    def __init__(self, *, pinned_to: str | None = None, max_requests: int | None = None,
                 deadline_s: float | None = None, timeout: tuple[float, float] = DEFAULT_TIMEOUT_S,
                 adapter: HTTPAdapter | None = None) -> None:
        super().__init__()
        self.trust_env = False
        self.pinned = _origin(pinned_to) if pinned_to else None
        self.max_requests = max_requests
        self.deadline = time.monotonic() + deadline_s if deadline_s is not None else None
        self.default_timeout = timeout
        self.sent = 0
        adapter = adapter or CheckedAdapter()
        self.mount("https://", adapter)
        self.mount("http://", adapter)

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        if self.pinned is not None and _origin(request.url or "") != self.pinned:
            scheme, host, port = _origin(request.url or "")
            raise OutboundRefused(f"{request.method} {scheme}://{host}:{port} is not the configured "
                                  f"host {self.pinned[1]}:{self.pinned[2]}; nothing was sent there")
        if self.max_requests is not None and self.sent >= self.max_requests:
            raise OutboundRefused(f"stopped after {self.sent} requests (at most {self.max_requests}); "
                                  "does a link lead back to a page already read?")
        timeout = kwargs.get("timeout") or self.default_timeout
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise OutboundRefused(f"stopped after {self.sent} requests: out of time")
            connect, read = timeout if isinstance(timeout, tuple) else (timeout, timeout)
            timeout = (min(connect, left), min(read, left))
        kwargs["timeout"] = timeout
        self.sent += 1
        return super().send(request, **kwargs)
