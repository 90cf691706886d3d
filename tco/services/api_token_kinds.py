"""Each per-token API priced at the very tokens the self-hosted fleet produces, kind by kind.

The fleet produces the workload's tokens a month (useful accelerator-hours x tokens/s x 3,600);
the scenario's token mix splits them into input, cached input and output tokens. Each API's
bill for the same month is the sum, over the three kinds, of tokens x that kind's price: the
like-for-like figure beside the fleet's cost per million tokens. Prices are the first year's,
in the reporting currency (the engine's ``usd`` names mean it).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import costmodel as engine
from costmodel.figures import item
from costmodel.metrics import TOKENS_PER_MILLION

KINDS = (("input", "input_share", "usd_per_million_input"),
         ("cached input", "cached_input_share", "usd_per_million_cached_input"),
         ("output", "output_share", "usd_per_million_output"))


@dataclass(frozen=True)
class KindCost:
    """One kind of token: how many the fleet produces a month, the API's price and its bill."""

    kind: str
    tokens_per_month: float
    price_per_million: float
    cost_per_month: float


@dataclass(frozen=True)
class ApiAtFleetTokens:
    """One API's bill for the fleet's month of tokens, kind by kind, and in total."""

    api: str
    kinds: tuple[KindCost, ...]

    @property
    def cost_per_month(self) -> float:
        return sum(kind.cost_per_month for kind in self.kinds)

    def to_dict(self, currency: str) -> dict[str, object]:
        return {"api": self.api, "currency": currency,
                "cost_per_month": round(self.cost_per_month, 2),
                "kinds": [{"kind": k.kind, "tokens_per_month": k.tokens_per_month,
                           "price_per_million": k.price_per_million,
                           "cost_per_month": round(k.cost_per_month, 2)} for k in self.kinds]}


def api_at_fleet_tokens(inputs: engine.Scenario,
                        result: engine.Result) -> tuple[ApiAtFleetTokens, ...]:
    """Each API option of ``inputs`` at the fleet's tokens a month; none when the workload
    produces no tokens (no throughput given)."""
    tokens = float(item(result.tokens_per_month))
    if not inputs.api or math.isnan(tokens):
        return ()
    rows = []
    for option in inputs.api:
        kinds = []
        for kind, share_name, price_name in KINDS:
            count = tokens * float(item(getattr(inputs.tokens, share_name)))
            price = float(item(getattr(option, price_name)))
            kinds.append(KindCost(kind, count, price, count / TOKENS_PER_MILLION * price))
        rows.append(ApiAtFleetTokens(option.name, tuple(kinds)))
    return tuple(rows)
