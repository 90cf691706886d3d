"""Approval and versions: an approved scenario is frozen, and editing it makes its next version.

    scenario_approve(scenario=s, approved_by=user)            # draft -> approved (approver role)
    saved, is_new = scenario_edit(scenario=s, edited=e, rent_options=o, edited_by=user)

``edited`` is the stored scenario with the edits applied, carrying the revision the editor read
(``Scenario.save`` refuses a stale one). A draft is saved in place; an approved scenario stays
as it is and the edits become a new draft: version + 1, ``previous_version`` pointing back, the
rent options copied. The chain is linear: an approved version has at most one next version.
"""
from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from tco.models import RentOption, Scenario, ScenarioStatus, StaleRevision
from tco.services import rent_options_copy, scenario_copy, scenario_save


class ScenarioFrozen(Exception):
    """The change is not possible on an approved scenario (or one already approved)."""


@transaction.atomic
def scenario_approve(*, scenario: Scenario, approved_by: AbstractBaseUser) -> Scenario:
    """Mark a draft approved, by whom and when; from then on it is frozen.

    Raises
    ------
    ScenarioFrozen
        It is approved already.
    StaleRevision
        It was saved since ``scenario.revision`` was read.
    """
    if scenario.is_approved:
        raise ScenarioFrozen(f"scenario {scenario.pk} is approved already")
    scenario.status = ScenarioStatus.APPROVED
    scenario.approved_by = approved_by
    scenario.approved_at = timezone.now()
    scenario.save()
    return scenario


@transaction.atomic
def scenario_edit(*, scenario: Scenario, edited: Scenario, rent_options: list[RentOption],
                  edited_by: AbstractBaseUser) -> tuple[Scenario, bool]:
    """Save the edits of a scenario: in place for a draft, as its next version when approved.

    Returns
    -------
    (Scenario, bool)
        The saved scenario, and whether it is a new version.

    Raises
    ------
    StaleRevision
        The scenario was saved since ``edited.revision`` was read.
    ScenarioFrozen
        It is approved and already has a next version (edit that one).
    """
    if not scenario.is_approved:
        return scenario_save(scenario=edited, rent_options=rent_options), False
    return scenario_next_version(approved=scenario, edited=edited, rent_options=rent_options,
                                 created_by=edited_by), True


@transaction.atomic
def scenario_next_version(*, approved: Scenario, edited: Scenario, rent_options: list[RentOption],
                          created_by: AbstractBaseUser) -> Scenario:
    """A new draft from an approved scenario and the edits made on it; the approved one is kept."""
    stored = Scenario.objects.select_for_update().get(pk=approved.pk)
    if stored.revision != edited.revision:
        raise StaleRevision(stored.pk, stored.revision)
    later = Scenario.objects.filter(previous_version=stored).first()
    if later is not None:
        raise ScenarioFrozen(f"scenario {stored.pk} is approved and already has version "
                             f"{later.version} (scenario {later.pk}); edit that one")
    draft = scenario_copy(edited, owner=created_by, version=stored.version + 1,
                          previous_version=stored)
    return scenario_save(scenario=draft, rent_options=rent_options_copy(rent_options))


def scenario_delete(*, scenario: Scenario) -> None:
    """Delete a draft; an approved scenario is a record and stays.

    Raises
    ------
    ScenarioFrozen
        It is approved.
    """
    if scenario.is_approved:
        raise ScenarioFrozen(f"scenario {scenario.pk} is approved and frozen; it cannot be deleted")
    scenario.delete()
