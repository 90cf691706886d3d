"""A refresh sends requests, and its API key, only to the hosts the deployment lists in
PRICE_FEED_HOSTS, whatever location a schedule or a command names. The local server below
answers the Lambda sample on 127.0.0.1, a host the default list does not have."""
from __future__ import annotations

from urllib.parse import urlsplit

from catalog.models import RefreshStatus
from catalog.refresh.feeds import FEED_SOURCES
from catalog.refresh.services import price_refresh_run
from tests.catalog.pricefeeds.conftest import Reply  # noqa: F401  (the fixture)
from tests.catalog.pricefeeds.conftest import local_server  # noqa: F401  (the fixture)
from tests.catalog.test_refresh_interfaces import LAMBDA_SAMPLE


def test_an_unlisted_host_gets_no_request_and_no_key(catalog, settings, local_server):  # noqa: F811
    settings.LAMBDA_API_KEY = "lambda-secret"
    local_server.routes["/types"] = Reply(body=LAMBDA_SAMPLE.read_bytes())

    job = price_refresh_run(provider="lambda", location=local_server.url("/types"))

    assert (job.status, job.error_code) == (RefreshStatus.FAILED, "host_not_allowed")
    assert job.error == "lambda: 127.0.0.1: not in PRICE_FEED_HOSTS; nothing was sent"
    assert local_server.requests == []


def test_a_listed_host_is_read_with_the_key(catalog, settings, local_server):  # noqa: F811
    settings.LAMBDA_API_KEY = "lambda-secret"
    settings.PRICE_FEED_HOSTS = [*settings.PRICE_FEED_HOSTS, "127.0.0.1"]
    local_server.routes["/types"] = Reply(body=LAMBDA_SAMPLE.read_bytes())

    job = price_refresh_run(provider="lambda", location=local_server.url("/types"))

    assert (job.status, job.prices_new) == (RefreshStatus.SUCCEEDED, 4)
    ((_, headers),) = local_server.requests
    assert headers["Authorization"] == "Bearer lambda-secret"


def test_every_providers_own_endpoint_is_listed_by_default(settings):
    hosts = {urlsplit(source.url).hostname for source in FEED_SOURCES.values()}

    assert hosts <= set(settings.PRICE_FEED_HOSTS)


def test_a_redirect_to_an_unlisted_host_is_not_followed(catalog, settings, local_server):  # noqa: F811
    settings.LAMBDA_API_KEY = "lambda-secret"
    settings.PRICE_FEED_HOSTS = [*settings.PRICE_FEED_HOSTS, "127.0.0.1"]
    elsewhere = local_server.url("/types").replace("127.0.0.1", "localhost")
    local_server.routes["/moved"] = Reply(status=302, headers={"Location": elsewhere})
    local_server.routes["/types"] = Reply(body=LAMBDA_SAMPLE.read_bytes())

    job = price_refresh_run(provider="lambda", location=local_server.url("/moved"))

    assert (job.status, job.error_code) == (RefreshStatus.FAILED, "host_not_allowed")
    assert job.error == "lambda: redirect to localhost: not in PRICE_FEED_HOSTS; nothing was sent"
    assert [path for path, _ in local_server.requests] == ["/moved"]
