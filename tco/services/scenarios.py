"""A scenario's lifecycle: create, update, clone, approve, new version, delete.

    scenario = scenario_create(data={...}, rent_options=[{...}], user=user)
    saved, is_new_version = scenario_update(scenario=s, data={...}, rent_options=None,
                                            user=user, revision=3)
    scenario_approve(scenario=s, approved_by=user)           # draft -> approved (approver role)

Each takes plain data (field -> value, catalog rows as model instances) and the user, and
refuses what cannot be saved with ScenarioInputError (naming the field), StaleRevision (the
edit was made on a revision someone has since replaced: ``revision_check``),
ScenarioFrozen or ApprovalRefused (four eyes). The API views, the admin and the commands
call these; nothing else writes scenarios.

A draft is saved in place; an approved scenario is frozen: it stays as it is and an edit
becomes a new draft (version + 1, ``previous_version`` pointing back, rent options copied).
The chain is linear: an approved version has at most one next version. Approving pins the
inputs it was evaluated with (tco/services/pinning.py), and needs a second person: whoever
created or edited the version may not approve it, unless ``settings.SCENARIO_SELF_APPROVAL``.
"""
from __future__ import annotations

import copy
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from tco.models import ApiOption
from tco.models import RentOption
from tco.models import Scenario
from tco.models import ScenarioStatus
from tco.models import SnapshotReason
from tco.models import StaleRevision
from tco.services.engine_inputs import ScenarioInputError
from tco.services.evaluation import Evaluation
from tco.services.evaluation import scenario_check
from tco.services.evaluation import scenario_evaluate
from tco.services.pinning import pin_of
from tco.services.repricing import scenario_snapshot_save
from teams.models import Role
from teams.models import Team
from teams.models import team_finance_defaults
from teams.selectors import TeamChoiceError
from teams.selectors import has_role
from teams.selectors import team_for_new_object
from teams.selectors import teams_of

SCENARIO_COPY_SUFFIX = " (copy)"
# What a copy starts afresh: identity, timestamps, approval, version chain and revision.
DRAFT_RESET = {Scenario._meta.get_field(name) for name in (
    "id", "created_at", "updated_at", "status", "approved_by", "approved_at", "version",
    "previous_version", "revision")}


class ScenarioFrozen(Exception):
    """The change is not possible on an approved scenario (or one already approved)."""


class ApprovalRefused(Exception):
    """The user may not approve this version: they created or edited it (four eyes)."""


def revision_check(scenario_id: int, sent: int | None) -> int:
    """The stored revision, locked until the transaction ends, if it is the one ``sent``.

    Raises
    ------
    StaleRevision
        The scenario was saved since revision ``sent`` was read.
    """
    stored = (Scenario.objects.select_for_update().filter(pk=scenario_id)
              .values_list("revision", flat=True).first())
    if sent != stored:
        raise StaleRevision(scenario_id, stored)
    return stored


def scenario_team(user: AbstractBaseUser | None, *, named: Team | None, role: Role) -> Team | None:
    """The team a new scenario (or an unsaved evaluation) belongs to: the one named, else the
    user's only team in which they have ``role``. Without a user (a command) the team named.

    Raises ScenarioInputError on ``team`` when the user may not choose it or must name one.
    """
    if user is None:
        return named
    try:
        return team_for_new_object(user, team=named, role=role)
    except TeamChoiceError as exc:
        raise ScenarioInputError("team", str(exc)) from exc


def finance_defaults(team: Team | None) -> dict[str, Any]:
    """The team's finance defaults as scenario field values (for what a new scenario leaves out)."""
    return {name: Scenario._meta.get_field(name).to_python(figure.value)
            for name, figure in team_finance_defaults(team).items()}


def scenario_build(data: Mapping[str, Any], rent_options: Sequence[Mapping[str, Any]], *,
                   on: Scenario | None = None) -> tuple[Scenario, list[RentOption]]:
    """Unsaved model instances from plain data, on top of a copy of ``on`` when given (its rent
    options kept when ``rent_options`` is None)."""
    values = {key: value for key, value in data.items()
              if key not in ("revision", "rent_options", "api_options")}
    if on is None:
        scenario = Scenario(**values)
    else:
        scenario = copy.copy(on)  # the stored instance stays as it was
        for name, value in values.items():
            setattr(scenario, name, value)
    if rent_options is None and on is not None:
        options = list(on.rent_options.all())
    else:
        options = [RentOption(**row) for row in rent_options or []]
    return scenario, options


def api_options_build(rows: Sequence[Mapping[str, Any]] | None) -> list[ApiOption] | None:
    """Unsaved per-token API options from plain data; None (keep the scenario's own) stays None."""
    return None if rows is None else [ApiOption(**row) for row in rows]


@transaction.atomic
def scenario_create(*, data: Mapping[str, Any], rent_options: Sequence[Mapping[str, Any]],
                    user: AbstractBaseUser | None,
                    api_options: Sequence[Mapping[str, Any]] = ()) -> Scenario:
    """A new draft owned by ``user`` in the team named in ``data`` (or their only team), with
    its rent options and per-token API options.

    Raises ScenarioInputError naming the field when it could not be evaluated.
    """
    team = scenario_team(user, named=data.get("team"), role=Role.ANALYST)
    scenario, options = scenario_build({**finance_defaults(team), **data, "team": team,
                                        "owner": user}, rent_options)
    apis = api_options_build(api_options)
    scenario_check(scenario=scenario, rent_options=options, api_options=apis)
    return scenario_save(scenario=scenario, rent_options=options, api_options=apis)


@transaction.atomic
def scenario_update(*, scenario: Scenario, data: Mapping[str, Any],
                    rent_options: Sequence[Mapping[str, Any]] | None,
                    user: AbstractBaseUser, revision: int,
                    api_options: Sequence[Mapping[str, Any]] | None = None) -> tuple[Scenario, bool]:
    """Apply edits made on ``revision``: in place for a draft, as its next version when approved.

    ``rent_options`` (``api_options``) None keeps the scenario's own. Returns the saved
    scenario and whether it is a new version.

    Raises
    ------
    StaleRevision
        The scenario was saved since ``revision`` was read.
    ScenarioInputError
        The edited scenario could not be evaluated, or the edit moves it to another team.
    ScenarioFrozen
        It is approved and already has a next version (edit that one).
    """
    revision_check(scenario.pk, revision)
    if data.get("team") not in (None, scenario.team):
        raise ScenarioInputError("team", "a scenario stays in its team; clone it there instead")
    edited, options = scenario_build(data, rent_options, on=scenario)
    edited.revision = revision
    apis = api_options_build(api_options)
    scenario_check(scenario=edited, rent_options=options, api_options=apis)
    if not scenario.is_approved:
        return scenario_save(scenario=edited, rent_options=options, api_options=apis), False
    return scenario_next_version(approved=scenario, edited=edited, rent_options=options,
                                 created_by=user, api_options=apis), True


def unsaved_team(user: AbstractBaseUser | None, *, named: Team | None) -> Team | None:
    """The team an unsaved evaluation prices with: the one saving the same data would put it in.

    The team named (the user must be in it; a viewer may evaluate), else the user's only team
    in which they may save (analyst); several such teams and none named is refused as saving
    refuses it. A user who may save in no team gets their only team, else public prices (None).
    """
    if named is not None or user is None:
        return scenario_team(user, named=named, role=Role.VIEWER)
    try:
        return scenario_team(user, named=None, role=Role.ANALYST)
    except ScenarioInputError:
        if teams_of(user, role=Role.ANALYST).exists():
            raise  # several teams: saving would ask which, and so does this
    try:
        return scenario_team(user, named=None, role=Role.VIEWER)
    except ScenarioInputError:
        return None


def unsaved_evaluate(*, data: Mapping[str, Any], rent_options: Sequence[Mapping[str, Any]],
                     user: AbstractBaseUser | None,
                     api_options: Sequence[Mapping[str, Any]] = ()) -> Evaluation:
    """Evaluate a scenario given as data, without saving it: the figures saving it would give.

    Its team (``unsaved_team``) counts as on create: the team's quotes beside public prices,
    and its finance defaults for what the data leaves out.
    """
    team = unsaved_team(user, named=data.get("team"))
    scenario, options = scenario_build({**finance_defaults(team), **data, "team": team}, rent_options)
    return scenario_evaluate(scenario=scenario, rent_options=options,
                             api_options=api_options_build(api_options))


@transaction.atomic
def scenario_save(*, scenario: Scenario, rent_options: list[RentOption],
                  api_options: list[ApiOption] | None = None) -> Scenario:
    """Validate and save a scenario with its rent options, replacing any it had; its per-token
    API options too when given (None keeps the ones it has)."""
    scenario.full_clean()
    scenario.save()
    scenario.rent_options.all().delete()
    for option in rent_options:
        option.scenario = scenario
        option.full_clean()
        option.save()
    if api_options is not None:
        scenario.api_options.all().delete()
        for api_option in api_options:
            api_option.scenario = scenario
            api_option.full_clean()
            api_option.save()
    return scenario


def scenario_copy(scenario: Scenario, **changes: Any) -> Scenario:
    """An unsaved new draft with the scenario's inputs (version 1, revision 1), then ``changes``."""
    values = {field.attname: getattr(scenario, field.attname)
              for field in Scenario._meta.concrete_fields
              if field not in DRAFT_RESET and field.name not in changes}
    return Scenario(**{**values, **changes})


def rent_options_copy(options: list[RentOption]) -> list[RentOption]:
    """Unsaved copies of rent options, for another scenario."""
    return _options_copy(RentOption, options)


def api_options_copy(options: list[ApiOption]) -> list[ApiOption]:
    """Unsaved copies of per-token API options, for another scenario."""
    return _options_copy(ApiOption, options)


def _options_copy(model: type, options: list) -> list:
    return [model(**{field.attname: getattr(option, field.attname)
                     for field in model._meta.concrete_fields
                     if field.name not in ("id", "scenario")})
            for option in options]


@transaction.atomic
def scenario_clone(*, scenario: Scenario, owner: AbstractBaseUser | None = None) -> Scenario:
    """A draft copy of the scenario and its rent options in its team, named '<name> (copy)'."""
    copy = scenario_copy(scenario, name=f"{scenario.name}{SCENARIO_COPY_SUFFIX}",
                         owner=owner or scenario.owner)
    return scenario_save(scenario=copy, rent_options=rent_options_copy(list(scenario.rent_options.all())),
                         api_options=api_options_copy(list(scenario.api_options.all())))


@transaction.atomic
def scenario_approve(*, scenario: Scenario, approved_by: AbstractBaseUser,
                     revision: int | None = None, comment: str = "",
                     acknowledged: Sequence[str] | None = None) -> Scenario:
    """Mark a draft approved, by whom and when, and pin the inputs it is evaluated with from
    then on (the approval snapshot); from then on it is frozen.

    ``acknowledged`` (the admin's confirmation page passes it) holds the words of each warning
    the approver ticked: every warning of the evaluation must be among them. The comment and
    the acknowledged warnings are kept with the pin, and the comment in the history.

    Raises
    ------
    ScenarioFrozen
        It is approved already.
    StaleRevision
        ``revision`` is given and the scenario was saved since it was read.
    ApprovalRefused
        ``approved_by`` is not an approver of the scenario's team, or created or edited this
        version (and self-approval is not allowed).
        Or ``acknowledged`` misses a warning of the evaluation.
    ScenarioInputError
        It cannot be evaluated, so there is no answer to sign.
    """
    if revision is not None:
        scenario.revision = revision_check(scenario.pk, revision)
    if scenario.is_approved:
        raise ScenarioFrozen(f"scenario {scenario.pk} is approved already")
    refusal = approval_refusal(scenario, approved_by)
    if refusal:
        raise ApprovalRefused(refusal)
    evaluation = scenario_evaluate(scenario=scenario)
    if acknowledged is not None:
        missed = [w.message for w in evaluation.warnings if w.message not in set(acknowledged)]
        if missed:
            raise ApprovalRefused(f"acknowledge each warning before approving; not acknowledged: "
                                  f"{' '.join(missed)}")
    scenario.status = ScenarioStatus.APPROVED
    scenario.approved_by = approved_by
    scenario.approved_at = timezone.now()
    # The history's reason column holds 100 characters; the pin keeps the whole comment.
    scenario._change_reason = (f"Approved: {comment}" if comment else "Approved")[:100]
    scenario.save()
    pinned = pin_of(evaluation.inputs, evaluation.assumptions, evaluation.warnings,
                    currency=evaluation.currency, rates=evaluation.rates, leases=evaluation.leases)
    pinned["approval"] = {"comment": comment,
                          "acknowledged_warnings": [asdict(w) for w in evaluation.warnings]
                          if acknowledged is not None else None}
    scenario_snapshot_save(scenario=scenario, evaluation=evaluation, reason=SnapshotReason.APPROVED,
                           pinned=pinned)
    return scenario


def approval_refusal(scenario: Scenario, user: AbstractBaseUser) -> str:
    """Why ``user`` may not approve this version, or "": they are not an approver of its team,
    or they created or edited it (four eyes). The one check of the API, the admin and the
    confirmation page."""
    if not has_role(user, scenario.team_id, Role.APPROVER):
        return "you are not an approver of its team"
    return four_eyes_refusal(scenario, user)


def four_eyes_refusal(scenario: Scenario, user: AbstractBaseUser) -> str:
    """Why ``user`` may not approve this version (they created or edited it), or ""."""
    if settings.SCENARIO_SELF_APPROVAL or user.pk not in scenario_editors(scenario):
        return ""
    return (f"you created or edited version {scenario.version} of “{scenario}”, so another "
            "approver of the team must approve it (four eyes; a one-person team can allow "
            "self-approval with the SCENARIO_SELF_APPROVAL setting)")


def scenario_editors(scenario: Scenario) -> set[int]:
    """Ids of the users who created or saved this version of the scenario."""
    editors = set(Scenario.history.filter(id=scenario.pk, history_user__isnull=False)
                  .values_list("history_user_id", flat=True))
    if scenario.owner_id is not None:
        editors.add(scenario.owner_id)
    return editors


@transaction.atomic
def scenario_next_version(*, approved: Scenario, edited: Scenario, rent_options: list[RentOption],
                          created_by: AbstractBaseUser,
                          api_options: list[ApiOption] | None = None) -> Scenario:
    """A new draft from an approved scenario and the edits made on it (its API options, or
    copies of the approved one's when None); the approved one is kept."""
    revision_check(approved.pk, edited.revision)
    later = Scenario.objects.filter(previous_version_id=approved.pk).first()
    if later is not None:
        raise ScenarioFrozen(f"scenario {approved.pk} is approved and already has version "
                             f"{later.version} (scenario {later.pk}); edit that one")
    draft = scenario_copy(edited, owner=created_by, version=approved.version + 1,
                          previous_version_id=approved.pk)
    if api_options is None:
        api_options = api_options_copy(list(ApiOption.objects.filter(scenario_id=approved.pk)))
    return scenario_save(scenario=draft, rent_options=rent_options_copy(rent_options),
                         api_options=api_options)


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
