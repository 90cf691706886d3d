"""Sites, racks, panels and feeds imported from recorded NetBox payloads with pynetbox."""
from __future__ import annotations

import pytest
import responses

from costmodel.sites import Feed
from costmodel.sites import rack_power_kw
from sites.models import NetBoxImport
from sites.models import PowerFeed
from sites.models import RackPosition
from sites.models import Room
from sites.models import Site
from sites.netbox import NetBoxPayloadError
from sites.netbox import netbox_api
from sites.netbox import netbox_import
from sites.netbox import netbox_import_run
from tests.sites.recorded_netbox import NETBOX_URL
from tests.sites.recorded_netbox import TOKEN
from tests.sites.recorded_netbox import recorded
from tests.sites.recorded_netbox import serve


def _import(pages):
    with responses.RequestsMock() as mock:
        serve(mock, pages)
        return netbox_import(netbox_api(NETBOX_URL, TOKEN))


def _counts():
    return (Site.objects.count(), Room.objects.count(), RackPosition.objects.count(),
            PowerFeed.objects.count())


@pytest.mark.django_db
def test_an_import_creates_the_site_its_racks_panels_and_feeds():
    changes = _import(recorded())
    site = Site.objects.get()
    assert (site.name, site.slug, site.netbox_id) == ("Frankfurt DC1", "fra-dc1", 1)
    assert _counts() == (1, 1, 2, 4)
    assert changes.created["power-feeds"] == ["R01-A", "R01-B", "R02-A", "R02-B"]
    feed = PowerFeed.objects.get(name="R01-A")
    # NetBox says 80 %; kept as the share 0.8. 208 V x 30 A x sqrt(3) x 0.8 = 8.65 kW, as NetBox's 8,646 W.
    assert (feed.phase, float(feed.voltage), float(feed.amperage), float(feed.max_utilisation)) == (
        "three-phase", 208.0, 30.0, 0.8)
    assert round(feed.available_kw, 2) == 8.65
    assert feed.rack.name == "R01" and feed.rack.room.name == "Hall 1" and feed.panel.name == "PP-A"
    # The rack's A/B pair counts once.
    r01 = RackPosition.objects.get(name="R01")
    assert round(rack_power_kw([Feed(f.name, f.available_kw, f.type) for f in r01.feeds.all()]), 2) == 8.65


@pytest.mark.django_db
def test_a_second_import_with_one_feed_changed_updates_only_that_feed():
    _import(recorded())
    before = {f.name: (f.pk, f.amperage) for f in PowerFeed.objects.all()}
    pages = recorded()
    pages["power-feeds"]["results"][2]["amperage"] = 60  # R02-A upgraded to a 60 A breaker
    changes = _import(pages)
    assert _counts() == (1, 1, 2, 4)  # nothing duplicated
    assert changes.created == {}
    assert changes.updated == {"power-feeds": {"R02-A": {"amperage": [30.0, 60.0]}}}
    assert changes.unchanged == {"sites": 1, "locations": 1, "racks": 2, "power-panels": 2, "power-feeds": 3}
    after = {f.name: (f.pk, f.amperage) for f in PowerFeed.objects.all()}
    assert after["R02-A"][1] == 60 and after["R02-A"][0] == before["R02-A"][0]
    del after["R02-A"], before["R02-A"]
    assert after == before


@pytest.mark.django_db
@pytest.mark.parametrize(("kind", "index", "change", "where", "reason"), [
    ("power-feeds", 1, {"voltage": 0}, "power-feeds[1].voltage", "must be above 0 V"),
    ("power-feeds", 0, {"amperage": -30}, "power-feeds[0].amperage", "must be above 0 A"),
    ("power-feeds", 3, {"max_utilization": 120}, "power-feeds[3].max_utilization", "at most 1"),
    ("power-feeds", 1, {"voltage": 999999.9}, "power-feeds[1].voltage",
     "999,999.9 V is more than NetBox stores (32,767 V)"),
    ("power-feeds", 2, {"amperage": 99999.9}, "power-feeds[2].amperage",
     "99,999.9 A is more than NetBox stores (32,767 A)"),
    ("racks", 1, {"u_height": None}, "racks[1].u_height", "must be a number"),
    ("power-feeds", 2, {"phase": {"value": "two-phase", "label": "?"}}, "power-feeds[2].phase", "one of"),
    # Refused by the rows' own rules, not a bare "(ValidationError)" or "(DataError)" (issue 44).
    ("racks", 1, {"u_height": 1_000_000}, "racks R02.u_height", "less than or equal to 32767"),
    ("racks", 0, {"u_height": 0}, "racks R01", "Constraint “rack_units_positive” is violated"),
    ("power-feeds", 0, {"name": "R" * 5_000}, "power-feeds " + "R" * 100 + ".name",
     "at most 100 characters (it has 5000)"),
    ("sites", 0, {"name": "Frank\x00furt"}, "sites[0].name", "holds the control character NUL (U+0000)"),
])
def test_a_bad_payload_is_refused_naming_the_field_and_writes_nothing(kind, index, change, where, reason):
    pages = recorded()
    pages[kind]["results"][index].update(change)
    with pytest.raises(NetBoxPayloadError) as refused:
        _import(pages)
    assert refused.value.where == where and reason in str(refused.value)
    assert _counts() == (0, 0, 0, 0)


@pytest.mark.django_db
def test_a_payload_missing_a_field_is_refused_and_writes_nothing():
    pages = recorded()
    del pages["power-feeds"]["results"][0]["voltage"]
    with pytest.raises(NetBoxPayloadError, match=r"power-feeds\[0\].voltage: is missing from NetBox"):
        _import(pages)
    assert _counts() == (0, 0, 0, 0)


@pytest.mark.django_db
def test_a_feed_to_a_rack_of_another_site_is_refused_and_nothing_is_written():
    pages = recorded()
    other = {**pages["sites"]["results"][0], "id": 2, "name": "Paris DC2", "slug": "par-dc2"}
    pages["sites"]["results"].append(other)
    rack = pages["racks"]["results"][1]
    rack["site"] = {"id": 2, "name": "Paris DC2", "slug": "par-dc2"}
    rack["location"] = None
    with pytest.raises(NetBoxPayloadError) as refused:
        _import(pages)
    assert refused.value.where == "power-feeds R02-A.rack"
    assert "rack R02 is at site Paris DC2; the feed's panel PP-A is at Frankfurt DC1" in str(refused.value)
    assert _counts() == (0, 0, 0, 0)


@pytest.mark.django_db
def test_the_import_job_says_what_changed_and_a_failed_one_why():
    job = NetBoxImport.objects.create()
    with responses.RequestsMock() as mock:
        seen = serve(mock, recorded())
        netbox_import_run(import_id=job.pk, api=netbox_api(NETBOX_URL, TOKEN))
    job.refresh_from_db()
    assert job.status == "done" and job.progress_percent == 100 and job.steps_done == 5
    assert job.changes["created"]["sites"] == ["Frankfurt DC1"]
    assert all(r.headers["Authorization"] == f"Token {TOKEN}" for r in seen)

    job = NetBoxImport.objects.create()
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:  # it stops at the first 403
        serve(mock, recorded())
        netbox_import_run(import_id=job.pk, api=netbox_api(NETBOX_URL, "wrong-token"))
    job.refresh_from_db()
    assert job.status == "failed" and job.error.startswith("Nothing was imported: ")
    assert "403" in job.error


@pytest.mark.django_db
def test_a_request_naming_too_many_or_too_long_sites_is_refused(admin_client):
    many = admin_client.post("/api/v1/netbox-imports/", {"sites": [f"s{i}" for i in range(100_000)]},
                             content_type="application/json")
    assert many.status_code == 400
    assert many.json()["sites"] == ["names 100,000 sites; at most 200 at a time (an empty list imports "
                                    "every site)"]
    long = admin_client.post("/api/v1/netbox-imports/", {"sites": ["x" * 5000]},
                             content_type="application/json")
    assert long.status_code == 400
    assert "has 5,000 characters; a NetBox slug has at most 100" in long.json()["sites"][0]
    assert not NetBoxImport.objects.exists()
