"""A team's quote may bring catalog rows of its own: the source it names and an offering the
catalog lacked (a negotiated instance in a region). Those rows are the team's: its members see
and use them; anyone else, signed in or not, finds no such row in the API or the admin.

Beta uploads one row: its negotiated "h100-nda-8x" in "secret-west-1", 8 H100s at $30.00 an
instance-hour, citing "Beta NDA deal".
"""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from catalog.models import AcceleratorPowerCap
from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.models import Source
from catalog.selectors import source_citations
from catalog.services import quote_file_import
from teams.models import Role
from tests.teams.conftest import client_of
from tests.teams.conftest import scenario_body
from tests.teams.members import member
from tests.teams.members import team

NDA_QUOTE = (b"kind,provider,instance_type,region,pricing_model,accelerator,accelerators_per_instance,"
             b"amount,currency,as_of,source\n"
             b"offering,aws,h100-nda-8x,secret-west-1,on_demand,h100-sxm-80gb,8,30,USD,2026-01-01,"
             b"Beta NDA deal\n")


@pytest.fixture
def beta_quote(catalog) -> PricePoint:
    quote_file_import(file_name="nda.csv", content=NDA_QUOTE, team=team("beta"))
    return PricePoint.objects.select_related("offering", "source").get(team__slug="beta")


def test_the_quotes_new_source_and_offering_belong_to_the_team(beta_quote):
    assert (beta_quote.source.team, beta_quote.offering.team) == (team("beta"), team("beta"))


def test_the_api_shows_a_teams_rows_to_its_members_only(beta_quote, outsider, analyst, client):
    source, offering = beta_quote.source, beta_quote.offering

    def seen_by(api) -> tuple[bool, bool, int, int]:
        sources = api.get("/api/v1/sources/", {"kind": "quote"}).json()["results"]
        offerings = api.get("/api/v1/offerings/", {"instance_type": "h100-nda-8x"}).json()["results"]
        return (any(row["key"] == "Beta NDA deal" for row in sources),
                any(row["region"] == "secret-west-1" for row in offerings),
                api.get(f"/api/v1/sources/{source.pk}/").status_code,
                api.get(f"/api/v1/offerings/{offering.pk}/").status_code)

    assert seen_by(client_of(outsider)) == (True, True, 200, 200)  # beta's analyst
    assert seen_by(client_of(analyst)) == (False, False, 404, 404)  # alpha's analyst
    assert seen_by(client) == (False, False, 404, 404)  # signed out


def test_another_teams_offering_cannot_be_rented_in_a_scenario(beta_quote, analyst, outsider):
    body = scenario_body(rent_options=[{"offering": beta_quote.offering_id,
                                        "price_usd_per_instance_hour": "30"}])
    unknown = scenario_body(rent_options=[{"offering": 10**9, "price_usd_per_instance_hour": "30"}])

    refused = client_of(analyst).post("/api/v1/evaluate/", body, format="json")
    not_there = client_of(analyst).post("/api/v1/evaluate/", unknown, format="json")
    accepted = client_of(outsider).post("/api/v1/evaluate/", body, format="json")

    assert refused.status_code == 400
    # Refused as an id that does not exist, so the answer says nothing about beta's rows.
    assert (refused.json()["rent_options"]["0"]["offering"][0].replace(str(beta_quote.offering_id), "N")
            == not_there.json()["rent_options"]["0"]["offering"][0].replace(str(10**9), "N"))
    assert accepted.status_code == 200


def test_the_admin_shows_a_teams_rows_to_its_members_only(client, beta_quote, analyst, outsider):
    source, offering = beta_quote.source, beta_quote.offering
    pages = {
        "sources": reverse("admin:catalog_source_changelist"),
        "offerings": reverse("admin:catalog_cloudoffering_changelist"),
        "source": reverse("admin:catalog_source_change", args=[source.pk]),
        "offering": reverse("admin:catalog_cloudoffering_change", args=[offering.pk]),
    }

    client.force_login(analyst)  # alpha
    hidden = {name: client.get(url) for name, url in pages.items()}
    client.force_login(outsider)  # beta
    shown = {name: client.get(url) for name, url in pages.items()}

    assert [hidden[name].status_code for name in pages] == [200, 200, 404, 404]
    assert "Beta NDA deal" not in hidden["sources"].content.decode()
    assert "secret-west-1" not in hidden["offerings"].content.decode()
    assert [shown[name].status_code for name in pages] == [200, 200, 200, 200]
    assert "Beta NDA deal" in shown["sources"].content.decode()
    assert "secret-west-1" in shown["offerings"].content.decode()


def test_price_point_filters_name_only_the_users_sources_and_teams(client, beta_quote, analyst):
    client.force_login(analyst)  # alpha: sees public prices, none of beta's

    page = client.get(reverse("admin:catalog_pricepoint_changelist")).content.decode()

    assert "Beta NDA deal" not in page
    assert ">Beta<" not in page
    assert "seed-003" in page  # the public sources of public prices are still offered


def test_each_team_names_its_sources_without_meeting_another_teams(beta_quote, catalog):
    same_name = NDA_QUOTE.replace(b"30,USD", b"31,USD")

    quote_file_import(file_name="alpha.csv", content=same_name, team=team("alpha"))

    alpha_price = PricePoint.objects.get(team__slug="alpha")
    assert Source.objects.filter(key="Beta NDA deal").count() == 2
    assert (alpha_price.source.team, alpha_price.offering.team) == (team("alpha"), team("alpha"))
    assert alpha_price.offering_id != beta_quote.offering_id


def test_public_prices_never_land_on_a_teams_offering(beta_quote, catalog):
    quote_file_import(file_name="public.csv", content=NDA_QUOTE, team=None)

    public = PricePoint.objects.get(team__isnull=True, offering__instance_type="h100-nda-8x")
    assert public.offering.team is None
    assert public.source.team is None
    assert CloudOffering.objects.filter(instance_type="h100-nda-8x").count() == 2


def test_a_scenario_of_another_team_cannot_keep_the_teams_offering(beta_quote, alpha_scenario):
    option = alpha_scenario.rent_options.get()
    option.offering = beta_quote.offering

    with pytest.raises(ValidationError) as refused:
        option.full_clean()

    assert refused.value.message_dict == {"offering": [f"no offering {beta_quote.offering_id} in the "
                                                       "scenario's team"]}


def test_a_report_cites_only_its_own_teams_sources(beta_quote):
    Source.objects.filter(pk=beta_quote.source_id).update(title="Beta's NDA with AWS, confidential")

    def cited_by(slug: str) -> list[str]:
        keys = [beta_quote.source.key, "seed-003"]
        return [c.title for c in source_citations(keys, team_id=team(slug).pk)]

    assert "Beta's NDA with AWS, confidential" in cited_by("beta")
    assert "Beta's NDA with AWS, confidential" not in cited_by("alpha")
    assert len(cited_by("alpha")) == len(cited_by("beta")) - 1 == 1  # seed-003, public


def test_staff_in_a_team_cannot_cite_its_source_on_a_public_figure(client, beta_quote):
    client.force_login(member("stan", of="beta", role=Role.ANALYST, is_staff=True))
    cap = AcceleratorPowerCap.objects.first()
    url = reverse("admin:catalog_acceleratorpowercap_change", args=[cap.pk])
    form = client.get(url).context["adminform"].form

    response = client.post(url, {**{name: value for name, value in form.initial.items() if value is not None},
                                 "accelerator": cap.accelerator_id, "source": beta_quote.source_id})

    assert response.status_code == 200
    assert "source" in response.context["adminform"].form.errors
    cap.refresh_from_db()
    assert cap.source.team is None
