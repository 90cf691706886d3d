"""Template filters that show a figure in the vocabulary's format (``costmodel.vocabulary``):
``{{ total|usd }}`` -> $1,234.56, ``{{ price|usd_price }}`` -> $3.37, and in a currency named
beside the figure (a template renders after its view returns, outside any ``money_in``):
``{{ total|usd:column.currency }}`` -> EUR 1,234.56,
``{{ month|month }}`` -> 32 or never, ``{{ tonnes|quantity:1 }}`` -> 1,461.4.
None shows as a dash: the figure does not apply."""
from __future__ import annotations

from typing import Any

from django import template

from costmodel.vocabulary import MISSING
from costmodel.vocabulary import Kind
from costmodel.vocabulary import show

register = template.Library()
NONE = MISSING


def _shown(value: Any, kind: Kind, digits: int = 2, currency: str | None = None) -> str:
    return NONE if value is None or value == "" else show(value, kind, digits, currency)


@register.filter
def usd(value: Any, currency: str | None = None) -> str:
    return _shown(value, Kind.USD, currency=currency or None)


@register.filter
def usd_price(value: Any, currency: str | None = None) -> str:
    return _shown(value, Kind.USD_PRICE, currency=currency or None)


@register.filter
def month(value: Any) -> str:
    return show(value, Kind.MONTH)  # None: never breaks even


@register.filter
def count(value: Any) -> str:
    return _shown(value, Kind.COUNT)


@register.filter
def quantity(value: Any, digits: int = 2) -> str:
    return _shown(value, Kind.QUANTITY, int(digits))


@register.filter
def or_missing(value: Any) -> Any:
    """The value, or the one missing-value mark when there is none."""
    return NONE if value is None or value == "" else value


@register.simple_tag
def missing() -> str:
    """The one missing-value mark (``costmodel.vocabulary.MISSING``)."""
    return NONE
