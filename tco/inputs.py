"""Each scenario field's bounds, words and help, read from the engine input it feeds: declared
once, there.

The engine's input declaration (``numeric(low=..., high=..., rate=..., step=..., label=...,
help=...)`` in costmodel/inputs.py, and for the tax and lease terms in costmodel/tax.py and
costmodel/payment.py) says what each input accepts and what it is called. The model fields'
validators (``WithinBounds``), hence the admin forms and the API's serializers, the database's
check constraints (``bounds_constraints``), the admin's labels (tco/admin/labels.py) and the help
text of a field that has none of its own all follow from it, through the field -> engine input
mapping below. A field that is a share or a yearly rate (``rate`` in the metadata) is also
refused above 1: 8 there is most likely 8 %. The engine refuses what it is given with an
``InputError`` naming the input's path; ``field_for`` names the field to fix.

Refusals name the input in words, the value given and what is allowed:
"Utilisation is a share from 0 to 1: 70 % is 0.7".
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F
from django.db.models import Q
from django.db.models.functions import Mod
from django.db.models.lookups import Exact
from django.utils.deconstruct import deconstructible

from costmodel.inputs import ApiOption
from costmodel.inputs import BuyOption
from costmodel.inputs import Carbon
from costmodel.inputs import Exchange
from costmodel.inputs import Facility
from costmodel.inputs import Finance
from costmodel.inputs import Goodput
from costmodel.inputs import RentOption
from costmodel.inputs import TokenMix
from costmodel.inputs import Workload
from costmodel.inputs import numeric_field_metadata
from costmodel.inputs import stated_fields
from costmodel.vocabulary import TERMS_SECTIONS
from costmodel.vocabulary import input_term

SECTIONS: Mapping[str, type] = {
    "workload": Workload, "buy": BuyOption, "facility": Facility, "finance": Finance,
    "goodput": Goodput, "carbon": Carbon, "tokens": TokenMix, "rent": RentOption, "api": ApiOption,
    "exchange": Exchange, **TERMS_SECTIONS,
}

# Model field -> the engine input it becomes (tco/services/engine_inputs.py builds them). A buy
# input declared ``stated`` is set by the scenario's field of its own name.
SCENARIO_INPUTS: Mapping[str, str] = {
    **{name: f"buy.{name}" for name in stated_fields(BuyOption)},
    "accelerators": "workload.accelerators",
    "utilisation": "workload.utilisation",
    "hours_per_month": "workload.hours_per_month",
    "tokens_per_s_per_accelerator": "workload.tokens_per_s_per_accelerator",
    "system_price_usd": "buy.system_price_usd",
    "electricity_usd_per_kwh": "facility.electricity_usd_per_kwh",
    "electricity_escalation_per_year": "facility.electricity_escalation_per_year",
    "pue": "facility.pue",
    "colocation_usd_per_kw_month": "facility.colocation_usd_per_kw_month",
    "buildout_capex_usd_per_kw": "facility.owned_buildout_usd_per_kw",
    "buildout_opex_usd_per_kw_month": "facility.owned_opex_usd_per_kw_month",
    "rack_power_limit_kw": "facility.rack_power_limit_kw",
    "rack_units_per_rack": "facility.rack_units_per_rack",
    "horizon_months": "finance.horizon_months",
    "discount_rate_per_year": "finance.discount_rate_per_year",
    "residual_decline_per_year": "buy.residual_decline_per_year",
    "next_generation_launch_month": "buy.next_generation_launch_month",
    "next_generation_value_drop": "buy.next_generation_value_drop",
    "failures_per_accelerator_hour": "goodput.failures_per_accelerator_hour",
    "accelerators_per_job": "goodput.accelerators_per_job",
    "checkpoint_interval_h": "goodput.checkpoint_interval_h",
    # Typed in minutes, the engine's hours / 60: the bounds (at least 0) hold in either unit.
    "checkpoint_cost_min": "goodput.checkpoint_cost_h",
    "restart_h": "goodput.restart_h",
    "grid_kg_co2e_per_kwh": "facility.grid_kg_co2e_per_kwh",
    "embodied_kg_co2e_per_system": "buy.embodied_kg_co2e_per_system",
    "cloud_grid_kg_co2e_per_kwh": "carbon.default_grid_kg_co2e_per_kwh",
    "cloud_pue": "carbon.cloud_pue",
    "carbon_price_usd_per_tonne": "carbon.price_usd_per_tonne",
    "token_input_share": "tokens.input_share",
    "token_cached_input_share": "tokens.cached_input_share",
    "token_output_share": "tokens.output_share",
    # Tax and the leases compared (costmodel/tax.py, costmodel/payment.py).
    "tax_rate": "tax.rate",
    "tax_depreciation_months": "tax.life_months",
    "declining_balance_factor": "tax.declining_balance_factor",
    "finance_lease_usd_per_month": "finance_lease.payment_per_month",
    "finance_lease_term_months": "finance_lease.term_months",
    "finance_lease_buyout_usd": "finance_lease.buyout",
    "operating_lease_usd_per_month": "operating_lease.payment_per_month",
    "operating_lease_term_months": "operating_lease.term_months",
}
RENT_OPTION_INPUTS: Mapping[str, str] = {
    "price_usd_per_instance_hour": "rent.price_usd_per_instance_hour",
    "equivalence_factor": "rent.equivalence_factor",
    "commitment_months": "rent.commitment_months",
    "upfront_usd": "rent.upfront_usd_per_instance",
    "spot_interruption_overhead": "rent.spot_interruption_overhead",
    "egress_tb_per_month": "rent.egress_tb_per_month",
    "egress_usd_per_gb": "rent.egress_usd_per_gb",
    "storage_tb": "rent.storage_tb",
    "storage_usd_per_gb_month": "rent.storage_usd_per_gb_month",
    "price_change_per_year": "rent.price_change_per_year",
    "spot_interruptions_per_hour": "rent.spot_interruptions_per_hour",
    "grid_kg_co2e_per_kwh": "rent.grid_kg_co2e_per_kwh",
}
API_OPTION_INPUTS: Mapping[str, str] = {
    "usd_per_million_input": "api.usd_per_million_input",
    "usd_per_million_cached_input": "api.usd_per_million_cached_input",
    "usd_per_million_output": "api.usd_per_million_output",
    "price_change_per_year": "api.price_change_per_year",
    "minimum_usd_per_month": "api.minimum_usd_per_month",
    "rate_limit_tokens_per_month": "api.rate_limit_tokens_per_month",
}
# Inputs with no bounds of their own (a curve), by the field that sets them.
UNBOUNDED_INPUTS: Mapping[str, str] = {"residual_curve": "buy.residual_curve"}
# The inverse, derived: the field to name when the engine refuses an input. A check on the whole
# token mix (its shares add up to 1) names the share people set last.
FIELD_OF_INPUT: Mapping[str, str] = {
    **{path: field for field, path in (*SCENARIO_INPUTS.items(), *UNBOUNDED_INPUTS.items())},
    "tokens": "token_output_share",
}
OPTION_FIELDS: Mapping[str, tuple[str, Mapping[str, str]]] = {
    "rent": ("rent_options", {path.split(".")[1]: field for field, path in RENT_OPTION_INPUTS.items()}),
    "api": ("api_options", {path.split(".")[1]: field for field, path in API_OPTION_INPUTS.items()}),
}
OPTION_PATH = re.compile(r"^(rent|api)\.(\d+)\.(\w+)$")


def field_for(path: str) -> str:
    """The scenario field behind an engine input path: ``facility.pue`` -> ``pue``,
    ``rent.0.upfront_usd_per_instance`` -> ``rent_options[0].upfront_usd``."""
    option = OPTION_PATH.match(path)
    if option:
        kind, index, name = option.groups()
        options, fields = OPTION_FIELDS[kind]
        return f"{options}[{index}].{fields.get(name, name)}"
    return FIELD_OF_INPUT.get(path, path)


@dataclass(frozen=True)
class Bounds:
    """What one engine input accepts, as a person types it (a rate at most 1)."""

    path: str
    low: float
    high: float
    low_open: bool
    high_open: bool
    rate: bool
    step: float = 0.0

    @classmethod
    def of(cls, path: str) -> Bounds:
        section, name = path.split(".")
        meta = numeric_field_metadata(SECTIONS[section])[name]
        rate = bool(meta.get("rate"))
        high, high_open = meta["high"], meta["high_open"]
        if rate and high > 1:
            high, high_open = 1.0, False
        return cls(path, meta["low"], high, meta["low_open"], high_open, rate, meta["step"])

    @property
    def label(self) -> str:
        """The input's words: 'Utilisation', 'Instance price change' (any rent option's)."""
        section, name = self.path.split(".")
        return input_term(f"{section}.0.{name}" if section in ("rent", "api") else self.path).label

    def admits(self, value: float) -> bool:
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below and not (self.step and value % self.step)

    def allowed(self) -> str:
        """'from 0 to 1', 'at least 1', 'more than 0', 'from 1 to 240', 'above -1 and at most 1'."""
        low = f"{'more than' if self.low_open else 'at least'} {self.low:g}"
        steps = f" in whole multiples of {self.step:g}" if self.step else ""
        if math.isinf(self.high):
            return low + steps
        high = f"{'less than' if self.high_open else 'at most'} {self.high:g}"
        if not (self.low_open or self.high_open):
            return f"from {self.low:g} to {self.high:g}{steps}"
        return f"{low} and {high}{steps}"

    def refusal(self, value: float) -> str:
        """Why ``value`` is refused, in words, with what is allowed."""
        given = f"{value:g}"
        as_percent = self.high == 1 and 1 < value <= 100
        if self.low == 0 and self.high == 1 and not self.rate:
            head = f"{self.label} is a share {self.allowed()}"
            return f"{head}: {given} % is {value / 100:g}" if as_percent else f"{head}, not {given}"
        if self.step and self.admits(math.ceil(value / self.step) * self.step):
            return (f"{self.label} must be a whole multiple of {self.step:g} ({self.step:g}, "
                    f"{2 * self.step:g}, ...), not {given}")
        if as_percent:
            return (f"{given} looks like a percent: {given} % is {value / 100:g} "
                    f"({self.label} is {self.allowed()})")
        return f"{self.label} must be {self.allowed()}, not {given}"

    def condition(self, field: str) -> Q:
        """The check constraint's condition on ``field`` (empty passes: NOT NULL is the column's)."""
        within = Q(**{f"{field}__{'gt' if self.low_open else 'gte'}": _decimal(self.low)})
        if math.isfinite(self.high):
            within &= Q(**{f"{field}__{'lt' if self.high_open else 'lte'}": _decimal(self.high)})
        if self.step:
            within &= Exact(Mod(F(field), _decimal(self.step)), 0)
        return Q(**{f"{field}__isnull": True}) | within


def _decimal(value: float) -> Decimal | int:
    return int(value) if value == int(value) else Decimal(repr(value))


@deconstructible
class WithinBounds:
    """A model field validator: the value lies within its engine input's bounds."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __call__(self, value: Any) -> None:
        if value is None:
            return
        number = float(value)
        bounds = Bounds.of(self.path)
        if not bounds.admits(number):
            raise ValidationError(bounds.refusal(number), code="out_of_bounds")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WithinBounds) and other.path == self.path

    def __hash__(self) -> int:
        return hash(self.path)


def bounds_constraints(prefix: str, inputs: Mapping[str, str]) -> list[models.CheckConstraint]:
    """One check constraint per bounded field, named ``<prefix>_<field>_bounds``, whose
    violation message says what is allowed in words."""
    return [models.CheckConstraint(condition=Bounds.of(path).condition(field),
                                   name=f"{prefix}_{field}_bounds",
                                   violation_error_message=f"{Bounds.of(path).label} must be "
                                                           f"{Bounds.of(path).allowed()}.")
            for field, path in inputs.items()]


def bound_fields(model: type[models.Model], inputs: Mapping[str, str]) -> None:
    """Give each mapped field of ``model`` its ``WithinBounds`` validator (run by full_clean,
    the admin's forms and the API's model serializers, which copy model validators) and, where
    the field says nothing of its own, the input's declared help text."""
    for name, path in inputs.items():
        field = model._meta.get_field(name)
        field._validators = [*field._validators, WithinBounds(path)]
        if not field.help_text:
            field.help_text = declared_help(path)


def declared_help(path: str) -> str:
    """The help text declared with the engine input (``numeric(help=...)``), "" when none."""
    section, name = path.split(".")
    return numeric_field_metadata(SECTIONS[section])[name]["help"]
