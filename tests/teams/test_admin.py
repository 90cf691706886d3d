"""The admin shows a member only their teams' rows, by role; the catalog and price schedules
are written by staff only."""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tco.models import Scenario
from tco.models import ScenarioStatus
from tco.services.scenarios import scenario_approve
from teams.models import Role
from tests.teams.members import member


def change_url(scenario: Scenario) -> str:
    return reverse("admin:tco_scenario_change", args=[scenario.pk])


def change_form(scenario: Scenario, **changes) -> dict:
    """What the scenario's change page posts, with ``changes``."""
    fields = {f.name: getattr(scenario, f.attname) for f in Scenario._meta.concrete_fields
              if f.editable and f.name not in ("id", "owner", "team", "status", "approved_by",
                                               "approved_at", "created_at", "updated_at")}
    option = scenario.rent_options.get()
    prefix = "rent_options"
    return {**{k: "" if v is None else v for k, v in fields.items()},
            "edited_revision": scenario.revision, **changes,
            f"{prefix}-TOTAL_FORMS": 1, f"{prefix}-INITIAL_FORMS": 1,
            "report_exports-TOTAL_FORMS": 0, "report_exports-INITIAL_FORMS": 0,
            "api_options-TOTAL_FORMS": 0, "api_options-INITIAL_FORMS": 0,
            f"{prefix}-0-id": option.pk, f"{prefix}-0-scenario": scenario.pk,
            f"{prefix}-0-offering": option.offering_id, f"{prefix}-0-name": option.name,
            f"{prefix}-0-price_usd_per_instance_hour": option.price_usd_per_instance_hour,
            **{f"{prefix}-0-{name}": "" if getattr(option, name) is None else getattr(option, name)
               for name in (
                "upfront_usd", "spot_interruption_overhead", "egress_tb_per_month",
                "egress_usd_per_gb", "storage_tb", "storage_usd_per_gb_month", "price_change_per_year",
                "spot_interruptions_per_hour")}}


# --- signing in and what each user sees -------------------------------------------------------


def test_a_team_member_who_is_not_staff_signs_in_to_the_admin(client, analyst):
    response = client.post(reverse("admin:login"), {"username": "ana", "password": "pw",
                                                    "next": reverse("admin:index")})

    assert response.status_code == 302
    assert client.get(reverse("admin:index")).status_code == 200


def test_a_user_in_no_team_who_is_not_staff_cannot_sign_in(client, db):
    get_user_model().objects.create_user("loner", password="pw")

    response = client.post(reverse("admin:login"), {"username": "loner", "password": "pw"})

    assert response.status_code == 200
    assert response.context["form"].errors


def test_the_scenario_list_shows_only_the_users_teams(client, analyst, alpha_scenario, beta_scenario):
    client.force_login(analyst)

    listing = client.get(reverse("admin:tco_scenario_changelist"))

    assert listing.context["cl"].result_count == 1
    assert list(listing.context["cl"].result_list) == [alpha_scenario]


def test_a_superuser_sees_every_teams_scenarios(admin_client, alpha_scenario, beta_scenario):
    listing = admin_client.get(reverse("admin:tco_scenario_changelist"))

    assert listing.context["cl"].result_count == 2


@pytest.mark.parametrize("page", ["change", "history", "delete", "compare", "clone"])
def test_another_teams_scenario_pages_are_not_found(client, outsider, alpha_scenario, page):
    client.force_login(outsider)

    response = client.get(reverse(f"admin:tco_scenario_{page}", args=[alpha_scenario.pk]))

    assert response.status_code == 404


@pytest.mark.parametrize("admin_name", ["tco_sweeprun", "reports_reportexport", "tco_pricealert"])
def test_another_teams_runs_exports_and_alerts_are_not_listed_or_found(
        client, outsider, alpha_run, alpha_export, alpha_alert, admin_name):
    row = {"tco_sweeprun": alpha_run, "reports_reportexport": alpha_export,
           "tco_pricealert": alpha_alert}[admin_name]
    client.force_login(outsider)

    listing = client.get(reverse(f"admin:{admin_name}_changelist"))
    page = client.get(reverse(f"admin:{admin_name}_change", args=[row.pk]))

    assert listing.context["cl"].result_count == 0
    assert page.status_code == 404


def test_another_teams_run_cannot_be_watched_or_cancelled_in_the_admin(client, outsider, alpha_run):
    client.force_login(outsider)

    assert client.get(reverse("admin:tco_sweeprun_progress", args=[alpha_run.pk])).status_code == 404
    assert client.post(reverse("admin:tco_sweeprun_cancel", args=[alpha_run.pk])).status_code == 404
    assert client.get(reverse("admin:tco_sweeprun_start", args=[alpha_run.scenario_id, "sweep"])
                      ).status_code == 404


# --- roles ------------------------------------------------------------------------------------


def test_a_viewer_sees_a_scenario_read_only_and_cannot_save_it(client, viewer, alpha_scenario):
    client.force_login(viewer)

    page = client.get(change_url(alpha_scenario))
    saved = client.post(change_url(alpha_scenario), change_form(alpha_scenario, utilisation="0.5"))

    assert page.status_code == 200
    assert page.context["has_change_permission"] is False
    assert saved.status_code == 403
    assert Scenario.objects.get(pk=alpha_scenario.pk).utilisation == Decimal("1")


def test_an_analyst_saves_a_scenario_of_their_team(client, analyst, alpha_scenario):
    client.force_login(analyst)

    response = client.post(change_url(alpha_scenario), change_form(alpha_scenario, utilisation="0.5"))

    assert response.status_code == 302, response.context["adminform"].form.errors
    assert Scenario.objects.get(pk=alpha_scenario.pk).revision == 2


def test_a_stale_save_in_the_admin_is_a_form_error(client, analyst, alpha_scenario):
    client.force_login(analyst)
    opened = change_form(alpha_scenario, utilisation="0.9")  # the page as opened at revision 1
    client.post(change_url(alpha_scenario), change_form(alpha_scenario, utilisation="0.5"))

    response = client.post(change_url(alpha_scenario), opened)

    assert response.status_code == 200
    assert "revision 1; it is now at revision 2" in str(response.context["adminform"].form.non_field_errors())
    assert Scenario.objects.get(pk=alpha_scenario.pk).utilisation == Decimal("0.5")


def test_saving_an_approved_scenario_in_the_admin_makes_its_next_version(client, analyst, approver,
                                                                         alpha_scenario):
    scenario_approve(scenario=alpha_scenario, approved_by=approver)
    client.force_login(analyst)

    response = client.post(change_url(alpha_scenario), change_form(alpha_scenario, utilisation="0.5"))

    new = Scenario.objects.get(previous_version=alpha_scenario)
    assert response.status_code == 302
    assert response["Location"] == change_url(new)
    assert (new.version, new.status, new.utilisation) == (2, ScenarioStatus.DRAFT, Decimal("0.5"))
    assert new.rent_options.get().price_usd_per_instance_hour == Decimal("50")
    frozen = Scenario.objects.get(pk=alpha_scenario.pk)
    assert (frozen.status, frozen.utilisation, frozen.revision) == (
        ScenarioStatus.APPROVED, Decimal("1"), alpha_scenario.revision)
    assert "version 2" in [str(m) for m in response.wsgi_request._messages][0]


def test_only_an_approver_approves_in_the_admin(client, analyst, approver, alpha_scenario):
    url = reverse("admin:tco_scenario_approve", args=[alpha_scenario.pk])
    # Issue 23: the approver ticks each warning the page shows (every box, here).
    confirmed = {"confirm": "yes", f"ack-{alpha_scenario.pk}": [str(i) for i in range(50)]}
    client.force_login(analyst)
    refused = client.post(url, confirmed)
    client.force_login(approver)
    approved = client.post(url, confirmed)

    assert refused.status_code == 403
    assert approved.status_code == 302
    stored = Scenario.objects.get(pk=alpha_scenario.pk)
    assert (stored.status, stored.approved_by) == (ScenarioStatus.APPROVED, approver)


def test_approving_in_the_admin_first_shows_what_is_signed(client, approver, alpha_scenario):
    url = reverse("admin:tco_scenario_approve", args=[alpha_scenario.pk])
    client.force_login(approver)

    page = client.get(url).content.decode()

    # $400,000 against 36 x 730 h x $50 = $1,314,000 of renting; breakeven month 12 (module doc).
    assert "Yes, approve 1 scenario with these figures" in page
    assert "p5 on demand" in page and "12" in page
    assert "No catalog price: every price is the scenario's own." in page
    assert Scenario.objects.get(pk=alpha_scenario.pk).status == ScenarioStatus.DRAFT


def test_the_admin_refuses_to_let_the_author_approve(client, alpha_scenario):
    author = member("andy", of="alpha", role=Role.APPROVER)
    alpha_scenario.owner = author
    alpha_scenario.save()
    client.force_login(author)
    url = reverse("admin:tco_scenario_approve", args=[alpha_scenario.pk])

    page = client.get(url).content.decode()
    client.post(url, {"confirm": "yes"})

    assert "another approver of the team must approve it" in page and "Yes, approve" not in page
    assert '<p class="errornote">You created or edited version 1 of' in page  # one sentence, no prefix
    assert Scenario.objects.get(pk=alpha_scenario.pk).status == ScenarioStatus.DRAFT


# --- catalog, schedules, teams: staff ---------------------------------------------------------


def test_a_member_who_is_not_staff_reads_the_catalog_but_cannot_change_it(client, approver, catalog):
    client.force_login(approver)

    listing = client.get(reverse("admin:catalog_accelerator_changelist"))
    add = client.get(reverse("admin:catalog_accelerator_add"))

    assert listing.status_code == 200
    assert listing.context["has_add_permission"] is False
    assert add.status_code == 403


def test_staff_change_the_catalog(client, catalog):
    client.force_login(member("stella", of="alpha", role=Role.VIEWER, is_staff=True))

    assert client.get(reverse("admin:catalog_accelerator_add")).status_code == 200


def test_price_schedules_are_for_staff_only(client, approver):
    url = reverse("admin:django_celery_beat_periodictask_changelist")
    client.force_login(approver)
    refused = client.get(url)
    client.force_login(member("stella", of="alpha", role=Role.VIEWER, is_staff=True))
    allowed = client.get(url)

    assert (refused.status_code, allowed.status_code) == (403, 200)


def test_the_approve_action_is_offered_to_approvers_only(client, analyst, approver, alpha_scenario):
    url = reverse("admin:tco_scenario_changelist")
    client.force_login(analyst)
    offered_to_analyst = [name for name, _ in client.get(url).context["action_form"].fields["action"].choices]
    client.force_login(approver)
    asked = client.post(url, {"action": "approve_selected", "_selected_action": [alpha_scenario.pk]})
    assert asked.status_code == 200 and "Yes, approve 1 scenario" in asked.content.decode()
    response = client.post(url, {"action": "approve_selected", "_selected_action": [alpha_scenario.pk],
                                 "confirm": "yes",  # each warning ticked (issue 23)
                                 f"ack-{alpha_scenario.pk}": [str(i) for i in range(50)]})

    assert "approve_selected" not in offered_to_analyst
    assert "clone_selected" in offered_to_analyst
    assert response.status_code == 302
    assert Scenario.objects.get(pk=alpha_scenario.pk).status == ScenarioStatus.APPROVED


def test_a_viewer_reads_who_changed_a_scenario_in_its_history(client, analyst, viewer, alpha_scenario):
    client.force_login(analyst)
    client.post(change_url(alpha_scenario), change_form(alpha_scenario, utilisation="0.5"))
    client.force_login(viewer)

    page = client.get(reverse("admin:tco_scenario_history", args=[alpha_scenario.pk]))

    assert page.status_code == 200
    records = list(page.context["page_obj"].object_list)
    assert [(r.history_type, r.revision, r.history_user) for r in records] == [
        ("~", 2, analyst), ("+", 1, None)]
