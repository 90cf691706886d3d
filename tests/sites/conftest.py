"""A site imported from the recorded NetBox payloads: Frankfurt DC1, two racks, each on one A/B pair
of 208 V / 30 A three-phase feeds at 80 % (8.65 kW a side)."""
from __future__ import annotations

from decimal import Decimal

import pytest
import responses


@pytest.fixture
def imported_site(catalog):
    from catalog.models import CoolingTechnology
    from sites.models import Site
    from sites.models import SiteCooling
    from sites.netbox import netbox_api
    from sites.netbox import netbox_import
    from tests.sites.recorded_netbox import NETBOX_URL
    from tests.sites.recorded_netbox import TOKEN
    from tests.sites.recorded_netbox import recorded
    from tests.sites.recorded_netbox import serve

    with responses.RequestsMock() as mock:
        serve(mock, recorded())
        netbox_import(netbox_api(NETBOX_URL, TOKEN))
    site = Site.objects.get(slug="fra-dc1")
    Site.objects.filter(pk=site.pk).update(electricity_usd_per_kwh=Decimal("0.21"), pue=Decimal("1.35"),
                                           colocation_usd_per_kw_month=Decimal("180"))
    SiteCooling.objects.create(site=site, technology=CoolingTechnology.objects.get(slug="air-in-row"),
                               capacity_kw=Decimal("12"))
    site.refresh_from_db()
    return site
