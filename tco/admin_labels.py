"""Admin form labels from the vocabulary: "PUE" and "System price (USD per system)", not the
"Pue" and "System price usd" Django makes of field names.

A model field given its own ``verbose_name`` keeps it; the rest are labelled by the engine
input they feed (``tco.services.engine_inputs.ENGINE_PATH_TO_FIELD``).
"""

from __future__ import annotations

from django import forms

from tco.engine.vocabulary import INPUTS
from tco.engine.vocabulary import Kind
from tco.engine.vocabulary import Term
from tco.engine.vocabulary import generic_path
from tco.services.engine_inputs import ENGINE_PATH_TO_FIELD

# A scenario field is named as its input's last part (``facility.pue`` -> ``pue``) unless the
# engine's map says otherwise.
SCENARIO_PATHS = {
    ENGINE_PATH_TO_FIELD.get(path, path.rsplit(".", 1)[1]): path
    for path in INPUTS
    if not path.startswith(("rent.", "cooling."))
} | {
    # Owned space: the scenario overrides the facility's figures under these names.
    "buildout_capex_usd_per_kw": "facility.owned_buildout_usd_per_kw",
    "buildout_opex_usd_per_kw_month": "facility.owned_opex_usd_per_kw_month",
}
# Rent option fields are named as their engine inputs, but for these.
RENT_PATHS = {"upfront_usd": "rent.*.upfront_usd_per_instance"}
KIND_UNITS = {Kind.USD: "USD", Kind.USD_PRICE: "USD", Kind.SHARE: "0-1"}


def form_label(term: Term) -> str:
    """'System price (USD per system)', 'Utilisation (0-1)', 'PUE', 'Loan term (months)'."""
    unit = " ".join(part for part in (KIND_UNITS.get(term.kind, ""), term.unit) if part)
    if term.kind is Kind.SHARE and term.unit:
        unit = f"0-1, {term.unit}"
    return f"{term.label} ({unit})" if unit else term.label


class VocabularyLabelsForm(forms.ModelForm):
    """A model form whose input fields carry the vocabulary's labels; ``path_of`` says which
    engine input a field feeds (None: none)."""

    @staticmethod
    def path_of(field: str) -> str | None:
        return SCENARIO_PATHS.get(field)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
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
