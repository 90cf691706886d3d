"""Approved scenarios are frozen (editing makes a new version) and concurrent edits of one
scenario cannot silently overwrite each other (optimistic concurrency on its revision)."""
from __future__ import annotations

import threading
import time
from decimal import Decimal

import pytest
from django.db import connection
from django.db import transaction

from tco.models import RentOption
from tco.models import Scenario
from tco.models import ScenarioStatus
from tco.models import StaleRevision
from tco.services.scenarios import scenario_approve
from tco.services.scenarios import scenario_save
from tests.teams.conftest import client_of
from tests.teams.conftest import hand_scenario

S = "/api/v1/scenarios/{pk}/"


def patch(client, scenario, body, **headers):
    return client.patch(S.format(pk=scenario.pk), body, format="json", headers=headers)


def test_two_editors_of_revision_1_the_first_wins_and_the_second_gets_409(analyst, alpha_scenario):
    first, second = client_of(analyst), client_of(analyst)
    etags = [client.get(S.format(pk=alpha_scenario.pk))["ETag"] for client in (first, second)]

    won = patch(first, alpha_scenario, {"utilisation": "0.5"}, **{"If-Match": etags[0]})
    lost = patch(second, alpha_scenario, {"utilisation": "0.9"}, **{"If-Match": etags[1]})

    assert etags == ['"1"', '"1"']
    assert (won.status_code, won.json()["revision"], won["ETag"]) == (200, 2, '"2"')
    assert lost.status_code == 409
    assert lost.json()["current_revision"] == 2
    assert "revision 1" in lost.json()["detail"]
    assert Scenario.objects.get(pk=alpha_scenario.pk).utilisation == Decimal("0.5")  # not 0.9


def test_the_revision_may_be_sent_in_the_body_instead_of_if_match(analyst, alpha_scenario):
    stale = patch(client_of(analyst), alpha_scenario, {"utilisation": "0.9", "revision": 7})
    fresh = patch(client_of(analyst), alpha_scenario, {"utilisation": "0.9", "revision": 1})

    assert (stale.status_code, fresh.status_code) == (409, 200)


def test_an_edit_that_names_no_revision_is_refused_with_428(analyst, alpha_scenario):
    response = patch(client_of(analyst), alpha_scenario, {"utilisation": "0.5"})

    assert response.status_code == 428
    assert Scenario.objects.get(pk=alpha_scenario.pk).utilisation == Decimal("1")


def test_a_save_from_a_stale_copy_raises_and_changes_nothing(alpha_scenario):
    # Two processes read revision 1; the conditional UPDATE lets only the first save through.
    mine, theirs = Scenario.objects.get(pk=alpha_scenario.pk), Scenario.objects.get(pk=alpha_scenario.pk)
    mine.utilisation = Decimal("0.5")
    mine.save()
    theirs.utilisation = Decimal("0.9")

    with pytest.raises(StaleRevision) as refused:
        theirs.save()

    assert refused.value.current == 2
    stored = Scenario.objects.get(pk=alpha_scenario.pk)
    assert (stored.revision, stored.utilisation) == (2, Decimal("0.5"))


def test_editing_an_approved_scenario_makes_a_new_draft_version(analyst, approver, alpha_scenario):
    scenario_approve(scenario=alpha_scenario, approved_by=approver)

    response = patch(client_of(analyst), alpha_scenario, {"utilisation": "0.5"},
                     **{"If-Match": f'"{alpha_scenario.revision}"'})

    assert response.status_code == 201, response.json()
    body = response.json()
    new = Scenario.objects.get(pk=body["id"])
    assert response["Location"].endswith(S.format(pk=new.pk))
    assert (body["version"], body["status"], body["previous_version"], body["revision"]) == (
        2, "draft", alpha_scenario.pk, 1)
    assert (new.team_id, new.owner, new.utilisation) == (alpha_scenario.team_id, analyst, Decimal("0.5"))
    assert [o.price_usd_per_instance_hour for o in new.rent_options.all()] == [Decimal("50")]
    frozen = Scenario.objects.get(pk=alpha_scenario.pk)
    assert (frozen.status, frozen.utilisation, frozen.rent_options.count()) == (
        ScenarioStatus.APPROVED, Decimal("1"), 1)


def test_an_approved_version_has_one_next_version(analyst, approver, alpha_scenario):
    scenario_approve(scenario=alpha_scenario, approved_by=approver)
    etag = {"If-Match": f'"{alpha_scenario.revision}"'}
    first = patch(client_of(analyst), alpha_scenario, {"utilisation": "0.5"}, **etag)

    second = patch(client_of(analyst), alpha_scenario, {"utilisation": "0.6"}, **etag)

    assert second.status_code == 409
    assert f"version 2 (scenario {first.json()['id']})" in second.json()["detail"]
    assert Scenario.objects.count() == 2


def test_an_approved_scenario_cannot_be_deleted(approver, alpha_scenario):
    scenario_approve(scenario=alpha_scenario, approved_by=approver)

    response = client_of(approver).delete(S.format(pk=alpha_scenario.pk))

    assert response.status_code == 409
    assert Scenario.objects.filter(pk=alpha_scenario.pk).exists()


def test_approving_with_a_stale_if_match_is_refused(approver, alpha_scenario):
    alpha_scenario.name = "renamed"
    scenario_save(scenario=alpha_scenario, rent_options=list(alpha_scenario.rent_options.all()))

    response = client_of(approver).post(S.format(pk=alpha_scenario.pk) + "approve/",
                                        headers={"If-Match": '"1"'})

    assert response.status_code == 409
    assert response.json()["current_revision"] == 2
    assert Scenario.objects.get(pk=alpha_scenario.pk).status == ScenarioStatus.DRAFT


def test_a_clone_of_an_approved_scenario_is_a_new_draft(analyst, approver, alpha_scenario):
    scenario_approve(scenario=alpha_scenario, approved_by=approver)

    response = client_of(analyst).post(S.format(pk=alpha_scenario.pk) + "clone/")

    body = response.json()
    assert (body["status"], body["version"], body["previous_version"], body["approved_by"]) == (
        "draft", 1, None, None)
    assert RentOption.objects.filter(scenario_id=body["id"]).count() == 1


def test_two_concurrent_saves_of_one_revision_let_exactly_one_through(transactional_db, catalog, analyst):
    # Real concurrency on PostgreSQL: the second writer's conditional UPDATE waits on the first's
    # row lock, then finds the revision moved and refuses, instead of overwriting.
    scenario = hand_scenario("alpha", analyst)
    first, second = (Scenario.objects.get(pk=scenario.pk) for _ in range(2))
    first_saved, release = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}

    def save_first():
        with transaction.atomic():
            first.utilisation = Decimal("0.5")
            first.save()
            first_saved.set()
            release.wait(5)
        connection.close()

    def save_second():
        first_saved.wait(5)
        try:
            with transaction.atomic():
                second.utilisation = Decimal("0.9")
                second.save()
        except StaleRevision as exc:
            outcome["refused_at"] = exc.current
        connection.close()

    threads = [threading.Thread(target=save_first), threading.Thread(target=save_second)]
    for thread in threads:
        thread.start()
    first_saved.wait(5)
    time.sleep(0.2)  # the second writer is now waiting on the row lock
    release.set()
    for thread in threads:
        thread.join(10)

    assert outcome == {"refused_at": 2}
    stored = Scenario.objects.get(pk=scenario.pk)
    assert (stored.revision, stored.utilisation) == (2, Decimal("0.5"))
