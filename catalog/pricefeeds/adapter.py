"""What every price-feed adapter takes besides where to read: the HTTP client, the accelerator
map and the price checks."""

from __future__ import annotations

from catalog.pricefeeds.client import HttpClient
from catalog.pricefeeds.mapping import InstanceMap
from catalog.pricefeeds.mapping import default_instance_map
from catalog.pricefeeds.sanity import PriceLimits


class FeedAdapter:
    """Base of the adapters; subclasses add where they read and pass the rest on (``**adapter``).

    Parameters
    ----------
    client
        The HTTP client (default: a fresh one with the default retries and timeouts).
    instance_map
        Which accelerator each provider's instance type carries (default: the shipped map).
    limits
        The price checks (default: USD, up to 1,000 per accelerator-hour).
    """

    def __init__(
        self,
        *,
        client: HttpClient | None = None,
        instance_map: InstanceMap | None = None,
        limits: PriceLimits | None = None,
    ) -> None:
        self.client = client or HttpClient()
        self.instance_map = instance_map or default_instance_map()
        self.limits = limits or PriceLimits()
