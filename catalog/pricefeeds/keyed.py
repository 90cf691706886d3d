"""What the API-key feeds (GCP, Lambda, RunPod) share: where to read, the key, client, map, limits."""

from __future__ import annotations

from typing import Any

from catalog.pricefeeds.adapter import FeedAdapter
from catalog.pricefeeds.sources import Location


class KeyedFeed(FeedAdapter):
    """An adapter reading a URL (sending its API key in a header) or local files.

    Parameters
    ----------
    location
        The feed's URL (``default_location`` when None) or local JSON files.
    api_key
        Sent in ``key_header`` (default ``Authorization: Bearer <api_key>``), so it stays out
        of URLs, error messages and logs; None sends no header.
    client, instance_map, limits
        As for every adapter (``FeedAdapter``).
    """

    default_location: str
    key_header = "Authorization"
    key_prefix = "Bearer "

    def __init__(self, *, location: Location | None = None, api_key: str | None = None,
                 **adapter: Any) -> None:
        super().__init__(**adapter)
        self.location = self.default_location if location is None else location
        self.api_key = api_key

    @property
    def headers(self) -> dict[str, str] | None:
        """The request headers: the API key, if one was given."""
        return {self.key_header: f"{self.key_prefix}{self.api_key}"} if self.api_key else None
