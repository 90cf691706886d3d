"""Shipped example per-token API prices, labelled as examples, so the comparison can be tried.

They are round figures of the order of 2026 list prices, not any provider's price list:
replace them with the prices your provider quotes (a TokenApiPrice row with its own source).
"""
from __future__ import annotations

import datetime
from decimal import Decimal

SOURCE = {
    "key": "example-token-api-prices",
    "title": "Shipped examples of per-token API prices (illustrative, not quotes)",
    "kind": "assumption",
    "published_on": datetime.date(2026, 11, 1),
    "note": "Round figures to try the comparison out; replace them with quoted prices.",
}
AS_OF = datetime.date(2026, 11, 1)
# (provider, model, USD per million input, cached-input and output tokens)
EXAMPLES = (
    ("Example API", "large model", Decimal("3"), Decimal("0.3"), Decimal("15")),
    ("Example API", "small model", Decimal("0.15"), Decimal("0.075"), Decimal("0.6")),
)
