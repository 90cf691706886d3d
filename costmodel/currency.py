"""Money in more than one currency: dated exchange rates and exact conversion (Decimal).

A rate says what one unit of ``base`` is worth in ``quote`` on a day, as the European Central
Bank publishes its euro reference rates (1 EUR = 1.1172 USD on 2026-10-30). A figure is
converted at the newest rate on or before its date, however old (a rate older than the
book's tolerance is used all the same and named in a warning, so an offline machine or a
day after the last refresh never blocks a scenario): directly, through the inverse of the
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
    """Dated rates, looked up by pair: the newest on or before a date. A rate older than
    ``tolerance_days`` before the date is used all the same; ``too_old`` names it.

    Rows earlier in ``rates`` win a tie on the same pair and day (a team's own rate before the
    public feed's).
    """

    def __init__(self, rates: Iterable[Rate], *, tolerance_days: int | None = None) -> None:
        self._tolerance_days = tolerance_days
        by_pair: dict[tuple[str, str], dict[date, Rate]] = defaultdict(dict)
        for rate in rates:
            by_pair[(rate.base, rate.quote)].setdefault(rate.on, rate)
        self._dates = {pair: sorted(rows) for pair, rows in by_pair.items()}
        self._rows = dict(by_pair)

    @property
    def tolerance_days(self) -> int | None:
        """How old a rate may be before its use is flagged [days]; None = never flagged."""
        return self._tolerance_days

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
        """``amount`` in ``given`` expressed in ``wanted`` at the newest rates on or before ``on``.

        Raises NoRate, naming the pair and the date, only when no rate is that old.
        """
        amount = Decimal(amount)
        if given == wanted:
            return Conversion(amount, given, amount, wanted, Decimal(1), (), on)
        factor, rates = self._factor(given, wanted, on)
        return Conversion(amount, given, amount * factor, wanted, factor, rates, on)

    def too_old(self, conversion: Conversion) -> tuple[Rate, ...]:
        """The rates of ``conversion`` older than the tolerance before its date."""
        tolerance = self.tolerance_days
        if tolerance is None:
            return ()
        return tuple(rate for rate in conversion.rates if (conversion.on - rate.on).days > tolerance)

    def age_warning(self, rate: Rate, on: date) -> str:
        """Why a rate used for ``on`` deserves a look: its age against the tolerance."""
        return (f"The newest {rate.base}/{rate.quote} rate on or before {on} is "
                f"{(on - rate.on).days} days old, beyond the tolerance of {self.tolerance_days} "
                f"days; it is used: {rate.describe()}. Refresh the ECB reference rates, add a "
                "rate for that date or state the scenario's rate date.")

    def _factor(self, given: str, wanted: str, on: date) -> tuple[Decimal, tuple[Rate, ...]]:
        direct = self._leg(given, wanted, on)
        if direct is not None:
            return direct
        pivots = sorted(self.currencies() - {given, wanted}, key=lambda code: code != "EUR")
        for pivot in pivots:
            first, second = self._leg(given, pivot, on), self._leg(pivot, wanted, on)
            if first is not None and second is not None:
                return first[0] * second[0], first[1] + second[1]
        raise NoRate(f"no {given}/{wanted} rate on or before {on}; add a rate with its source, "
                     "or refresh the ECB reference rates")

    def _leg(self, given: str, wanted: str, on: date) -> tuple[Decimal, tuple[Rate, ...]] | None:
        """The factor from ``given`` to ``wanted`` by one stored pair (either way round)."""
        candidates = [(rate, inverse) for rate, inverse in (
            (self.newest(given, wanted, on), False), (self.newest(wanted, given, on), True))
            if rate is not None]
        if not candidates:
            return None
        rate, inverse = max(candidates, key=lambda pair: pair[0].on)
        return (Decimal(1) / rate.rate if inverse else rate.rate), (rate,)


def _plain(value: Decimal) -> str:
    """A factor to 12 significant digits, without trailing zeros: 1.1172, 0.895094880057."""
    return f"{value:.12g}"
