"""Azure Retail Prices API adapter: OData-filtered VM rows, followed through ``NextPageLink``.

One ``armSkuName`` in one region comes back as many rows (price-feed-formats.md section
2.3): Linux on-demand, Windows, Spot, Low Priority, Dev/Test and Reservation rows. Only
Linux on-demand, Spot and 1/3-year Reservation rows become prices; a Reservation's
``retailPrice`` is the total for its term although ``unitOfMeasure`` says "1 Hour".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from catalog.pricefeeds.adapter import FeedAdapter
from catalog.pricefeeds.collector import ResultCollector
from catalog.pricefeeds.dates import iso_date
from catalog.pricefeeds.errors import MalformedPayload
from catalog.pricefeeds.money import decimal_amount
from catalog.pricefeeds.money import spread_over_term
from catalog.pricefeeds.records import TERM_YEARS
from catalog.pricefeeds.records import FeedResult
from catalog.pricefeeds.records import ParsedPrice
from catalog.pricefeeds.records import PricingModel
from catalog.pricefeeds.records import RejectionReason
from catalog.pricefeeds.sanity import PriceLimits
from catalog.pricefeeds.sanity import check_currency
from catalog.pricefeeds.sources import Location
from catalog.pricefeeds.sources import iter_json_pages

PROVIDER = "azure"
AZURE_PRICES_URL = "https://prices.azure.com/api/retail/prices"
# The only api-version that also returns savingsPlan rates; filter values are case-sensitive.
API_VERSION = "2023-01-01-preview"
# Azure's GPU sizes are the N-series (NC, ND, NG, NV); an N-series size missing from the
# instance map is reported as unmapped, any other size is not an accelerator offer.
ACCELERATOR_SIZE_PREFIX = "Standard_N"
RESERVATION_TERMS = {"1 Year": PricingModel.RESERVED_1Y, "3 Years": PricingModel.RESERVED_3Y}


def azure_query_url(
    *, arm_sku_names: Iterable[str] | None = None, regions: Iterable[str] | None = None
) -> str:
    """The Retail Prices URL for VM rows of the given sizes (default: every N-series size).

    Examples
    --------
    >>> from urllib.parse import unquote
    >>> url = azure_query_url(arm_sku_names=["Standard_ND96isr_H100_v5"])
    >>> print(unquote(url.split("$filter=")[1]))
    serviceName eq 'Virtual Machines' and (armSkuName eq 'Standard_ND96isr_H100_v5')
    """
    clauses = ["serviceName eq 'Virtual Machines'"]
    names = sorted(arm_sku_names or ())
    if names:
        clauses.append("(" + " or ".join(f"armSkuName eq '{name}'" for name in names) + ")")
    else:
        clauses.append(f"contains(armSkuName, '{ACCELERATOR_SIZE_PREFIX}')")
    if regions:
        wanted = sorted(regions)
        clauses.append("(" + " or ".join(f"armRegionName eq '{r}'" for r in wanted) + ")")
    odata_filter = quote(" and ".join(clauses), safe="")
    return f"{AZURE_PRICES_URL}?api-version={API_VERSION}&$filter={odata_filter}"


class AzureRetailPricesFeed(FeedAdapter):
    """Azure VM accelerator prices: on-demand (Linux), spot and 1/3-year reservations.

    Parameters
    ----------
    location
        A Retail Prices URL (default: ``azure_query_url()``), a page file, a directory of
        page files (read in natural name order) or a list of page files.
    client, instance_map, limits
        As for every adapter (``FeedAdapter``).
    """

    provider = PROVIDER

    def __init__(self, *, location: Location | None = None, **adapter: Any) -> None:
        super().__init__(**adapter)
        self.location = location if location is not None else azure_query_url()

    def fetch(self) -> FeedResult:
        """Walk every page; raises a FeedError (and returns nothing) if any page is bad."""
        collector = ResultCollector(PROVIDER, self.limits)
        seen: set[tuple[Any, ...]] = set()
        pages = iter_json_pages(
            self.location, provider=PROVIDER, next_page=_next_page_link, client=self.client
        )
        for address, page in pages:
            for item in _items(page, address=address, limits=self.limits):
                # A price update during the $skip walk can repeat a row on the next page.
                key = tuple(item.get(k) for k in ("meterId", "skuId", "type", "reservationTerm"))
                if key in seen:
                    continue
                seen.add(key)
                self._add_item(item, source_url=address, collector=collector)
        return collector.result(source_version=None)

    def _add_item(self, item: dict[str, Any], *, source_url: str, collector: ResultCollector) -> None:
        arm_sku_name = str(item.get("armSkuName") or "")
        match = self.instance_map.lookup(PROVIDER, arm_sku_name)
        if item.get("serviceName") != "Virtual Machines" or (
            match is None and not arm_sku_name.startswith(ACCELERATOR_SIZE_PREFIX)
        ):
            return
        sku = f"{item.get('skuId')}:{item.get('meterId')}"
        record = f"{sku} {arm_sku_name} {item.get('armRegionName')}"
        check_currency(str(item.get("currencyCode")), limits=self.limits, provider=PROVIDER, record=record)
        decoy = _decoy(item)
        if decoy is not None:
            reason, detail = decoy
            collector.reject(sku, reason, f"{arm_sku_name}: {detail}")
            return
        if match is None:
            collector.reject(
                arm_sku_name,
                RejectionReason.UNMAPPED_ACCELERATOR,
                f"{arm_sku_name} ({item.get('productName')}) is not in instance_map.yaml",
            )
            return
        if item.get("unitOfMeasure") != "1 Hour":
            raise MalformedPayload(
                PROVIDER, record, f"unitOfMeasure {item.get('unitOfMeasure')!r} is not '1 Hour'"
            )
        retail_price = decimal_amount(item.get("retailPrice"), provider=PROVIDER, record=record)
        pricing_model = _pricing_model(item)
        if pricing_model is None:
            collector.reject(
                sku,
                RejectionReason.OTHER_OFFER,
                f"{arm_sku_name}: type {item.get('type')!r} {item.get('reservationTerm', '')}",
            )
            return
        hourly = retail_price
        if pricing_model in TERM_YEARS:
            hourly = spread_over_term(retail_price, TERM_YEARS[pricing_model])
        collector.add(
            ParsedPrice.hourly(
                PROVIDER, match, sku=sku, instance_type=arm_sku_name, region=str(item.get("armRegionName")),
                pricing_model=pricing_model, price=hourly, currency=str(item.get("currencyCode")),
                effective_date=iso_date(item.get("effectiveStartDate"), provider=PROVIDER, record=record),
                source_url=source_url,
            )
        )


def _next_page_link(page: Any, _address: str) -> str | None:
    link = page.get("NextPageLink") if isinstance(page, dict) else None
    return str(link) if link else None


def _items(page: Any, *, address: str, limits: PriceLimits) -> list[dict[str, Any]]:
    if not isinstance(page, dict) or not isinstance(page.get("Items"), list):
        raise MalformedPayload(PROVIDER, address, "page has no Items list")
    check_currency(str(page.get("BillingCurrency")), limits=limits, provider=PROVIDER, record=address)
    items = page["Items"]
    if not all(isinstance(item, dict) for item in items):
        raise MalformedPayload(PROVIDER, address, "an item is not an object")
    return items


def _decoy(item: dict[str, Any]) -> tuple[RejectionReason, str] | None:
    """Why a VM row is not a price we store, or None if it may be one."""
    product_name = str(item.get("productName", ""))
    meter_names = (str(item.get("meterName", "")), str(item.get("skuName", "")))
    if not product_name.startswith("Virtual Machines"):
        return RejectionReason.OTHER_OFFER, f"productName {product_name!r} (not a VM meter)"
    if "Dedicated Host" in product_name:
        return RejectionReason.DEDICATED_TENANCY, f"productName {product_name!r}"
    if item.get("type") == "DevTestConsumption":
        return RejectionReason.DEV_TEST, f"Dev/Test rate in {item.get('armRegionName')}"
    if any(name.endswith(" Low Priority") for name in meter_names):
        return RejectionReason.LOW_PRIORITY, f"{meter_names[0]} in {item.get('armRegionName')}"
    if "Windows" in product_name:
        return RejectionReason.LICENSED_OS, f"productName {product_name!r}"
    if item.get("isPrimaryMeterRegion") is False:
        return RejectionReason.OTHER_OFFER, "not the primary meter region"
    return None


def _pricing_model(item: dict[str, Any]) -> PricingModel | None:
    if item.get("type") == "Consumption":
        names = (str(item.get("meterName", "")), str(item.get("skuName", "")))
        return PricingModel.SPOT if any(n.endswith(" Spot") for n in names) else PricingModel.ON_DEMAND
    if item.get("type") == "Reservation":
        return RESERVATION_TERMS.get(str(item.get("reservationTerm")))
    return None
