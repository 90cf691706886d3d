"""Every change to a scenario or a price records who, when and what; the API lists a scenario's
history and the admin compares two points of it, in inputs and in the result.

The scenario is the module conftest's: at utilisation 1 buying breaks even in month 12 and saves
36 x 36,500 - (400,000 + 36 x 744.60) = 887,194.40 USD over 36 months. At utilisation 0.5 energy
is (3.06 + 7.14 x 0.5) kW x 730 h x $0.10 = $483.99, and the on-demand instance is still billed for
every hour it is held (issue 23), $36,500 a month: breakeven at 400,000 / (36,500 - 483.99) = 11.1
-> month 12, saving 1,314,000 - (400,000 + 36 x 483.99) = 896,576.36 USD.
"""
from __future__ import annotations

from decimal import Decimal

from django.utils import timezone
from numpy.testing import assert_allclose

from tco.models import Scenario
from tco.services.scenarios import scenario_approve
from tests.teams.conftest import client_of

S = "/api/v1/scenarios/{pk}/"


def halve_utilisation(client, scenario):
    return client.patch(S.format(pk=scenario.pk), {"utilisation": "0.5"}, format="json",
                        headers={"If-Match": '"1"'})


def test_the_history_says_who_changed_what_and_when(analyst, viewer, alpha_scenario):
    halve_utilisation(client_of(analyst), alpha_scenario)

    history = client_of(viewer).get(S.format(pk=alpha_scenario.pk) + "history/").json()

    latest, created = history["results"]  # served in pages since issue 25
    assert (latest["history_user"], latest["history_type"], latest["revision"]) == ("ana", "~", 2)
    assert latest["changes"] == [{"field": "utilisation", "old": "1.0000", "new": "0.5000"}]
    assert (created["history_type"], created["revision"], created["changes"]) == ("+", 1, [])
    assert latest["history_date"] > created["history_date"]


def test_a_changed_rent_option_shows_in_the_history(analyst, alpha_scenario):
    option = {"offering": alpha_scenario.rent_options.get().offering_id,
              "price_usd_per_instance_hour": "25"}
    client_of(analyst).patch(S.format(pk=alpha_scenario.pk), {"rent_options": [option]}, format="json",
                             headers={"If-Match": '"1"'})

    latest = client_of(analyst).get(S.format(pk=alpha_scenario.pk) + "history/").json()["results"][0]

    assert {"field": "rent_options[0].price_usd_per_instance_hour", "old": "50.0000",
            "new": "25.0000"} in latest["changes"]


def test_the_admin_compares_two_versions_in_inputs_and_result(analyst, alpha_scenario, client):
    halve_utilisation(client_of(analyst), alpha_scenario)
    client.force_login(analyst)  # a team member who is not staff

    page = client.get(f"/admin/tco/scenario/{alpha_scenario.pk}/compare/")

    assert page.status_code == 200
    diff = page.context["diff"]
    assert [(c.field, c.old, c.new) for c in diff.changes] == [("utilisation", "1.0000", "0.5000")]
    (move,) = diff.moves
    assert (move.rent_option, move.old["breakeven_month"], move.new["breakeven_month"]) == (
        "p5 on demand", 12, 12)
    assert (move.old["winner"], move.new["winner"]) == ("buy", "buy")
    assert_allclose([move.old["npv_saving_usd"], move.new["npv_saving_usd"]], [887_194.40, 896_576.36])
    assert "$887,194.40 &rarr;" in page.content.decode()
    # Two drafts at the same price date: the move comes from the edits, and the page says so.
    assert diff.prices["old"] == diff.prices["new"]
    assert f"Both points are evaluated at {diff.prices['old']}, so the move comes from the edits." in (
        page.content.decode().replace("&#x27;", "'"))
    # The input by its label and as a share, not its field name and stored digits.
    assert "<td>Utilisation</td>\n    <td>100.0%</td><td>50.0%</td>" in page.content.decode()


def test_the_comparison_spans_the_versions_of_an_approved_scenario(analyst, approver, alpha_scenario,
                                                                   client):
    scenario_approve(scenario=alpha_scenario, approved_by=approver)
    created = client_of(analyst).patch(S.format(pk=alpha_scenario.pk), {"utilisation": "0.5"},
                                       format="json", headers={"If-Match": '"2"'}).json()
    client.force_login(analyst)

    page = client.get(f"/admin/tco/scenario/{created['id']}/compare/")

    assert {record.id for record in page.context["records"]} == {alpha_scenario.pk, created["id"]}
    fields = {c.field: (c.old, c.new) for c in page.context["diff"].changes}
    # The latest point (version 2, created) against the one before (version 1, approved).
    assert fields["utilisation"] == ("1.0000", "0.5000")
    assert fields["status"] == ("approved", "draft")
    assert fields["version"] == ("1", "2")
    # Times to the minute and fields by their names: "Approved at", not approved_at.
    approved_at = Scenario.objects.get(pk=alpha_scenario.pk).approved_at
    assert fields["approved_at"] == (f"{timezone.localtime(approved_at):%Y-%m-%d %H:%M %Z}", None)
    assert "<td>Approved at</td>" in page.content.decode()


def test_an_imported_quote_records_who_imported_it(analyst, client, catalog,
                                                   django_capture_on_commit_callbacks):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from catalog.models import PricePoint

    client.force_login(analyst)
    with django_capture_on_commit_callbacks(execute=True):  # the import runs as a job
        client.post("/admin/catalog/pricepoint/import/", {"team": analyst.memberships.get().team_id, "file":
                    SimpleUploadedFile("q.csv", b"kind,slug,amount,currency,as_of,source\n"
                                                b"system,dgx-h100,420000,USD,2026-10-01,ACME\n")})

    price = PricePoint.objects.get(source__key="ACME")
    (record,) = price.history.all()
    assert (record.history_user, record.history_type, record.amount) == (analyst, "+", Decimal("420000"))


def test_a_price_refresh_records_the_prices_it_wrote_in_the_history(catalog, tmp_path):
    from catalog.models import PricePoint
    from tests.catalog.test_refresh import lambda_payload
    from tests.catalog.test_refresh import refresh

    job = refresh("lambda", lambda_payload(tmp_path / "lambda.json", h100_cents=2752))

    records = PricePoint.history.filter(history_change_reason=f"price refresh job {job.pk}")
    assert job.prices_new + job.prices_changed > 0
    assert sorted(r.id for r in records) == sorted(job.written_prices.values_list("pk", flat=True))
    assert {r.history_user for r in records} == {None}
