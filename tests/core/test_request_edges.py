"""Edges of a request a probe found: a NUL in the URL path, a feed host that does not resolve."""
from __future__ import annotations

import pytest

from catalog.pricefeeds.client import HttpClient
from catalog.pricefeeds.client import HttpSettings
from catalog.pricefeeds.errors import UpstreamHTTPError
from tests.teams.members import member


@pytest.mark.django_db
def test_a_nul_in_the_url_path_is_not_found(client):
    client.force_login(member("reader"))
    answer = client.get("/api/v1/throughput-measurements/ab%00c/")
    assert answer.status_code == 404


def test_a_feed_host_that_does_not_resolve_is_said_in_words():
    client = HttpClient(HttpSettings(max_retries=0, connect_timeout_seconds=2))
    with pytest.raises(UpstreamHTTPError) as failed:
        client.get_json("https://prices.no-such-host.invalid/feed.json", provider="azure")
    message = str(failed.value)
    assert "the host prices.no-such-host.invalid could not be found (no DNS answer)" in message
    assert "NameResolutionError" not in message and "HTTPSConnectionPool" not in message
