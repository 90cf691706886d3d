"""Plans bounded, stoppable and fed to the queue a few draws at a time (issue 25, findings 7-8:
300 systems x 240 months x 50 rent options was accepted, solved for 5 min 20 s and failed with
HiGHS's text; a plan could not be cancelled or deleted; its 400 draw chunks were queued at once)."""
from __future__ import annotations

import pytest

from costmodel.plan import solve
from tco.models import PlanDrawChunk
from tco.models import PlanStatus
from tco.models import ProcurementPlan
from tco.services import plans
from teams.models import Role
from tests.tco.test_plans_api import GROWING
from tests.tco.test_plans_api import URL
from tests.tco.test_plans_api import post

pytestmark = pytest.mark.django_db


def test_more_systems_than_the_plan_limit_are_refused_naming_it(api, run_scenario):
    owned = [{"name": f"system {i}"} for i in range(300)]

    response = post(api, run_scenario, {"demand": {"months": 240}, "owned": owned})

    assert response.status_code == 400
    assert response.json() == {"spec": {"owned": ["300 systems to buy; the plan limit is 10"]}}
    assert not ProcurementPlan.objects.exists()


def test_more_months_x_choices_than_the_plan_limit_are_refused_naming_it(api, run_scenario):
    owned = [{"name": f"system {i}"} for i in range(10)]

    response = post(api, run_scenario, {"demand": {"months": 240}, "owned": owned})

    assert response.status_code == 400
    assert response.json() == {"spec": {"demand": [
        "240 months x 11 choices (10 to buy, 1 to rent) is 2,640 choice-months; the plan limit "
        "is 2,400: fewer months or choices"]}}


def test_a_solve_past_its_time_limit_fails_in_words(api, run_scenario, monkeypatch,
                                                   django_capture_on_commit_callbacks):
    monkeypatch.setattr(solve, "TIME_LIMIT_S", 1e-9)

    with django_capture_on_commit_callbacks(execute=True):
        response = post(api, run_scenario, GROWING)

    plan = api.get(response["Location"]).json()
    assert plan["status"] == "failed"
    assert plan["error"] == ("no plan within the 60 s solve limit: fewer months or choices, "
                             "or a longer limit")


def test_a_plan_is_cancelled_and_deleted_like_a_run(api, run_scenario):
    created = post(api, run_scenario, GROWING)  # queued: the solve is sent on commit, never here

    cancelled = api.post(f"{created['Location']}cancel/")
    again = api.post(f"{created['Location']}cancel/")
    deleted = api.delete(created["Location"])

    assert cancelled.status_code == 202 and cancelled.json()["status"] == "cancelled"
    assert again.status_code == 409
    assert deleted.status_code == 204
    assert not ProcurementPlan.objects.exists()
    plans.plan_solve(plan_id=created.json()["id"])  # a message still queued finds nothing


def test_draws_are_fed_a_few_at_a_time(api, run_scenario, monkeypatch, django_capture_on_commit_callbacks):
    sent = []
    monkeypatch.setattr(plans.jobs, "send", lambda task, args, queue: sent.append((task.name, args)))
    spec = {**GROWING, "uncertainty": {"draws": 1_000, "seed": 7}}  # 4 chunks of 250
    with django_capture_on_commit_callbacks(execute=True):
        plan_id = post(api, run_scenario, spec).json()["id"]
    with django_capture_on_commit_callbacks(execute=True):
        plans.plan_solve(plan_id=plan_id)

    draws = [args for name, args in sent if name.endswith("plan_draws_task")]
    assert draws == [(plan_id, 0), (plan_id, 1)]  # of 4
    with django_capture_on_commit_callbacks(execute=True):
        plans.plan_draws_compute(plan_id=plan_id, index=0)
    draws = [args for name, args in sent if name.endswith("plan_draws_task")]
    assert draws[-1] == (plan_id, 2)  # one finished, the next sent
    assert list(PlanDrawChunk.objects.filter(plan_id=plan_id).values_list("queued", flat=True)) == [
        True, True, True, False]

    api.post(f"{URL}{plan_id}/cancel/")
    assert ProcurementPlan.objects.get(pk=plan_id).status == PlanStatus.CANCELLED
    assert list(PlanDrawChunk.objects.filter(plan_id=plan_id).values_list("index", flat=True)) == [0]


def test_a_plan_under_way_is_cancelled_from_its_admin_page(api, run_scenario):
    # `api` is the planner's session: an analyst of the scenario's team.
    plan = ProcurementPlan.objects.get(pk=post(api, run_scenario, GROWING).json()["id"])
    page = f"/admin/tco/procurementplan/{plan.pk}/change/"
    cancel = f"/admin/tco/procurementplan/{plan.pk}/cancel/"

    queued = api.get(page).content.decode()
    assert f'action="{cancel}"' in queued and "Cancel plan" in queued
    assert api.get(cancel).status_code == 403  # only a POST stops it
    cancelled = api.post(cancel, follow=True).content.decode()
    plan.refresh_from_db()
    assert plan.status == PlanStatus.CANCELLED
    assert "Growth is cancelled: nothing more is solved or drawn for it." in cancelled
    assert "Cancel plan" not in cancelled and 'http-equiv="refresh"' not in cancelled  # ended: no reload
    again = api.post(cancel, follow=True).content.decode()
    assert "Growth had already ended (cancelled)." in again


def test_a_viewer_cannot_cancel_a_plan_from_the_admin(client, run_scenario, planner):
    from tests.teams.members import member

    plan = plans.plan_create(scenario=run_scenario, name="growth", spec=GROWING)
    client.force_login(member("viewer", role=Role.VIEWER, is_staff=True))
    page = client.get(f"/admin/tco/procurementplan/{plan.pk}/change/").content.decode()

    assert "Cancel plan" not in page
    assert client.post(f"/admin/tco/procurementplan/{plan.pk}/cancel/").status_code == 403
    plan.refresh_from_db()
    assert plan.status == PlanStatus.PENDING
