"""Money in more than one currency: dated exchange rates and exact conversion (Decimal).

A rate says what one unit of ``base`` is worth in ``quote`` on a day, as the European Central
Bank publishes its euro reference rates (1 EUR = 1.1172 USD on 2026-10-30). A figure is
converted at the newest rate on or before its date: directly, through the inverse of the
pair, or through a currency both are quoted against (the ECB quotes everything against the
euro, so USD -> GBP goes USD -> EUR -> GBP on the same day). Amounts stay Decimal here; the
caller turns the converted figure into the engine's float.
"""
from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal


@dataclass(frozen=True)
class Rate:
    """One unit of ``base`` is worth ``rate`` units of ``quote`` on ``on`` (``source`` says who
    said so; ``id`` is the stored row's, when there is one)."""

    base: str
    quote: str
    rate: Decimal
    on: date
    source: str
    id: int | None = None

    def describe(self) -> str:
        """'1 EUR = 1.1172 USD on 2026-10-30 (ECB euro reference rates)'."""
        return f"1 {self.base} = {self.rate} {self.quote} on {self.on} ({self.source})"


@dataclass(frozen=True)
class Conversion:
    """An amount converted: the figure given, the figure in ``currency``, the factor between
    them and the rates it took (none when the currencies are the same)."""

    given: Decimal
    given_currency: str
    amount: Decimal
    currency: str
    factor: Decimal
    rates: tuple[Rate, ...]
    on: date

    def describe(self) -> str:
        """'EUR 250,000.00 at 1.1172 USD/EUR (1 EUR = 1.1172 USD on 2026-10-30 (ECB ...))'."""
        if not self.rates:
            return ""
        return (f"{self.given_currency} {self.given:,.2f} at {_plain(self.factor)} "
                f"{self.currency}/{self.given_currency} ("
                + "; ".join(rate.describe() for rate in self.rates) + ")")


class NoRate(LookupError):
    """No usable rate converts one currency into another on a date; the message says why."""


class RateBook:
    """Dated rates, looked up by pair: the newest on or before a date, within ``max_age_days``.

    Rows earlier in ``rates`` win a tie on the same pair and day (a team's own rate before the
    public feed's).
    """

    def __init__(self, rates: Iterable[Rate], *, max_age_days: int | None = None) -> None:
        self.max_age_days = max_age_days
        by_pair: dict[tuple[str, str], dict[date, Rate]] = defaultdict(dict)
        for rate in rates:
            by_pair[(rate.base, rate.quote)].setdefault(rate.on, rate)
        self._dates = {pair: sorted(rows) for pair, rows in by_pair.items()}
        self._rows = dict(by_pair)

    def currencies(self) -> set[str]:
        return {code for pair in self._rows for code in pair}

    def newest(self, base: str, quote: str, on: date) -> Rate | None:
        """The newest rate of exactly this pair on or before ``on`` (None when there is none)."""
        dates = self._dates.get((base, quote))
        if not dates:
            return None
        index = bisect.bisect_right(dates, on)
        return None if index == 0 else self._rows[(base, quote)][dates[index - 1]]

    def convert(self, amount: Decimal, given: str, wanted: str, on: date) -> Conversion:
        """``amount`` in ``given`` expressed in ``wanted`` at the rates of ``on``.

        Raises NoRate naming the pair, the date and, when an older rate exists beyond
        ``max_age_days``, its date.
        """
        amount = Decimal(amount)
        if given == wanted:
            return Conversion(amount, given, amount, wanted, Decimal(1), (), on)
        factor, rates = self._factor(given, wanted, on)
        return Conversion(amount, given, amount * factor, wanted, factor, rates, on)

    def _factor(self, given: str, wanted: str, on: date) -> tuple[Decimal, tuple[Rate, ...]]:
        direct = self._leg(given, wanted, on)
        if direct is not None:
            return direct
        pivots = sorted(self.currencies() - {given, wanted}, key=lambda code: code != "EUR")
        for pivot in pivots:
            first, second = self._leg(given, pivot, on), self._leg(pivot, wanted, on)
            if first is not None and second is not None:
                return first[0] * second[0], first[1] + second[1]
        raise NoRate(self._why_none(given, wanted, on))

    def _leg(self, given: str, wanted: str, on: date) -> tuple[Decimal, tuple[Rate, ...]] | None:
        """The factor from ``given`` to ``wanted`` by one stored pair (either way round)."""
        candidates = [(rate, inverse) for rate, inverse in (
            (self.newest(given, wanted, on), False), (self.newest(wanted, given, on), True))
            if rate is not None and self._fresh(rate, on)]
        if not candidates:
            return None
        rate, inverse = max(candidates, key=lambda pair: pair[0].on)
        return (Decimal(1) / rate.rate if inverse else rate.rate), (rate,)

    def _fresh(self, rate: Rate, on: date) -> bool:
        return self.max_age_days is None or (on - rate.on).days <= self.max_age_days

    def _why_none(self, given: str, wanted: str, on: date) -> str:
        older = [rate for code in self.currencies() for rate in (
            self.newest(given, code, on), self.newest(code, given, on),
            self.newest(wanted, code, on), self.newest(code, wanted, on)) if rate is not None]
        if older and self.max_age_days is not None:
            newest = max(rate.on for rate in older)
            return (f"no {given}/{wanted} rate within {self.max_age_days} days before {on} "
                    f"(the newest is of {newest}); add a rate for that date or state the "
                    "scenario's rate date")
        return (f"no {given}/{wanted} rate on or before {on}; add a rate with its source, or "
                "refresh the ECB reference rates")


def _plain(value: Decimal) -> str:
    """A factor to 12 significant digits, without trailing zeros: 1.1172, 0.895094880057."""
    return f"{value:.12g}"
