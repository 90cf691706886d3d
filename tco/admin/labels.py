"""Admin form labels from the vocabulary: "PUE" and "System price (USD per system)", not the
"Pue" and "System price usd" Django makes of field names.

A model field given its own ``verbose_name`` keeps it; the rest are labelled by the engine
input they feed (``tco.inputs``, the one table of fields and engine inputs).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from django import forms
from django.utils.html import format_html
from django.utils.html import format_html_join
from django.utils.text import capfirst

from core.currency import Currency
from costmodel.vocabulary import INPUTS
from costmodel.vocabulary import MISSING
from costmodel.vocabulary import TERMS
from costmodel.vocabulary import Kind
from costmodel.vocabulary import Term
from costmodel.vocabulary import generic_path
from costmodel.vocabulary import input_term
from tco.inputs import RENT_OPTION_INPUTS
from tco.inputs import SCENARIO_INPUTS
from tco.inputs import UNBOUNDED_INPUTS
from tco.models import RentOption
from tco.models import Scenario
from tco.services.engine_inputs import reporting_currency
from teams.models import Team

SCENARIO_PATHS = {**SCENARIO_INPUTS, **UNBOUNDED_INPUTS}
RENT_PATHS = {field: f"rent.*.{path.split('.')[1]}" for field, path in RENT_OPTION_INPUTS.items()}
KIND_UNITS = {Kind.SHARE: "0-1"}
CURRENCY_MARK = "{currency}"  # where the page writes the currency chosen into a money label


def form_label(term: Term, currency: str = "USD") -> str:
    """'System price (USD per system)', 'Utilisation (0-1)', 'PUE', 'Loan term (months)'; money
    in the currency the figures are typed in ('System price (EUR per system)')."""
    money = currency if term.kind in (Kind.USD, Kind.USD_PRICE) else ""
    unit = " ".join(part for part in (money or KIND_UNITS.get(term.kind, ""), term.unit) if part)
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
        currency = typed_currency(self.instance, team=self.initial.get("team"))
        for name, form_field in self.fields.items():
            model_field = model_fields.get(name)
            if model_field is None or getattr(model_field, "_verbose_name", None) is not None:
                continue
            path = self.path_of(name)
            term = (INPUTS.get(generic_path(path)) or TERMS.get(path)) if path else None
            if term is not None:
                form_field.label = form_label(term, currency)
                if term.kind in (Kind.USD, Kind.USD_PRICE):
                    # The page relabels it at once when the currency typed in is changed.
                    form_field.widget.attrs["data-money-label"] = form_label(term, CURRENCY_MARK)


def typed_currency(instance: Scenario | RentOption, team: Team | int | None = None) -> str:
    """The currency a scenario's (or its rent option's) money figures are typed in; for a new
    scenario, ``team``'s reporting currency (the team its form starts with)."""
    scenario = instance if isinstance(instance, Scenario) else (
        instance.scenario if instance.scenario_id is not None else None)
    if scenario is None or (scenario.team_id is None and team is None):
        return Currency.USD
    if scenario.team_id is None:
        scenario = Scenario(team=team if isinstance(team, Team) else Team.objects.get(pk=team),
                            currency=scenario.currency, reporting_currency=scenario.reporting_currency)
    return scenario.currency or reporting_currency(scenario)


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


# The words of a run's or plan's request keys (the API's names), where the key's own words are
# not enough; engine input paths are named by the vocabulary.
SPEC_WORDS = {
    "start": "accelerators in month 1", "growth_per_month": "growth per month (share)",
    "months": "months planned", "table": "accelerators per month", "utilisation": "utilisation (0-1)",
    "owned": "systems to buy", "rent": "rent options", "lead_time_months": "lead time (months)",
    "existing_systems": "systems already owned", "existing_age_months": "age of those (months)",
    "service_life_months": "service life (months)", "capex_timing": "capex paid at",
    "spot_share_cap": "most of the demand on spot (0-1)", "equivalence": "equivalence factor",
    "site_it_power_kw": "site IT power (kW)", "site_racks": "site racks",
    "capex_usd_per_period": "capex budget per period (reporting currency)",
    "capex_period_months": "budget period (months)",
    "min_owned_share": "least share owned (0-1)", "min_rented_share": "least share rented (0-1)",
    "draws": "Monte Carlo draws", "growth_delta_per_month": "growth spread per month",
    "rent_price_factor": "rent price factor", "samples": "samples", "histogram_bins": "histogram bins",
    "step_share": "step (share of each input)", "paths": "inputs moved", "heatmap_axes": "heat map axes",
    "kind": "distribution", "low": "low", "mode": "most likely", "high": "high",
    "term_structure": "terms of the rental curve", "terms": "terms", "next_generation": "next generation",
    "available_month": "on sale from month", "system_price": "system price (reporting currency)",
    "throughput_ratio": "throughput per accelerator (x today's)",
}


def spec_table(spec: Any) -> str:
    """A run's or plan's stored request as a labelled table: each setting in words, engine inputs
    by their labels, numbers with separators."""
    rows = format_html_join("", "<tr><th scope=\"row\">{}</th><td>{}</td></tr>",
                            ((" › ".join(labels), value) for labels, value in _spec_rows(spec, ())))
    return format_html('<table class="spec">{}</table>', rows)


def _spec_rows(value: Any, labels: tuple[str, ...]):
    if isinstance(value, dict) and not value and labels:  # a setting asked for with its defaults
        yield labels, "the defaults"
    elif isinstance(value, dict):
        for key, item in value.items():
            if key == "seed":  # an identifier, not a quantity: no separators
                yield (*labels, "Seed"), str(item)
                continue
            yield from _spec_rows(item, (*labels, _spec_word(key)))
    elif isinstance(value, list) and all(isinstance(item, dict) for item in value) and value:
        for index, item in enumerate(value, start=1):
            named = item.get("name") or (input_term(item["path"]).label if "path" in item else None)
            rest = {key: part for key, part in item.items() if key not in ("name", "path")}
            if rest:
                yield from _spec_rows(rest, (*labels, named or str(index)))
            else:
                yield labels, named or str(index)
    elif isinstance(value, list):
        yield labels, ", ".join(_spec_value(item) for item in value)
    else:
        yield labels, _spec_value(value)


def _spec_word(key: str) -> str:
    if "." in key:  # an engine input path, e.g. a Monte Carlo distribution's key
        return input_term(key).label
    return capfirst(SPEC_WORDS.get(key, key.replace("_", " ")))


def _spec_value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.6g}" if abs(value) < 1e6 else f"{value:,.0f}"
    if isinstance(value, str) and re.fullmatch(r"[a-z_]+(\.[a-z_0-9*]+)+", value):
        return input_term(value).label
    return MISSING if value is None else str(value)
