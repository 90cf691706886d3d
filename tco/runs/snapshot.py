"""Engine inputs to JSON and back, so a run keeps the inputs it started with.

Chunks evaluate this snapshot, not the scenario row, so editing the scenario (or the catalog)
while a run is under way cannot mix two versions of it in one result. PostgreSQL's jsonb has
no NaN or infinity, so those floats are stored as the strings "nan", "inf" and "-inf".
"""
from __future__ import annotations

import math
from dataclasses import asdict
from dataclasses import fields
from typing import Any

import costmodel as engine

_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def scenario_to_json(inputs: engine.Scenario) -> dict[str, Any]:
    """JSON-ready copy of a single (scalar) engine scenario."""
    if engine.batch_shape(inputs) != ():
        raise ValueError("only a single scenario (scalar inputs) can be snapshotted")
    return _encode(asdict(inputs))


def scenario_from_json(data: dict[str, Any]) -> engine.Scenario:
    """The engine scenario ``scenario_to_json`` stored."""

    def build(cls: type, values: dict[str, Any] | None) -> Any:
        if values is None:  # a snapshot taken before the section existed: its defaults
            return cls()
        return cls(**{
            f.name: _decode(values[f.name]) if f.metadata.get("numeric") else _plain(values[f.name])
            for f in fields(cls) if f.name in values
        })

    return engine.Scenario(
        workload=build(engine.Workload, data["workload"]),
        buy=build(engine.BuyOption, data["buy"]),
        facility=build(engine.Facility, data["facility"]),
        cooling=tuple(build(engine.CoolingTier, tier) for tier in data["cooling"]),
        rent=tuple(build(engine.RentOption, option) for option in data["rent"]),
        finance=build(engine.Finance, data["finance"]),
        goodput=build(engine.Goodput, data.get("goodput")),
        carbon=build(engine.Carbon, data.get("carbon")),
        tokens=build(engine.TokenMix, data.get("tokens")),
        api=tuple(build(engine.ApiOption, option) for option in data.get("api", [])),
        exchange=build(engine.Exchange, data.get("exchange")),
    )


def _encode(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _encode(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_encode(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, str):
        return str(value)  # a StrEnum (pricing model) as its plain value
    return value


def _plain(value: Any) -> Any:
    """Lists (the resale curve's points) back as the tuples the engine's inputs hold."""
    return tuple(_plain(item) for item in value) if isinstance(value, list) else value


def _decode(value: Any) -> Any:
    return _NON_FINITE[value] if isinstance(value, str) else value
