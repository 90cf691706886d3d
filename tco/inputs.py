"""Each scenario field's bounds, read from the engine input it feeds: declared once, there.

The engine's input metadata (``numeric(low=..., high=..., rate=...)`` in costmodel/inputs.py)
says what each input accepts. The model fields' validators (``WithinBounds``), hence the admin
forms and the API's serializers, and the database's check constraints (``bounds_constraints``)
all follow from it, through the field -> engine input mapping below. A field that is a share or
a yearly rate (``rate`` in the metadata) is also refused above 1: 8 there is most likely 8 %.

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
from django.db.models import Q
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
from costmodel.vocabulary import input_term

SECTIONS: Mapping[str, type] = {
    "workload": Workload, "buy": BuyOption, "facility": Facility, "finance": Finance,
    "goodput": Goodput, "carbon": Carbon, "tokens": TokenMix, "rent": RentOption, "api": ApiOption,
    "exchange": Exchange,
}

# Model field -> the engine input it becomes (tco/services/engine_inputs.py builds them).
SCENARIO_INPUTS: Mapping[str, str] = {
    "accelerators": "workload.accelerators",
    "utilisation": "workload.utilisation",
    "hours_per_month": "workload.hours_per_month",
    "tokens_per_s_per_accelerator": "workload.tokens_per_s_per_accelerator",
    "system_price_usd": "buy.system_price_usd",
    "network_usd_per_system": "buy.network_usd_per_system",
    "network_share_of_compute": "buy.network_share_of_compute",
    "storage_usd": "buy.storage_usd",
    "racks_install_usd_per_rack": "buy.racks_install_usd_per_rack",
    "spares_share": "buy.spares_share",
    "power_cap_share": "buy.power_cap_share",
    "power_cap_throughput_loss": "buy.power_cap_throughput_loss",
    "support_share_per_year": "buy.support_share_per_year",
    "staff_fte_per_system": "buy.staff_fte_per_system",
    "staff_usd_per_fte_year": "buy.staff_usd_per_fte_year",
    "licence_usd_per_accelerator_year": "buy.licence_usd_per_accelerator_year",
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
    "depreciation_months": "buy.depreciation_months",
    "residual_value_share": "buy.residual_value_share",
    "financed_share": "buy.financed_share",
    "loan_rate_per_year": "buy.loan_rate_per_year",
    "loan_term_months": "buy.loan_term_months",
    "residual_decline_per_year": "buy.residual_decline_per_year",
    "next_generation_launch_month": "buy.next_generation_launch_month",
    "next_generation_value_drop": "buy.next_generation_value_drop",
    "failures_per_accelerator_hour": "goodput.failures_per_accelerator_hour",
    "accelerators_per_job": "goodput.accelerators_per_job",
    "checkpoint_interval_h": "goodput.checkpoint_interval_h",
    "checkpoint_cost_h": "goodput.checkpoint_cost_h",
    "restart_h": "goodput.restart_h",
    "grid_kg_co2e_per_kwh": "facility.grid_kg_co2e_per_kwh",
    "embodied_kg_co2e_per_system": "buy.embodied_kg_co2e_per_system",
    "cloud_grid_kg_co2e_per_kwh": "carbon.default_grid_kg_co2e_per_kwh",
    "cloud_pue": "carbon.cloud_pue",
    "carbon_price_usd_per_tonne": "carbon.price_usd_per_tonne",
    "token_input_share": "tokens.input_share",
    "token_cached_input_share": "tokens.cached_input_share",
    "token_output_share": "tokens.output_share",
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

    @classmethod
    def of(cls, path: str) -> Bounds:
        section, name = path.split(".")
        meta = numeric_field_metadata(SECTIONS[section])[name]
        rate = bool(meta.get("rate"))
        high, high_open = meta["high"], meta["high_open"]
        if rate and high > 1:
            high, high_open = 1.0, False
        return cls(path, meta["low"], high, meta["low_open"], high_open, rate)

    @property
    def label(self) -> str:
        """The input's words: 'Utilisation', 'Instance price change' (any rent option's)."""
        section, name = self.path.split(".")
        return input_term(f"{section}.0.{name}" if section in ("rent", "api") else self.path).label

    def admits(self, value: float) -> bool:
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below

    def allowed(self) -> str:
        """'from 0 to 1', 'at least 1', 'more than 0', 'from 1 to 240', 'above -1 and at most 1'."""
        low = f"{'more than' if self.low_open else 'at least'} {self.low:g}"
        if math.isinf(self.high):
            return low
        high = f"{'less than' if self.high_open else 'at most'} {self.high:g}"
        if not (self.low_open or self.high_open):
            return f"from {self.low:g} to {self.high:g}"
        return f"{low} and {high}"

    def refusal(self, value: float) -> str:
        """Why ``value`` is refused, in words, with what is allowed."""
        given = f"{value:g}"
        as_percent = self.high == 1 and 1 < value <= 100
        if self.low == 0 and self.high == 1 and not self.rate:
            head = f"{self.label} is a share {self.allowed()}"
            return f"{head}: {given} % is {value / 100:g}" if as_percent else f"{head}, not {given}"
        if as_percent:
            return (f"{given} looks like a percent: {given} % is {value / 100:g} "
                    f"({self.label} is {self.allowed()})")
        return f"{self.label} must be {self.allowed()}, not {given}"

    def condition(self, field: str) -> Q:
        """The check constraint's condition on ``field`` (empty passes: NOT NULL is the column's)."""
        within = Q(**{f"{field}__{'gt' if self.low_open else 'gte'}": _decimal(self.low)})
        if math.isfinite(self.high):
            within &= Q(**{f"{field}__{'lt' if self.high_open else 'lte'}": _decimal(self.high)})
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
    the admin's forms and the API's model serializers, which copy model validators)."""
    for name, path in inputs.items():
        field = model._meta.get_field(name)
        field._validators = [*field._validators, WithinBounds(path)]
