"""Outbound HTTP (core/outbound.py): only public addresses whatever an allowlist says, NetBox's page
links only on NetBox's host, and a bounded number of requests. The servers are real sockets on
127.0.0.1; "reached" means a TCP connection arrived there."""
from __future__ import annotations

import json
import socket
import threading

import pytest
import responses
from django.core.exceptions import ValidationError
from django.test import override_settings

from core.outbound import OutboundRefused
from core.outbound import OutboundSession
from core.outbound import checked_address
from notifications.choices import Channel
from notifications.choices import DeliveryStatus
from notifications.models import Delivery
from notifications.models import Subscription
from notifications.services import Undeliverable
from notifications.services import delivery_attempt
from sites.models import NetBoxImport
from sites.models import Site
from sites.netbox import netbox_api
from sites.netbox import netbox_import_run
from tests.sites.recorded_netbox import NETBOX_URL
from tests.sites.recorded_netbox import TOKEN
from tests.sites.recorded_netbox import recorded
from tests.sites.recorded_netbox import serve
from tests.teams.members import team

# The spellings of 127.0.0.1 and the internal names a probe got past NOTIFY_WEBHOOK_ALLOWED_HOSTS="*".
LOOPBACK_SPELLINGS = ["2130706433", "0x7f000001", "0177.0.0.1", "127.1", "localhost.", "[::1]",
                      "[::ffff:127.0.0.1]"]
INTERNAL_NAMES = ["metadata.google.internal", "redis", "169.254.169.254", "10.0.0.5"]


class Listener:
    """A TCP socket on 127.0.0.1 that counts the connections made to it and answers HTTP 200."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def listener():
    server = Listener()
    yield server
    server.close()


@override_settings(NOTIFY_WEBHOOK_ALLOWED_HOSTS=["*"], OUTBOUND_ALLOWED_NETWORKS=[])
@pytest.mark.parametrize("host", LOOPBACK_SPELLINGS + INTERNAL_NAMES)
def test_a_webhook_to_an_internal_host_is_refused_when_every_host_is_allowed(db, host):
    with pytest.raises(ValidationError) as refused:
        Subscription(team=team("alpha"), channel=Channel.WEBHOOK, address=f"https://{host}:8597/hook").full_clean()
    assert "internal address" in refused.value.message_dict["address"][0]


@override_settings(OUTBOUND_ALLOWED_NETWORKS=[])
@pytest.mark.parametrize("host", LOOPBACK_SPELLINGS)
def test_no_spelling_of_loopback_is_connected_to_by_default(host, listener):
    with pytest.raises(OutboundRefused, match=r"(127.0.0.1|::1) is an internal address \(loopback\)"):
        OutboundSession().get(f"http://{host}:{listener.port}/")
    assert listener.connections == 0


def test_a_host_resolving_to_the_metadata_address_is_refused_whatever_its_name():
    # What DNS answers for 169.254.169.254.nip.io and, on Google Cloud, metadata.google.internal.
    def recorded_dns(host, port, family, kind):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("169.254.169.254", port))]

    for host in ("169.254.169.254.nip.io", "metadata.google.internal"):
        with pytest.raises(OutboundRefused, match="169.254.169.254 is an internal address \\(link-local\\)"):
            checked_address(host, 80, resolve=recorded_dns)


@override_settings(OUTBOUND_ALLOWED_NETWORKS=["127.0.0.1/32"])
def test_a_network_the_settings_open_is_reached(listener):
    assert OutboundSession().get(f"http://127.0.0.1:{listener.port}/").text == "ok"
    assert listener.connections == 1


@override_settings(NOTIFY_WEBHOOK_ALLOWED_HOSTS=["*"], OUTBOUND_ALLOWED_NETWORKS=[])
@pytest.mark.django_db
def test_a_stored_webhook_to_a_numeric_loopback_is_given_up_without_a_connection(listener):
    subscription = Subscription.objects.create(team=team("alpha"), channel=Channel.WEBHOOK,
                                               address=f"https://2130706433:{listener.port}/hook")
    delivery = Delivery.objects.create(subscription=subscription, event="price_alert", subject="s",
                                       body="b", payload={})
    with pytest.raises(Undeliverable):
        delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED
    assert "internal address" in delivery.log.get().error
    assert listener.connections == 0


def _netbox_job(pages_or_callback) -> tuple[NetBoxImport, responses.RequestsMock]:
    job = NetBoxImport.objects.create()
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        pages_or_callback(mock)
        netbox_import_run(import_id=job.pk, api=netbox_api(NETBOX_URL, TOKEN))
    job.refresh_from_db()
    return job, mock


@pytest.mark.django_db
def test_netbox_next_links_to_another_host_are_not_followed_and_the_token_stays_home():
    pages = recorded()
    pages["racks"]["next"] = "http://127.0.0.1:8598/api/dcim/racks/?limit=50&offset=50"
    elsewhere = []

    def register(mock):
        serve(mock, pages)
        mock.add_callback(responses.GET, "http://127.0.0.1:8598/api/dcim/racks/",
                          callback=lambda request: elsewhere.append(request) or (200, {}, "{}"))

    job, _ = _netbox_job(register)
    assert elsewhere == []
    assert job.status == "failed" and Site.objects.count() == 0
    assert "http://127.0.0.1:8598 is not the configured host netbox.example.com:443" in job.error


@override_settings(NETBOX_MAX_REQUESTS=20)
@pytest.mark.django_db
def test_a_netbox_page_linking_to_itself_stops_after_the_request_limit():
    pages = recorded()
    pages["sites"]["next"] = f"{NETBOX_URL}/api/dcim/sites/?limit=1&offset=1"
    seen = []

    def register(mock):
        def answer(request):
            seen.append(request)
            if len(seen) > 50:  # the code before the limit loops until its worker's time limit
                raise AssertionError("the import kept following the same page")
            return 200, {"Content-Type": "application/json"}, json.dumps(pages["sites"])
        mock.add_callback(responses.GET, f"{NETBOX_URL}/api/dcim/sites/", callback=answer)

    job, _ = _netbox_job(register)
    assert len(seen) == 20
    assert job.status == "failed"
    assert "stopped after 20 requests (at most 20)" in job.error
