"""The shared HTTP client and page walker: retries, timeouts, page limits, JSON errors."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from catalog.pricefeeds import HttpClient
from catalog.pricefeeds import MalformedPayload
from catalog.pricefeeds import TooManyPages
from catalog.pricefeeds import TruncatedPayload
from catalog.pricefeeds import UpstreamHTTPError
from catalog.pricefeeds.sources import decode_json
from catalog.pricefeeds.sources import iter_json_pages
from catalog.pricefeeds.sources import page_files

from .conftest import LocalServer
from .conftest import Reply


def next_link(page: dict, _address: str) -> str | None:
    return page.get("next")


def test_a_server_error_is_retried_and_then_reported_with_the_url(
    local_server: LocalServer, fast_client: HttpClient
) -> None:
    local_server.routes["/prices"] = Reply(b"oops", status=500)

    with pytest.raises(UpstreamHTTPError) as raised:
        fast_client.get_json(local_server.url("/prices"), provider="azure")

    assert local_server.hits("/prices") == 3  # max_retries=2: one try and two retries
    assert str(raised.value) == (f"azure: GET {local_server.url('/prices')}: HTTP 500 after 2 retries")
    assert raised.value.code == "upstream_http_error"


def test_a_client_error_is_not_retried(local_server: LocalServer, fast_client: HttpClient) -> None:
    local_server.routes["/prices"] = Reply(b"{}", status=403)

    with pytest.raises(UpstreamHTTPError, match="HTTP 403$"):
        fast_client.get_json(local_server.url("/prices"), provider="gcp")
    assert local_server.hits("/prices") == 1


def test_a_server_that_recovers_within_the_retries_succeeds(
    local_server: LocalServer, fast_client: HttpClient
) -> None:
    answers = iter([Reply(b"", status=503), Reply(b'{"price": 1.25}')])
    local_server.routes["/prices"] = lambda _query: next(answers)

    document = fast_client.get_json(local_server.url("/prices"), provider="azure")

    assert document == {"price": Decimal("1.25")}  # fractions are Decimal, never float


def test_a_read_timeout_is_retried_and_then_reported(
    local_server: LocalServer, fast_client: HttpClient
) -> None:
    local_server.routes["/slow"] = Reply(b"{}", delay_seconds=1.0)  # client waits 0.3 s

    with pytest.raises(UpstreamHTTPError, match="timed out"):
        fast_client.get_json(local_server.url("/slow"), provider="lambda")
    assert local_server.hits("/slow") == 3


def test_a_refused_connection_is_an_upstream_error(fast_client: HttpClient) -> None:
    with pytest.raises(UpstreamHTTPError, match="connection failed"):
        fast_client.get_json("http://127.0.0.1:9/nothing", provider="runpod")


def test_next_page_links_that_loop_are_stopped(local_server: LocalServer, fast_client: HttpClient) -> None:
    local_server.routes["/a"] = Reply(f'{{"next": "{local_server.url("/b")}"}}'.encode())
    local_server.routes["/b"] = Reply(f'{{"next": "{local_server.url("/a")}"}}'.encode())

    with pytest.raises(TooManyPages, match="points back"):
        list(
            iter_json_pages(local_server.url("/a"), provider="azure", next_page=next_link, client=fast_client)
        )


def test_a_listing_longer_than_the_page_limit_is_stopped(
    local_server: LocalServer, fast_client: HttpClient
) -> None:
    # Every page links to a new page; fast_client allows 5.
    local_server.routes["/page"] = lambda query: Reply(
        f'{{"next": "{local_server.url("/page")}?n={int(query.get("n", 0)) + 1}"}}'.encode()
    )

    with pytest.raises(TooManyPages, match="more than 5 pages"):
        list(
            iter_json_pages(
                local_server.url("/page"), provider="gcp", next_page=next_link, client=fast_client
            )
        )
    assert local_server.hits("/page") == 5


def test_a_page_directory_is_read_in_natural_name_order(tmp_path: Path) -> None:
    for number in (10, 2, 1):
        (tmp_path / f"page-{number}.json").write_text("{}")

    assert [p.name for p in page_files(tmp_path)] == ["page-1.json", "page-2.json", "page-10.json"]


def test_a_page_that_ends_the_listing_before_the_last_file_is_malformed(tmp_path: Path) -> None:
    (tmp_path / "page-1.json").write_text('{"next": null}')
    (tmp_path / "page-2.json").write_text('{"next": null}')

    # Pages are put in the order of their links: two pages that end the listing are two listings.
    with pytest.raises(MalformedPayload, match="2 pages link to no next page"):
        list(iter_json_pages(tmp_path, provider="azure", next_page=next_link))


def test_json_cut_short_is_truncated_and_broken_json_is_malformed() -> None:
    with pytest.raises(TruncatedPayload):
        decode_json(b'{"Items": [{"retailPrice": 98.32}, {"retail', provider="azure", record="p1")
    with pytest.raises(TruncatedPayload):
        decode_json(b"", provider="azure", record="p1")
    with pytest.raises(MalformedPayload) as raised:
        decode_json(b"<html>Service Unavailable</html>", provider="azure", record="p1")
    assert not isinstance(raised.value, TruncatedPayload)
