"""Where a feed's JSON comes from: a URL, a local file, or a local directory of pages.

Live runs and air-gapped runs go through the same functions, so the parsers never know
which one they read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from urllib.parse import parse_qsl
from urllib.parse import urlsplit

from catalog.pricefeeds.errors import MalformedPayload
from catalog.pricefeeds.errors import TooManyPages
from catalog.pricefeeds.errors import TruncatedPayload

if TYPE_CHECKING:
    from catalog.pricefeeds.client import HttpClient

Location = str | Path | Sequence[Path]
# Given a page and the address it came from, the address of the next page or None.
NextPage = Callable[[Any, str], str | None]


def is_url(location: object) -> bool:
    """True for an http(s) address, False for a local path."""
    return isinstance(location, str) and location.startswith(("http://", "https://"))


def decode_json(content: bytes | str, *, provider: str, record: str) -> Any:
    """Decode JSON with fractions as Decimal; tell a cut-off document from a broken one."""
    try:
        return json.loads(content, parse_float=Decimal)
    except json.JSONDecodeError as exc:
        ends_early = exc.pos >= len(exc.doc.rstrip()) or exc.msg.startswith("Unterminated")
        error = TruncatedPayload if ends_early else MalformedPayload
        raise error(provider, record, f"invalid JSON: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise MalformedPayload(provider, record, f"not UTF-8 text: {exc}") from exc


def read_json_file(path: Path, *, provider: str) -> Any:
    """Decode one local JSON file."""
    return decode_json(path.read_bytes(), provider=provider, record=str(path))


def page_files(location: Path | Sequence[Path]) -> list[Path]:
    """The pages of a local listing: one file, the given files, or a directory's ``*.json``.

    A directory's files are read in natural name order (``page-2`` before ``page-10``).
    """
    if isinstance(location, Path):
        if location.is_dir():
            return sorted(location.glob("*.json"), key=_natural_key)
        return [location]
    return list(location)


def iter_json_pages(
    location: Location,
    *,
    provider: str,
    next_page: NextPage,
    client: HttpClient | None = None,
    headers: dict[str, str] | None = None,
) -> Iterator[tuple[str, Any]]:
    """Yield ``(address, page)`` for every page of a paged listing, live or local.

    Live: follow ``next_page`` from the first URL until it returns None. Local: read every
    file and put them in the order of their links (``pages_in_link_order``), so a missing last
    page is reported as TruncatedPayload instead of passing for the whole.
    """
    if is_url(location):
        if client is None:
            raise ValueError("a URL location needs an HttpClient")
        yield from _iter_url_pages(
            str(location),
            client=client,
            provider=provider,
            next_page=next_page,
            headers=headers,
        )
        return
    files = page_files(Path(location) if isinstance(location, str) else location)
    if not files:
        raise MalformedPayload(provider, str(location), "no JSON pages found")
    pages = [(str(path), read_json_file(path, provider=provider)) for path in files]
    yield from pages_in_link_order(pages, provider=provider, next_page=next_page)


def pages_in_link_order(
    pages: Sequence[tuple[str, Any]], *, provider: str, next_page: NextPage
) -> list[tuple[str, Any]]:
    """Local pages in the order their own next-page links give, whatever their file names.

    The page that links to no next page is the last one; the others come in the order of the
    links they carry (Azure's ``$skip=1000`` before ``$skip=2000``; a token is opaque, so pages
    linked by tokens keep their given order). A listing with no last page is truncated (its
    last page was not supplied); one with two last pages mixes two listings.
    """
    links = [(next_page(page, address), address, page) for address, page in pages]
    last = [(address, page) for link, address, page in links if link is None]
    if not last:
        raise TruncatedPayload(
            provider, links[-1][1], "the last page links to a next page that was not supplied"
        )
    if len(last) > 1:
        raise MalformedPayload(
            provider, last[1][0], f"{len(last)} pages link to no next page; a listing has one last page"
        )
    onward = [(link, address, page) for link, address, page in links if link is not None]
    ordered = sorted(onward, key=lambda row: _skip_of(row[0]))
    return [(address, page) for _, address, page in ordered] + last


def _iter_url_pages(
    url: str,
    *,
    client: HttpClient,
    provider: str,
    next_page: NextPage,
    headers: dict[str, str] | None,
) -> Iterator[tuple[str, Any]]:
    max_pages = client.settings.max_pages
    seen: set[str] = set()
    current: str | None = url
    while current is not None:
        if current in seen:
            raise TooManyPages(provider, current, "the next-page link points back to a read page")
        if len(seen) >= max_pages:
            raise TooManyPages(provider, current, f"more than {max_pages} pages")
        seen.add(current)
        page = client.get_json(current, provider=provider, headers=headers)
        yield current, page
        current = next_page(page, current)


def _natural_key(path: Path) -> list[object]:
    # By stem, so "prices.json" comes before "prices-page2.json" as page 1 before page 2.
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.stem)]


def _skip_of(link: str) -> int:
    """The offset a next-page link asks for (Azure's ``$skip``); 0 when it names none."""
    query = dict(parse_qsl(urlsplit(link).query))
    for name in ("$skip", "skip", "offset"):
        if query.get(name, "").isdigit():
            return int(query[name])
    return 0


def load_json_document(
    location: str | Path,
    *,
    provider: str,
    client: HttpClient | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[str, Any]:
    """``(address, document)`` of a single JSON document, fetched (GET) or read from a file."""
    ((address, document),) = iter_json_pages(
        location, provider=provider, next_page=_no_next_page, client=client, headers=headers
    )
    return address, document


def _no_next_page(_page: Any, _address: str) -> None:
    return None
