"""A scenario's recorded history: who changed what and when, the state at any recorded point,
and the difference between two points, in inputs and in the result.

Every save of a scenario writes one history row (django-simple-history); its rent options are
replaced after the scenario row is written, so the rent options of a point are those in force
just before the scenario's next recorded save. Each point of a comparison is evaluated as it
stands: an approved one at the prices pinned at its approval (its signed answer, the figures its
own page shows), a draft at its price date (empty = today). ``ScenarioDiff.prices`` says which
prices each point used, so a reader can tell a move from the edits from one from the prices.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.db import models
from django.db.models import QuerySet
from django.utils import timezone

from tco.models import ApiOption
from tco.models import RentOption
from tco.models import Scenario
from tco.services.engine_inputs import ScenarioInputError
from tco.services.evaluation import Evaluation
from tco.services.evaluation import option_figures
from tco.services.evaluation import scenario_evaluate
from tco.services.pinning import approval_snapshot

#: Fields every save changes; they say when and which revision, not what the case is.
BOOKKEEPING = {"id", "created_at", "updated_at", "revision"}
RENT_BOOKKEEPING = {"id", "scenario"}


@dataclass(frozen=True)
class FieldChange:
    """One input that differs between two points: ``rent_options[1].upfront_usd`` 0 -> 5000."""

    field: str
    old: str | None
    new: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "old": self.old, "new": self.new}


@dataclass(frozen=True)
class OptionMove:
    """How buying compares with one rent option at the two points (None = no such option there,
    breakeven None = never)."""

    rent_option: str
    old: dict[str, Any] | None
    new: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return {"rent_option": self.rent_option, "old": self.old, "new": self.new}


@dataclass(frozen=True)
class ScenarioState:
    """A scenario as it was at one history row, with its rent options then."""

    record: models.Model
    scenario: Scenario
    rent_options: list[RentOption]
    api_options: list[ApiOption]


@dataclass(frozen=True)
class VerdictMove:
    """The verdict over every option at the two points: the winner, its margin over the next
    cheapest, and each option's NPV (None: no such option at that point), money in ``currency``."""

    currency: str
    winner: tuple[str | None, str | None]
    margin: tuple[float | None, float | None]
    options: list[tuple[str, float | None, float | None]]


@dataclass(frozen=True)
class ScenarioDiff:
    """Two points of a scenario's history (or of two of its versions) side by side; ``prices``
    says, per side ("old", "new"), which prices it is evaluated at."""

    old: ScenarioState
    new: ScenarioState
    changes: list[FieldChange]
    moves: list[OptionMove]
    errors: dict[str, str]
    prices: dict[str, str]
    verdicts: VerdictMove | None = None


def scenario_records(scenario: Scenario) -> QuerySet:
    """History rows of the scenario and of the versions before it, newest first."""
    ids = []
    current: Scenario | None = scenario
    while current is not None:
        ids.append(current.pk)
        current = current.previous_version
    return (Scenario.history.filter(id__in=ids).select_related("history_user")
            .order_by("-history_date", "-history_id"))


def state_at(record: models.Model) -> ScenarioState:
    """The scenario and its rent options as they were at ``record``."""
    following = (Scenario.history.filter(id=record.id, history_date__gt=record.history_date)
                 .order_by("history_date").values_list("history_date", flat=True).first())
    at = following or timezone.now()
    options = RentOption.history.as_of(at).filter(scenario_id=record.id)
    apis = ApiOption.history.as_of(at).filter(scenario_id=record.id)
    return ScenarioState(record=record, scenario=record.instance,
                         rent_options=sorted(options, key=lambda option: option.pk),
                         api_options=sorted(apis, key=lambda option: option.pk))


def field_changes(old: ScenarioState, new: ScenarioState) -> list[FieldChange]:
    """Every input that differs, scenario fields first, then rent options by position."""
    changes = _changed(old.scenario, new.scenario, Scenario, BOOKKEEPING, "")
    for index in range(max(len(old.rent_options), len(new.rent_options))):
        before = old.rent_options[index] if index < len(old.rent_options) else None
        after = new.rent_options[index] if index < len(new.rent_options) else None
        label = f"rent_options[{index}]"
        if before is None or after is None:
            changes.append(FieldChange(label, before and str(before), after and str(after)))
        else:
            changes += _changed(before, after, RentOption, RENT_BOOKKEEPING, f"{label}.")
    return changes


def history_diff(old_record: models.Model, new_record: models.Model) -> ScenarioDiff:
    """What changed between two history rows and how buy-vs-rent moved against each rent option."""
    old, new = state_at(old_record), state_at(new_record)
    figures, verdicts, errors = {}, {}, {}
    for side, state in (("old", old), ("new", new)):
        try:
            evaluation = scenario_evaluate(scenario=state.scenario, rent_options=state.rent_options,
                                           api_options=state.api_options)
        except ScenarioInputError as exc:
            figures[side], errors[side] = {}, str(exc)
            continue
        figures[side] = {row.pop("name"): row for row in option_figures(evaluation.result)}
        verdicts[side] = evaluation
    names = list(dict.fromkeys([*figures["old"], *figures["new"]]))
    moves = [OptionMove(name, figures["old"].get(name), figures["new"].get(name)) for name in names]
    return ScenarioDiff(old=old, new=new, changes=field_changes(old, new), moves=moves, errors=errors,
                        prices={"old": prices_used(old.scenario), "new": prices_used(new.scenario)},
                        verdicts=_verdict_move(verdicts.get("old"), verdicts.get("new")))


def _verdict_move(old: Evaluation | None, new: Evaluation | None) -> VerdictMove | None:
    """Every option's NPV at both points, in the order of the newer point's verdict."""
    sides = [side for side in (old, new) if side is not None]
    if not sides:
        return None
    npvs = [{} if side is None else {o.label: o.npv_usd for o in side.result.verdict.ranked}
            for side in (old, new)]
    labels = list(dict.fromkeys([*npvs[1], *npvs[0]]))
    return VerdictMove(
        currency=sides[-1].currency,
        winner=tuple(None if side is None else side.result.verdict.cheapest.label for side in (old, new)),
        margin=tuple(None if side is None else side.result.verdict.margin_usd for side in (old, new)),
        options=[(label, npvs[0].get(label), npvs[1].get(label)) for label in labels])


def prices_used(scenario: Scenario) -> str:
    """The prices a point is evaluated at, in words (as ``scenario_evaluate`` picks them)."""
    snapshot = approval_snapshot(scenario)
    if snapshot is not None:
        return f"the prices pinned at its approval on {_minute(snapshot.created_at)}, as signed"
    if scenario.prices_as_of is not None:
        return f"the catalog prices as of {scenario.prices_as_of:%Y-%m-%d}"
    return "today's catalog prices"


def _changed(old: models.Model, new: models.Model, model: type[models.Model], skip: set[str],
             prefix: str) -> list[FieldChange]:
    return [FieldChange(f"{prefix}{field.name}", _shown(old, field), _shown(new, field))
            for field in model._meta.concrete_fields
            if field.name not in skip
            and getattr(old, field.attname) != getattr(new, field.attname)]


def _shown(instance: models.Model, field: models.Field) -> str | None:
    """A field's value as text; a related row by its name (or id, if it has been deleted)."""
    value = getattr(instance, field.attname)
    if value is None:
        return None
    if isinstance(value, datetime):
        return _minute(value)
    if field.is_relation:
        try:
            return str(getattr(instance, field.name))
        except ObjectDoesNotExist:
            return f"#{value} (deleted)"
    return str(value)


def _minute(value: datetime) -> str:
    """A time to the minute, as the admin shows times."""
    return f"{timezone.localtime(value):%Y-%m-%d %H:%M %Z}"
