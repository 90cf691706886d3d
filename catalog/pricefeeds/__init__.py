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

from catalog.pricefeeds.aws import AWS_PRICING_ROOT, AwsPriceListFeed
from catalog.pricefeeds.aws_offer_csv import parse_offer_csv
from catalog.pricefeeds.aws_offer_json import parse_offer_json
from catalog.pricefeeds.azure import AZURE_PRICES_URL, AzureRetailPricesFeed, azure_query_url
from catalog.pricefeeds.client import HttpClient, HttpSettings
from catalog.pricefeeds.errors import (
    AbsurdPrice,
    FeedError,
    HostNotAllowed,
    MalformedPayload,
    MissingSource,
    TooManyPages,
    TruncatedPayload,
    UnknownCurrency,
    UpstreamHTTPError,
)
from catalog.pricefeeds.gcp import COMPUTE_ENGINE_SKUS_URL, GcpBillingCatalogFeed
from catalog.pricefeeds.lambdalabs import LAMBDA_INSTANCE_TYPES_URL, LambdaCloudFeed
from catalog.pricefeeds.mapping import InstanceMap, InstanceMapError, default_instance_map
from catalog.pricefeeds.records import (
    GLOBAL_REGION,
    ComponentPrice,
    FeedResult,
    ParsedPrice,
    PricingModel,
    Rejection,
    RejectionReason,
)
from catalog.pricefeeds.runpod import RUNPOD_GRAPHQL_URL, RunPodFeed
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
    "parse_offer_csv",
    "parse_offer_json",
]
