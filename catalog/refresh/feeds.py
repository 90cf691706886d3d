"""Which feed each provider is refreshed from, and one fetch of it: every price or an error.

Each provider's feed is read from its live endpoint by default, or from ``location`` (a URL or
a local file/directory in the feed's own format: an AWS mirror root, Azure or GCP page files, a
Lambda or RunPod answer), so an air-gapped refresh runs the same code on copied payloads.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import TypeVar

from django.conf import settings

from catalog.pricefeeds import AWS_PRICING_ROOT
from catalog.pricefeeds import AZURE_PRICES_URL
from catalog.pricefeeds import COMPUTE_ENGINE_SKUS_URL
from catalog.pricefeeds import LAMBDA_INSTANCE_TYPES_URL
from catalog.pricefeeds import RUNPOD_GRAPHQL_URL
from catalog.pricefeeds import AwsPriceListFeed
from catalog.pricefeeds import AzureRetailPricesFeed
from catalog.pricefeeds import GcpBillingCatalogFeed
from catalog.pricefeeds import HttpClient
from catalog.pricefeeds import HttpSettings
from catalog.pricefeeds import LambdaCloudFeed
from catalog.pricefeeds import ParsedPrice
from catalog.pricefeeds import Rejection
from catalog.pricefeeds import RunPodFeed
from catalog.pricefeeds.errors import FolderNotAllowed
from catalog.pricefeeds.errors import MissingSource
from catalog.pricefeeds.sources import is_url

T = TypeVar("T")
#: Wraps an iterable to show progress (tqdm in the command); ``desc`` and ``total`` describe it.
Progress = Callable[..., Iterable[Any]]


def no_progress(iterable: Iterable[T], **_description: Any) -> Iterable[T]:
    """The default Progress: the iterable unchanged."""
    return iterable


@dataclass(frozen=True)
class FeedSource:
    """The catalog Source a provider's feed prices are recorded under."""

    key: str
    title: str
    url: str


FEED_SOURCES: Mapping[str, FeedSource] = {
    "aws": FeedSource("aws-price-list-api", "AWS Price List Bulk API (Amazon EC2)", AWS_PRICING_ROOT),
    "azure": FeedSource("azure-retail-prices-api", "Azure Retail Prices API", AZURE_PRICES_URL),
    "gcp": FeedSource(
        "gcp-cloud-billing-catalog",
        "Google Cloud Billing Catalog API (Compute Engine)",
        COMPUTE_ENGINE_SKUS_URL,
    ),
    "lambda": FeedSource("lambda-cloud-api", "Lambda Cloud API (instance types)", LAMBDA_INSTANCE_TYPES_URL),
    "runpod": FeedSource("runpod-graphql-api", "RunPod GraphQL API (GPU types)", RUNPOD_GRAPHQL_URL),
}
FEED_PROVIDERS = tuple(FEED_SOURCES)


@dataclass(frozen=True)
class FeedSettings:
    """What a refresh reads besides the feed itself: AWS regions, API keys, HTTP limits."""

    aws_regions: tuple[str, ...]
    gcp_api_key: str | None = None
    lambda_api_key: str | None = None
    runpod_api_key: str | None = None
    http: HttpSettings = HttpSettings()
    #: Folders a local location must lie in (a deployment's PRICE_FEED_FOLDERS); None: any, for
    #: settings built directly (tests of the parsers).
    folders: tuple[Path, ...] | None = None

    @classmethod
    def from_settings(cls) -> FeedSettings:
        """The deployment's values (PRICE_REFRESH_AWS_REGIONS, the *_API_KEY settings, and the
        PRICE_FEED_HOSTS requests and API keys may go to, the PRICE_FEED_FOLDERS files may be
        read from)."""
        return cls(
            aws_regions=tuple(settings.PRICE_REFRESH_AWS_REGIONS),
            gcp_api_key=settings.GCP_BILLING_API_KEY or None,
            lambda_api_key=settings.LAMBDA_API_KEY or None,
            runpod_api_key=settings.RUNPOD_API_KEY or None,
            http=HttpSettings(allowed_hosts=tuple(settings.PRICE_FEED_HOSTS)),
            # Price lists uploaded in the admin or the API are saved under the media folder.
            folders=tuple(Path(folder).resolve() for folder in (
                *settings.PRICE_FEED_FOLDERS, Path(settings.MEDIA_ROOT) / UPLOADED_PRICE_LISTS)),
        )


#: Where uploaded price lists are kept, below the media folder (catalog/refresh/on_demand.py).
UPLOADED_PRICE_LISTS = "price-lists"


@dataclass(frozen=True)
class FeedRun:
    """What one complete fetch of a provider's feed gave."""

    prices: tuple[ParsedPrice, ...]
    rejections: tuple[Rejection, ...]
    source_versions: dict[str, str]  # region -> version read (AWS); empty for the other feeds
    regions_skipped: tuple[str, ...]  # AWS regions whose version had not changed
    warnings: tuple[str, ...] = ()  # what was left out, e.g. a region missing from a local mirror


def feed_fetch(
    provider: str,
    *,
    location: str | None = None,
    last_versions: Mapping[str, str] | None = None,
    feed_settings: FeedSettings,
    progress: Progress = no_progress,
) -> FeedRun:
    """Read the whole feed of ``provider``; raises a FeedError and returns nothing if any part is bad.

    Parameters
    ----------
    provider : str
        One of FEED_PROVIDERS.
    location : str, optional
        URL or local path to read instead of the live endpoint.
    last_versions : mapping, optional
        AWS: version read per region by the last successful refresh; a region still at that
        version is skipped.
    feed_settings : FeedSettings
    progress : Progress
        Wraps the AWS region loop.
    """
    if provider not in FEED_SOURCES:
        raise ValueError(f"no price feed for provider {provider!r}; one of {', '.join(FEED_PROVIDERS)}")
    where = location or FEED_SOURCES[provider].url
    _folder_check(provider, where, feed_settings.folders)
    if provider == "aws":
        return _aws_fetch(where, last_versions or {}, feed_settings, progress)
    result = FEEDS_READ_WHOLE[provider](_local_or_url(where), feed_settings).fetch()
    return FeedRun(result.prices, result.rejections, {}, ())


def _folder_check(provider: str, location: str, folders: tuple[Path, ...] | None) -> None:
    """Refuse a local location outside ``folders`` (symbolic links and '..' resolved first)."""
    if folders is None or is_url(location):
        return
    path = Path(location).resolve()
    if not any(path.is_relative_to(folder) for folder in folders):
        raise FolderNotAllowed(provider, location, "not in a folder listed in PRICE_FEED_FOLDERS; "
                                                   "nothing was read")


def _local_or_url(location: str) -> str | Path:
    return location if is_url(location) else Path(location)


# Feeds read whole by one fetch() call; AWS is read region by region.
FEEDS_READ_WHOLE: Mapping[str, Callable[[str | Path, FeedSettings], Any]] = {
    "azure": lambda location, feed: AzureRetailPricesFeed(location=location, client=HttpClient(feed.http)),
    "gcp": lambda location, feed: GcpBillingCatalogFeed(
        location=location, api_key=feed.gcp_api_key, client=HttpClient(feed.http)
    ),
    "lambda": lambda location, feed: LambdaCloudFeed(
        location=location, api_key=feed.lambda_api_key, client=HttpClient(feed.http)
    ),
    "runpod": lambda location, feed: RunPodFeed(
        location=location, api_key=feed.runpod_api_key, client=HttpClient(feed.http)
    ),
}


def _aws_fetch(
    root: str, last_versions: Mapping[str, str], feed_settings: FeedSettings, progress: Progress
) -> FeedRun:
    feed = AwsPriceListFeed(root=_local_or_url(root), client=HttpClient(feed_settings.http))
    prices: list[ParsedPrice] = []
    rejections: list[Rejection] = []
    versions: dict[str, str] = {}
    skipped: list[str] = []
    warnings: list[str] = []
    regions = feed_settings.aws_regions
    for region in progress(regions, desc="aws regions", total=len(regions)):
        try:
            result = feed.fetch_region(region, last_version=last_versions.get(region))
        except MissingSource as exc:
            if is_url(root):
                raise
            # A mirror copies the regions its site needs: one it lacks is left out, not a failure.
            warnings.append(f"Region {region} was not refreshed: {exc.record} {exc.reason}.")
            continue
        versions[region] = str(result.source_version)
        if result.skipped:
            skipped.append(region)
        prices += result.prices
        rejections += result.rejections
    if not versions:
        raise MissingSource("aws", root, f"holds none of the regions {', '.join(regions)}")
    return FeedRun(tuple(prices), tuple(rejections), versions, tuple(skipped), tuple(warnings))
