"""A scenario written as JSON (the shape of ``POST /api/v1/evaluate/``) -> plain data.

    data, rent_options, api_options = scenario_document_data(json.loads(path.read_text()))
    evaluation = unsaved_evaluate(data=data, rent_options=rent_options, api_options=api_options,
                                  user=None)

Catalog rows are named by slug (a rent option's offering and an API option's price row by
id); each value is checked by its
model field (type, digits, bounds) and the sizing spec as the API checks it. What the API
returns but never reads (id, status, revision, ...) is ignored, so a scenario fetched from the
API can be evaluated as it is. Commands read scenario files with this; the API's serializer
reads the same shape over HTTP.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.core.exceptions import ValidationError
from django.db import models

from tco.models import ApiOption
from tco.models import RentOption
from tco.models import Scenario
from tco.services.engine_inputs import ScenarioInputError
from tco.services.sizing_spec import validated_sizing_spec

# Fields a document may carry, as the API returns them, that a new evaluation does not read.
NOT_READ = frozenset({"id", "owner", "status", "version", "previous_version", "approved_by",
                      "approved_at", "revision", "created_at", "updated_at"})
# Catalog rows named by their slug rather than their id.
BY_SLUG = frozenset({"accelerator", "system", "facility", "team"})


def scenario_document_data(
        document: Any) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """The scenario's field values, its rent options' and its per-token API options' values,
    checked field by field.

    Raises
    ------
    ScenarioInputError
        Naming the first field refused (``utilisation``, ``rent_options[0].offering``,
        ``api_options[0].usd_per_million_input``).
    """
    values = dict(_mapping(document, "scenario"))
    rent_options, api_options = values.pop("rent_options", []), values.pop("api_options", [])
    data = _field_values(Scenario, values, prefix="")
    if data.get("sizing") is not None:
        try:
            data["sizing"] = validated_sizing_spec(data["sizing"], None)
        except ValidationError as exc:
            raise ScenarioInputError("sizing", "; ".join(exc.messages)) from exc
    return (data, _options(RentOption, rent_options, "rent_options"),
            _options(ApiOption, api_options, "api_options"))


def _options(model: type[models.Model], options: Any, name: str) -> list[dict[str, Any]]:
    """Each option's values (``name`` is rent_options or api_options)."""
    if not isinstance(options, list):
        raise ScenarioInputError(name, f"give a list of {name.replace('_', ' ')}")
    return [_field_values(model, _mapping(option, f"{name}[{index}]"), prefix=f"{name}[{index}].")
            for index, option in enumerate(options)]


def _mapping(value: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ScenarioInputError(name, "give a JSON object of field names and values")
    return value


def _field_values(model: type[models.Model], values: Mapping[str, Any], *,
                  prefix: str) -> dict[str, Any]:
    data = {}
    for name, value in values.items():
        if name in NOT_READ:
            continue
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            raise ScenarioInputError(prefix + name, "is not a field here") from None
        try:
            data[name] = _related(field, value) if field.is_relation else field.clean(value, None)
        except ValidationError as exc:
            raise ScenarioInputError(prefix + name, "; ".join(exc.messages)) from exc
    return data


def _related(field: models.Field, value: Any) -> models.Model | None:
    """The row a foreign key names: by slug for catalog rows and teams, else by id."""
    if value is None and field.null:
        return None
    lookup = {"slug": value} if field.name in BY_SLUG else {"pk": value}
    try:
        return field.related_model.objects.get(**lookup)
    except (field.related_model.DoesNotExist, ValueError, TypeError):
        raise ValidationError(f"no {field.related_model._meta.verbose_name} "
                              f"{next(iter(lookup.values()))!r}") from None
