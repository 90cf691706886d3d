"""Dotted-path access to numeric inputs, for sweeps, Monte Carlo and sensitivity.

Paths name a section and a field: ``workload.utilisation``,
``facility.electricity_usd_per_kwh``, ``finance.horizon_months``. Rent options
and cooling tiers add an index or a name: ``rent.0.price_usd_per_instance_hour``
or ``rent.aws-3y.price_usd_per_instance_hour``, ``cooling.2.capex_usd_per_kw``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from costmodel.inputs import InputError
from costmodel.inputs import Numeric
from costmodel.inputs import Scenario
from costmodel.inputs import batch_shape
from costmodel.inputs import input_sections
from costmodel.inputs import numeric_field_metadata
from costmodel.inputs import numeric_fields

_SINGLE_SECTIONS = ("workload", "buy", "facility", "finance", "goodput", "carbon", "tokens", "exchange")
_LIST_SECTIONS = ("rent", "cooling", "api")


def numeric_input_paths(inputs: Scenario) -> list[str]:
    """Dotted paths of every numeric input of a scenario, in declaration order.

    Examples
    --------
    ``["workload.accelerators", ..., "rent.0.price_usd_per_instance_hour", ...]``
    """
    return [
        f"{prefix}.{name}"
        for prefix, section in input_sections(inputs)
        for name, _, _ in numeric_fields(section)
    ]


def get_input(inputs: Scenario, path: str) -> Numeric:
    """Value of the numeric input at ``path``."""
    section, _, name = _locate(inputs, path)
    value: Numeric = getattr(section, name)
    return value


def input_metadata(inputs: Scenario, path: str) -> dict[str, Any]:
    """Valid range and flags of the numeric input at ``path`` (see ``inputs.numeric``)."""
    section, _, name = _locate(inputs, path)
    cls: type = type(section)  # mypy takes type(x) for unhashable (python/mypy#11470)
    return dict(numeric_field_metadata(cls)[name])


def with_overrides(inputs: Scenario, overrides: Mapping[str, ArrayLike]) -> Scenario:
    """A copy of the scenario with numeric inputs replaced by floats or arrays.

    Parameters
    ----------
    inputs : Scenario
        Base scenario; not modified.
    overrides : mapping of str to numeric
        Dotted path -> new value; arrays broadcast with each other and with the
        other inputs (put each sweep axis on its own dimension).
    """
    changes: dict[tuple[str, int | None], tuple[Any, dict[str, Numeric]]] = {}
    for path, value in overrides.items():
        section, where, name = _locate(inputs, path)
        changes.setdefault(where, (section, {}))[1][name] = _as_numeric(value)
    result = inputs
    for where, (section, values) in changes.items():
        result = _put_section(result, where, replace(section, **values))
    return result


def batch_slice(inputs: Scenario, index: slice) -> Scenario:
    """The scenarios ``index`` selects along the first batch axis (for chunked sweeps).

    Arrays that broadcast along that axis (size 1, or fewer dimensions) are kept whole.
    """
    shape = batch_shape(inputs)
    if not shape:
        raise ValueError("a single scenario has no batch axis to slice")
    overrides = {}
    for prefix, section in input_sections(inputs):
        for name, value, _ in numeric_fields(section):
            if np.ndim(value) == len(shape) and np.shape(value)[0] != 1:
                overrides[f"{prefix}.{name}"] = np.asarray(value)[index]
    return with_overrides(inputs, overrides)


def _as_numeric(value: ArrayLike) -> Numeric:
    array = np.asarray(value, dtype=np.float64)
    return float(array) if array.ndim == 0 else array


def at_moved_rates(inputs: Scenario) -> Scenario:
    """The inputs with every money figure given in another currency scaled by the exchange-rate
    move (``Exchange``); unchanged when the rates are as stated or nothing was converted.

    >>> from costmodel.examples import flat_scenario
    >>> from costmodel.inputs import Exchange
    >>> case = replace(flat_scenario(), exchange=Exchange(1.1, ("buy.system_price_usd",)))
    >>> moved = at_moved_rates(case)
    >>> round(moved.buy.system_price_usd, 6), moved.facility == case.facility
    (330000.0, True)
    """
    change, converted = inputs.exchange.rate_change, inputs.exchange.converted
    if not converted or (isinstance(change, float) and change == 1.0):
        return inputs
    return with_overrides(inputs, {path: np.multiply(get_input(inputs, path), change)
                                   for path in converted})


def _locate(inputs: Scenario, path: str) -> tuple[Any, tuple[str, int | None], str]:
    """(section dataclass, (section name, list index or None), field name) for a path."""
    parts = path.split(".")
    if len(parts) == 2 and parts[0] in _SINGLE_SECTIONS:
        section_name, name = parts
        section, position = getattr(inputs, section_name), None
    elif len(parts) == 3 and parts[0] in _LIST_SECTIONS:
        section_name, key, name = parts
        items = getattr(inputs, section_name)
        position = _position(items, key, path)
        section = items[position]
    else:
        raise InputError(path, "unknown input path")
    cls: type = type(section)  # mypy takes type(x) for unhashable (python/mypy#11470)
    if name not in numeric_field_metadata(cls):
        raise InputError(path, "not a numeric input")
    return section, (section_name, position), name


def _position(items: tuple[Any, ...], key: str, path: str) -> int:
    if key.isdigit() and int(key) < len(items):
        return int(key)
    for position, item in enumerate(items):
        if item.name == key:
            return position
    raise InputError(path, f"no item {key!r}")


def _put_section(inputs: Scenario, where: tuple[str, int | None], section: Any) -> Scenario:
    section_name, position = where
    if position is None:
        return replace(inputs, **{section_name: section})
    items = list(getattr(inputs, section_name))
    items[position] = section
    changes: dict[str, Any] = {section_name: tuple(items)}  # a field named at run time
    return replace(inputs, **changes)
