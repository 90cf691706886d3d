"""Sizing results: arrays that broadcast like the inputs, each with the assumptions behind it.

Every result is a frozen dataclass with ``to_dict()`` giving plain JSON types
(arrays become nested lists, NaN and infinity ``None``, enums their value), and an
``assumptions`` list so that the UI and reports can show every figure a result
rests on.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import fields
from dataclasses import is_dataclass
from enum import Enum
from typing import Any
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from costmodel.figures import finite_or_none
from costmodel.inputs import Numeric


def as_output(value: Any) -> Any:
    """Return a NumPy scalar for a 0-d result and the array otherwise (scalar in, scalar out)."""
    array = np.asarray(value)
    return array[()] if array.ndim == 0 else array


def as_figure(value: ArrayLike) -> Numeric:
    """``as_output`` of a float result, typed as one (NumPy's operators type their results Any)."""
    return cast(Numeric, as_output(value))


def jsonable(value: Any) -> Any:
    """Convert a result value to JSON types: lists for arrays, values for enums, and None for
    NaN ("no answer") and infinity ("no limit"), which JSON cannot carry."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, float):
        return finite_or_none(value)
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    return value


@dataclass(frozen=True)
class Assumption:
    """One figure a result rests on: its name, value, unit and where it comes from."""

    name: str
    value: Any
    unit: str
    source: str

    @classmethod
    def given(cls, name: str, value: Any, unit: str, source: str = "") -> Assumption:
        """A figure the caller gave: cited by its ``source`` when one is stated, else as "input"."""
        return cls(name, value, unit, source or "input")


class SizingResult:
    """Base of sizing results: adds a JSON-ready ``to_dict``."""

    def to_dict(self) -> dict[str, Any]:
        """Return the result as plain JSON types (lists, floats, strings, None)."""
        return cast(dict[str, Any], jsonable(self))  # a dataclass is converted to a dict


@dataclass(frozen=True)
class MemoryBreakdown(SizingResult):
    """Memory of one model copy (a training replica or a serving replica), by component [GB]."""

    weights_gb: Numeric
    master_weights_gb: Numeric
    gradients_gb: Numeric
    optimizer_states_gb: Numeric
    activations_gb: Numeric
    kv_cache_gb: Numeric
    total_gb: Numeric


@dataclass(frozen=True)
class FitResult(SizingResult):
    """The fewest accelerators that hold a model, the layout that implies, or why none does.

    ``accelerators`` is NaN where ``fits`` is False; ``accelerators_required``
    still says how many a layout would need when only a limit was exceeded.
    """

    fits: Any
    reason: Any
    accelerators: Numeric
    accelerators_required: Numeric
    tensor_parallel: Numeric
    pipeline_parallel: Numeric
    data_parallel: Numeric
    layout: Any
    per_device_memory_gb: Numeric
    usable_memory_per_device_gb: Numeric
    memory: MemoryBreakdown
    assumptions: list[Assumption]


@dataclass(frozen=True)
class TrainingSizing(SizingResult):
    """Accelerators and wall-clock time for a training run, with the memory fit behind them."""

    fits: Any
    reason: Any
    accelerators: Numeric
    per_device_memory_gb: Numeric
    training_flops: Numeric
    scaling_efficiency: Numeric
    time_s: Numeric
    time_days: Numeric
    accelerator_hours: Numeric
    fit: FitResult
    assumptions: list[Assumption]


@dataclass(frozen=True)
class InferenceSizing(SizingResult):
    """Replicas and accelerators to serve a token rate, their throughput with its range, and what
    a million output tokens costs at each end of it (None without a price).

    ``basis`` says whether the throughput is the calibrated estimate or a stated measurement;
    ``estimate`` is the estimate's detail (a `ThroughputEstimate`: decode and prefill times, the
    bound, the concurrency and its KV-cache limit); ``layout_search`` the layouts tried, the one
    chosen and why (a `LayoutSearch`; None when a measured figure is stated or inputs are
    arrays).
    """

    fits: Any
    reason: Any
    basis: Any
    accelerators_per_replica: Numeric
    replicas: Numeric
    accelerators: Numeric
    capacity_tokens_per_s: Numeric
    tokens_per_s_per_accelerator: Numeric
    tokens_per_s_per_accelerator_low: Numeric
    tokens_per_s_per_accelerator_high: Numeric
    cost_usd_per_million_tokens: Numeric | None
    cost_usd_per_million_tokens_low: Numeric | None
    cost_usd_per_million_tokens_high: Numeric | None
    estimate: Any
    fit: FitResult
    assumptions: list[Assumption]
    layout_search: Any = None
