"""What the API-key feeds (Lambda, RunPod) share: where to read, the key, client, map, limits."""

from __future__ import annotations

from pathlib import Path

from catalog.pricefeeds.client import HttpClient
from catalog.pricefeeds.mapping import InstanceMap, default_instance_map
from catalog.pricefeeds.sanity import PriceLimits


class KeyedFeed:
    """An adapter reading a URL (with ``Authorization: Bearer <api_key>``) or a local file."""

    default_location: str

    def __init__(
        self,
        *,
        location: str | Path | None = None,
        api_key: str | None = None,
        client: HttpClient | None = None,
        instance_map: InstanceMap | None = None,
        limits: PriceLimits | None = None,
    ) -> None:
        self.location = self.default_location if location is None else location
        self.api_key = api_key
        self.client = client or HttpClient()
        self.instance_map = instance_map or default_instance_map()
        self.limits = limits or PriceLimits()
