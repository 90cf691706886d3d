"""Approval pins the numbers: an approved scenario is evaluated with the inputs it was signed on.

Approving evaluates the scenario once more and keeps, in its approval snapshot, every engine
input with its value and provenance, the cooling tiers and the price points used. From then on
the approved version is evaluated on those: its own fields cannot change (it is frozen) and
whatever the catalog says later (a newer price, a price added with an earlier date, a corrected
power figure) does not reach the signed answer. The same scenario at today's catalog prices is
evaluated beside it (tco/services/evaluation.py) for the reader to compare.
"""
from __future__ import annotations

import math
from dataclasses import asdict
from dataclasses import replace
from datetime import date
from decimal import Decimal
from typing import Any

import costmodel as engine
from costmodel.currency import Rate
from costmodel.payment import Lease
from tco.models import Scenario
from tco.models import ScenarioSnapshot
from tco.models import SnapshotReason
from tco.services.engine_inputs import Assumption
from tco.services.engine_inputs import EngineCase
from tco.services.engine_inputs import EvaluationWarning
from tco.services.engine_inputs import PriceUsed


def approval_snapshot(scenario: Scenario) -> ScenarioSnapshot | None:
    """The snapshot that pins an approved scenario's inputs; None for a draft (or an unsaved one)."""
    if scenario.pk is None or not scenario.is_approved:
        return None
    return (ScenarioSnapshot.objects.filter(scenario_id=scenario.pk, reason=SnapshotReason.APPROVED,
                                            pinned__isnull=False)
            .order_by("-created_at", "-id").first())


def pin_of(inputs: engine.Scenario, assumptions: tuple[Assumption, ...],
           warnings: tuple[EvaluationWarning, ...], *, currency: str = "USD",
           rates: tuple[Rate, ...] = (),
           leases: tuple[Lease | None, Lease | None] = (None, None)) -> dict[str, Any]:
    """What an approval pins (JSON-ready): every input as evaluated (money already in the
    reporting currency), the cooling tiers, the warnings that came from the catalog, the
    reporting currency and the exchange rates the money was converted at."""
    return {
        "currency": currency,
        "leases": [None if lease is None else asdict(lease) for lease in leases],
        "rates": [{**asdict(rate), "rate": str(rate.rate), "on": rate.on.isoformat()}
                  for rate in rates],
        "converted": list(inputs.exchange.converted),
        "assumptions": [{**asdict(a), "value": _number(a.value),
                         "as_of": None if a.as_of is None else a.as_of.isoformat()}
                        for a in assumptions],
        "cooling": [{name: _number(value) if name != "name" else value
                     for name, value in asdict(tier).items()} for tier in inputs.cooling],
        "warnings": [asdict(warning) for warning in warnings],
    }


def pinned_case(case: EngineCase, snapshot: ScenarioSnapshot) -> EngineCase:
    """The case with every input, source, price and catalog warning as they were at approval.

    ``case`` gives the shape (the scenario's rent and API options, in order; they cannot change
    once approved); every value comes from the snapshot.
    """
    pin = snapshot.pinned
    cooling = tuple(engine.CoolingTier(**{name: value if name == "name" else _float(value)
                                          for name, value in tier.items()})
                    for tier in pin["cooling"])
    rows = [row for row in pin["assumptions"] if not row["path"].startswith("cooling.")]
    exchange = engine.Exchange(converted=tuple(pin.get("converted", ())))
    inputs = engine.with_overrides(replace(case.inputs, cooling=cooling, exchange=exchange),
                                   {row["path"]: _float(row["value"]) for row in rows})
    assumptions = tuple(
        Assumption(row["path"], _float(row["value"]), row["unit"], row["origin"], row["source"],
                   None if row["as_of"] is None else date.fromisoformat(row["as_of"]),
                   tuple(row["source_keys"]))
        for row in pin["assumptions"])
    prices = tuple(PriceUsed(row["price_point_id"], row["target"], Decimal(row["amount"]),
                             row["currency"], date.fromisoformat(row["as_of"]), row["source"],
                             row.get("path", ""),
                             row.get("checked_on") and date.fromisoformat(row["checked_on"]))
                   for row in snapshot.prices)
    warnings = tuple(EvaluationWarning(**row) for row in pin["warnings"])
    rates = tuple(Rate(**{**row, "rate": Decimal(row["rate"]), "on": date.fromisoformat(row["on"])})
                  for row in pin.get("rates", ()))
    # Pinned before currencies existed: the figures were US dollars.
    leases = tuple(None if row is None else Lease(**row)
                   for row in pin.get("leases", (None, None)))
    return EngineCase(inputs, assumptions, prices, case.sizing, warnings,
                      pin.get("currency", "USD"), rates, leases)


def _number(value: float) -> float | str | None:
    """A float as JSON keeps it: NaN as null, infinities as text."""
    if math.isnan(value):
        return None
    return repr(value) if math.isinf(value) else value


def _float(value: float | str | None) -> float:
    return math.nan if value is None else float(value)
