"""Cloud price-feed adapters: parse provider price lists into accelerator prices.

Pure Python (no Django): every adapter reads a live URL or a local file/directory with the
same code and returns a ``FeedResult``, or raises a ``FeedError`` and returns nothing.

    result = AwsPriceListFeed().fetch_region("us-east-1", last_version=stored_version_url)
    result = AzureRetailPricesFeed().fetch()
    result = GcpBillingCatalogFeed(api_key=key).fetch()
    result = LambdaCloudFeed(api_key=key).fetch()
    result = RunPodFeed(api_key=key).fetch()
"""

from __future__ import annotations

from catalog.pricefeeds.aws import AWS_PRICING_ROOT
from catalog.pricefeeds.aws import AwsPriceListFeed
from catalog.pricefeeds.aws_offer import parse_offer
from catalog.pricefeeds.azure import AZURE_PRICES_URL
from catalog.pricefeeds.azure import AzureRetailPricesFeed
from catalog.pricefeeds.azure import azure_query_url
from catalog.pricefeeds.client import HttpClient
from catalog.pricefeeds.client import HttpSettings
from catalog.pricefeeds.errors import AbsurdPrice
from catalog.pricefeeds.errors import FeedError
from catalog.pricefeeds.errors import HostNotAllowed
from catalog.pricefeeds.errors import MalformedPayload
from catalog.pricefeeds.errors import MissingSource
from catalog.pricefeeds.errors import TooManyPages
from catalog.pricefeeds.errors import TruncatedPayload
from catalog.pricefeeds.errors import UnknownCurrency
from catalog.pricefeeds.errors import UpstreamHTTPError
from catalog.pricefeeds.gcp import COMPUTE_ENGINE_SKUS_URL
from catalog.pricefeeds.gcp import GcpBillingCatalogFeed
from catalog.pricefeeds.lambdalabs import LAMBDA_INSTANCE_TYPES_URL
from catalog.pricefeeds.lambdalabs import LambdaCloudFeed
from catalog.pricefeeds.mapping import InstanceMap
from catalog.pricefeeds.mapping import InstanceMapError
from catalog.pricefeeds.mapping import default_instance_map
from catalog.pricefeeds.records import GLOBAL_REGION
from catalog.pricefeeds.records import ComponentPrice
from catalog.pricefeeds.records import FeedResult
from catalog.pricefeeds.records import ParsedPrice
from catalog.pricefeeds.records import PricingModel
from catalog.pricefeeds.records import Rejection
from catalog.pricefeeds.records import RejectionReason
from catalog.pricefeeds.runpod import RUNPOD_GRAPHQL_URL
from catalog.pricefeeds.runpod import RunPodFeed
from catalog.pricefeeds.sanity import PriceLimits

__all__ = [
    "AWS_PRICING_ROOT",
    "AZURE_PRICES_URL",
    "COMPUTE_ENGINE_SKUS_URL",
    "GLOBAL_REGION",
    "LAMBDA_INSTANCE_TYPES_URL",
    "RUNPOD_GRAPHQL_URL",
    "AbsurdPrice",
    "AwsPriceListFeed",
    "AzureRetailPricesFeed",
    "ComponentPrice",
    "FeedError",
    "FeedResult",
    "GcpBillingCatalogFeed",
    "HttpClient",
    "HttpSettings",
    "InstanceMap",
    "InstanceMapError",
    "LambdaCloudFeed",
    "MalformedPayload",
    "MissingSource",
    "ParsedPrice",
    "PriceLimits",
    "PricingModel",
    "Rejection",
    "RejectionReason",
    "RunPodFeed",
    "TooManyPages",
    "TruncatedPayload",
    "UnknownCurrency",
    "HostNotAllowed",
    "UpstreamHTTPError",
    "azure_query_url",
    "default_instance_map",
    "parse_offer",
]
