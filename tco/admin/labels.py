"""Admin form labels from the vocabulary: "PUE" and "System price (USD per system)", not the
"Pue" and "System price usd" Django makes of field names.

A model field given its own ``verbose_name`` keeps it; the rest are labelled by the engine
input they feed (``tco.inputs``, the one table of fields and engine inputs).
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

from django import forms
from django.utils.html import format_html
from django.utils.text import capfirst

from tco.engine.vocabulary import INPUTS
from tco.engine.vocabulary import Kind
from tco.engine.vocabulary import Term
from tco.engine.vocabulary import generic_path
from tco.inputs import RENT_OPTION_INPUTS
from tco.inputs import SCENARIO_INPUTS
from tco.inputs import UNBOUNDED_INPUTS
from tco.models import RentOption
from tco.models import Scenario

SCENARIO_PATHS = {**SCENARIO_INPUTS, **UNBOUNDED_INPUTS}
RENT_PATHS = {field: f"rent.*.{path.split('.')[1]}" for field, path in RENT_OPTION_INPUTS.items()}
KIND_UNITS = {Kind.USD: "USD", Kind.USD_PRICE: "USD", Kind.SHARE: "0-1"}


def form_label(term: Term) -> str:
    """'System price (USD per system)', 'Utilisation (0-1)', 'PUE', 'Loan term (months)'."""
    unit = " ".join(part for part in (KIND_UNITS.get(term.kind, ""), term.unit) if part)
    if term.kind is Kind.SHARE and term.unit:
        unit = f"0-1, {term.unit}"
    return f"{term.label} ({unit})" if unit else term.label


class OptionalJSONField(forms.JSONField):
    """A JSON field left empty shows empty, not the word null."""

    def prepare_value(self, value: Any) -> Any:
        return "" if value is None else super().prepare_value(value)


class VocabularyLabelsForm(forms.ModelForm):
    """A model form whose input fields carry the vocabulary's labels; ``path_of`` says which
    engine input a field feeds (None: none)."""

    @staticmethod
    def path_of(field: str) -> str | None:
        return SCENARIO_PATHS.get(field)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name, value in self.initial.items():
            if isinstance(value, Decimal):  # as typed: 0.8 and 730, not the column's 0.8000 and 730.00
                self.initial[name] = Decimal(format(value.normalize(), "f"))
        model_fields = {field.name: field for field in self._meta.model._meta.get_fields()}
        for name, form_field in self.fields.items():
            model_field = model_fields.get(name)
            if model_field is None or getattr(model_field, "_verbose_name", None) is not None:
                continue
            path = self.path_of(name)
            term = INPUTS.get(generic_path(path)) if path else None
            if term is not None:
                form_field.label = form_label(term)


class RentOptionForm(VocabularyLabelsForm):
    @staticmethod
    def path_of(field: str) -> str | None:
        return RENT_PATHS.get(field, f"rent.*.{field}")


RENT_FIELD = re.compile(r"^rent_options\[(\d+)\](?:\.(\w+))?$")


def change_row(field: str, old: str | None, new: str | None) -> tuple[str, str | None, str | None]:
    """A changed input (``tco.services.history.FieldChange``) as people read it:
    ('Utilisation', '100.0%', '50.0%'), not ('utilisation', '1.0000', '0.5000'); a rent option's
    field is named by the option's position ('Rent option 1: Instance price')."""
    match = RENT_FIELD.match(field)
    if match:
        index, name = int(match.group(1)), match.group(2)
        if name is None:
            return f"Rent option {index + 1}", old, new
        model, path, owner = RentOption, RentOptionForm.path_of(name), f"Rent option {index + 1}: "
    else:
        model, path, owner, name = Scenario, VocabularyLabelsForm.path_of(field), "", field
    term = INPUTS.get(generic_path(path)) if path else None
    if term is None:
        return owner + capfirst(model._meta.get_field(name).verbose_name), old, new

    def shown(value: str | None) -> str | None:
        try:
            return None if value is None else term.show_with_unit(float(value))
        except ValueError:  # not a number after all (a choice): as stored
            return value

    return owner + term.label, shown(old), shown(new)


def spec_block(spec: Any) -> str:
    """A run's or plan's stored request as indented JSON: its keys are the API's, as typed there."""
    return format_html('<pre class="spec">{}</pre>', json.dumps(spec, indent=2))
