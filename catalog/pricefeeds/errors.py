"""Errors that abort a price-feed run: the caller writes nothing and records ``code`` and the message."""

from __future__ import annotations

import re


class FeedError(Exception):
    """A feed run that cannot be trusted; names the provider, the record and the reason.

    Each kind's ``code`` is its class name in snake case (``TooManyPages``: ``too_many_pages``).
    """

    code = "feed_error"

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls.code = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", cls.__name__).lower()

    def __init__(self, provider: str, record: str, reason: str) -> None:
        self.provider = provider
        self.record = record
        self.reason = reason
        super().__init__(f"{provider}: {record}: {reason}")


class MalformedPayload(FeedError):
    """The payload does not have the shape the provider documents."""


class TruncatedPayload(MalformedPayload):
    """The payload ends early (cut download, missing last page)."""


class MissingSource(FeedError):
    """A local source that is not there: a file given for a mirror's root, a region not mirrored."""


class UpstreamHTTPError(FeedError):
    """The provider kept answering with an HTTP error, timing out or dropping the connection."""


class HostNotAllowed(FeedError):
    """A URL (given, a next-page link or a redirect) on a host the deployment does not list in
    PRICE_FEED_HOSTS: nothing is sent to it, the API key least of all."""


class FolderNotAllowed(FeedError):
    """A local path outside the folders the deployment lists in PRICE_FEED_FOLDERS: nothing is read."""


class TooManyPages(FeedError):
    """A paged walk went past its page limit (a loop in the next-page links or a runaway listing)."""


class UnknownCurrency(FeedError):
    """A price is in a currency the run does not accept."""


class AbsurdPrice(FeedError):
    """A price is not positive or is above the per-accelerator-hour ceiling."""
