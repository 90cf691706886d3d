"""A quote uploaded by a team member is that team's confidential price: its members' evaluations
use it, no one else sees it. Public catalog prices are everyone's.

The p5.48xlarge on-demand offering's public price on 2026-07-01 is seed-003's 8 x $6.88 =
$55.04 an hour (as of 2026-06-18). Alpha has a quote of $40.00 as of 2026-01-01: older, yet for
alpha it is the price in force, because a team's own quote comes before public prices.
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from catalog.models import PricePoint
from catalog.selectors import price_at
from catalog.services import quote_file_import
from tests.teams.conftest import client_of
from tests.teams.conftest import p5_on_demand
from tests.teams.conftest import scenario_body
from tests.teams.members import team

ON = "2026-07-01"


def quote_csv(amount: str = "40") -> bytes:
    p5 = p5_on_demand()
    return (b"kind,provider,instance_type,region,pricing_model,amount,currency,as_of,source\n"
            + f"offering,aws,p5.48xlarge,{p5.region},on_demand,{amount},USD,2026-01-01,"
              "Reseller quote Q-17\n".encode())


@pytest.fixture
def alpha_quote(catalog) -> PricePoint:
    quote_file_import(file_name="q.csv", content=quote_csv(), team=team("alpha"))
    return PricePoint.objects.get(team__slug="alpha")


def test_the_team_quote_comes_before_a_newer_public_price_for_that_team_only(alpha_quote):
    on = dt.date.fromisoformat(ON)

    assert price_at(p5_on_demand(), on=on, team_ids=[alpha_quote.team_id]).amount == Decimal("40")
    assert price_at(p5_on_demand(), on=on, team_ids=[team("beta").pk]).amount == Decimal("55.04")
    assert price_at(p5_on_demand(), on=on).amount == Decimal("55.04")


def test_evaluations_use_their_own_teams_quote(alpha_quote, analyst, outsider):
    body = scenario_body(prices_as_of=ON, rent_options=[{"offering": p5_on_demand().pk}])

    mine = client_of(analyst).post("/api/v1/evaluate/", body, format="json").json()
    theirs = client_of(outsider).post("/api/v1/evaluate/", body, format="json").json()

    assert [p["amount"] for p in mine["prices"]] == ["40.0000"]
    assert [p["amount"] for p in theirs["prices"]] == ["55.0400"]


def test_a_saved_scenario_uses_its_teams_quote(alpha_quote, analyst, outsider):
    created = client_of(analyst).post("/api/v1/scenarios/", scenario_body(
        prices_as_of=ON, rent_options=[{"offering": p5_on_demand().pk}]), format="json").json()

    evaluated = client_of(analyst).post(f"/api/v1/scenarios/{created['id']}/evaluate/").json()

    (price,) = evaluated["prices"]
    assert (price["price_point_id"], price["amount"]) == (alpha_quote.pk, "40.0000")


def test_sizing_prices_an_offering_with_the_users_teams_quote(alpha_quote, analyst, outsider):
    spec = {"accelerator": "h100-sxm-80gb", "mode": "inference", "model": "llama-3.1-8b",
            "tokens_per_s": 1000, "offering": p5_on_demand().pk, "prices_as_of": ON}

    mine = client_of(analyst).post("/api/v1/sizing/", spec, format="json").json()["price"]
    theirs = client_of(outsider).post("/api/v1/sizing/", spec, format="json").json()["price"]

    # Per accelerator-hour: $40 / 8 = $5.00 for alpha; $55.04 / 8 = $6.88 for beta.
    assert (mine["usd_per_accelerator_hour"], theirs["usd_per_accelerator_hour"]) == (5.0, 6.88)


def test_another_teams_quote_is_not_listed_or_found(alpha_quote, analyst, outsider, client):
    url = f"/api/v1/price-points/{alpha_quote.pk}/"
    mine = client_of(analyst).get("/api/v1/price-points/", {"team": "alpha"}).json()

    assert [row["id"] for row in mine["results"]] == [alpha_quote.pk]
    assert mine["results"][0]["team"] == "alpha"
    assert client_of(outsider).get(url).status_code == 404
    assert client_of(outsider).get("/api/v1/price-points/", {"team": "alpha"}).json()["count"] == 0
    assert client.get(url).status_code == 404  # signed out: public prices only
    assert client_of(analyst).get(url).status_code == 200


def test_offering_prices_show_the_users_teams_quote(alpha_quote, analyst, outsider):
    p5 = p5_on_demand()

    def price_seen_by(user) -> tuple[str, str, int]:
        client = client_of(user)
        listed = client.get("/api/v1/offerings/", {
            "instance_type": "p5.48xlarge", "pricing_model": "on_demand", "price_at": ON,
        }).json()["results"][0]["price"]
        at = client.get(f"/api/v1/offerings/{p5.pk}/price-at/", {"on": ON}).json()
        history = client.get(f"/api/v1/offerings/{p5.pk}/history/").json()
        return listed["amount"], at["amount"], sum(row["id"] == alpha_quote.pk for row in history)

    assert price_seen_by(analyst) == ("40.0000", "40.0000", 1)
    assert price_seen_by(outsider) == ("55.0400", "55.0400", 0)


def test_an_analyst_imports_a_quote_for_their_team_in_the_admin(
    client, analyst, catalog, django_capture_on_commit_callbacks
):
    client.force_login(analyst)
    page = client.get(reverse("admin:catalog_pricepoint_import"))

    with django_capture_on_commit_callbacks(execute=True):  # the import task runs inline here
        response = client.post(reverse("admin:catalog_pricepoint_import"), {
            "team": team("alpha").pk, "file": SimpleUploadedFile("q.csv", quote_csv())})

    assert list(page.context["form"].fields["team"].queryset) == [team("alpha")]
    assert response.status_code == 302
    assert PricePoint.objects.get(source__key="Reseller quote Q-17").team == team("alpha")


def test_a_team_must_be_chosen_unless_staff_import_public_prices(
    client, analyst, admin_client, catalog, django_capture_on_commit_callbacks
):
    client.force_login(analyst)
    refused = client.post(reverse("admin:catalog_pricepoint_import"), {
        "file": SimpleUploadedFile("q.csv", quote_csv())})
    with django_capture_on_commit_callbacks(execute=True):
        public = admin_client.post(reverse("admin:catalog_pricepoint_import"), {
            "file": SimpleUploadedFile("q.csv", quote_csv("41"))})

    assert refused.status_code == 200
    assert refused.context["form"].errors["team"]
    assert public.status_code == 302
    assert PricePoint.objects.get(source__key="Reseller quote Q-17").team is None


def test_a_viewer_cannot_import_quotes(client, viewer, catalog):
    client.force_login(viewer)

    response = client.post(reverse("admin:catalog_pricepoint_import"), {
        "team": team("alpha").pk, "file": SimpleUploadedFile("q.csv", quote_csv())})

    assert response.status_code == 302
    assert not PricePoint.objects.filter(source__key="Reseller quote Q-17").exists()


def test_the_admin_hides_another_teams_quote(client, alpha_quote, outsider, analyst):
    client.force_login(outsider)
    listing = client.get(reverse("admin:catalog_pricepoint_changelist"),
                         {"team__id__exact": alpha_quote.team_id})
    page = client.get(reverse("admin:catalog_pricepoint_change", args=[alpha_quote.pk]))
    offering = client.get(reverse("admin:catalog_cloudoffering_change", args=[alpha_quote.offering_id]))

    assert listing.context["cl"].result_count == 0
    assert page.status_code == 404
    assert "Reseller quote Q-17" not in offering.content.decode()
    client.force_login(analyst)
    assert "Reseller quote Q-17" in client.get(
        reverse("admin:catalog_cloudoffering_change", args=[alpha_quote.offering_id])).content.decode()
