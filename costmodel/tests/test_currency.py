"""Converting money at dated rates, worked by hand (Decimal all the way)."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from costmodel.currency import NoRate
from costmodel.currency import Rate
from costmodel.currency import RateBook

ECB = "ECB"
RATES = [
    Rate("EUR", "USD", Decimal("1.1698"), date(2026, 3, 2), ECB),
    Rate("EUR", "USD", Decimal("1.1606"), date(2026, 3, 3), ECB),
    Rate("EUR", "GBP", Decimal("0.8739"), date(2026, 3, 2), ECB),
]


def test_a_eur_quote_at_the_rate_of_its_date() -> None:
    # EUR 250,000 on 2 March 2026 at 1.1698: 250,000 x 1.1698 = USD 292,450.00 exactly.
    conversion = RateBook(RATES).convert(Decimal("250000"), "EUR", "USD", date(2026, 3, 2))
    assert conversion.amount == Decimal("292450.0000")
    assert conversion.rates == (RATES[0],)
    assert conversion.describe() == ("EUR 250,000.00 at 1.1698 USD/EUR (1 EUR = 1.1698 USD on "
                                     "2026-03-02 (ECB))")


def test_the_other_way_round_divides_by_the_same_rate() -> None:
    conversion = RateBook(RATES).convert(Decimal("292450"), "USD", "EUR", date(2026, 3, 2))
    assert conversion.amount.quantize(Decimal("0.01")) == Decimal("250000.00")


def test_two_currencies_quoted_against_the_euro_go_through_it_on_the_same_day() -> None:
    # USD 1,169.80 = EUR 1,000 = GBP 873.90.
    conversion = RateBook(RATES).convert(Decimal("1169.80"), "USD", "GBP", date(2026, 3, 2))
    assert conversion.amount.quantize(Decimal("0.01")) == Decimal("873.90")
    assert [rate.quote for rate in conversion.rates] == ["USD", "GBP"]


def test_a_day_without_a_rate_takes_the_newest_before_it_within_the_tolerance() -> None:
    book = RateBook(RATES, tolerance_days=7)
    conversion = book.convert(Decimal("100"), "EUR", "USD", date(2026, 3, 7))  # a Saturday
    assert conversion.rates[0].on == date(2026, 3, 3)
    assert conversion.amount == Decimal("116.0600")
    assert book.too_old(conversion) == ()


def test_a_rate_older_than_the_tolerance_is_used_and_named_with_its_age() -> None:
    # 2026-03-03 to 2026-04-01 is 29 days: beyond a 7-day tolerance, still the newest rate.
    book = RateBook(RATES, tolerance_days=7)
    conversion = book.convert(Decimal("1"), "EUR", "USD", date(2026, 4, 1))
    assert conversion.amount == Decimal("1.1606")
    (old,) = book.too_old(conversion)
    assert old.on == date(2026, 3, 3)
    assert book.age_warning(old, conversion.on).startswith(
        "The newest EUR/USD rate on or before 2026-04-01 is 29 days old, beyond the tolerance "
        "of 7 days; it is used: 1 EUR = 1.1606 USD on 2026-03-03")


def test_a_date_before_every_rate_is_refused() -> None:
    with pytest.raises(NoRate, match="no EUR/USD rate on or before 2026-03-01"):
        RateBook(RATES).convert(Decimal("1"), "EUR", "USD", date(2026, 3, 1))


def test_the_same_currency_needs_no_rate() -> None:
    conversion = RateBook(()).convert(Decimal("5"), "USD", "USD", date(2026, 3, 1))
    assert conversion.amount == Decimal("5") and conversion.rates == () and conversion.describe() == ""


def test_a_rate_listed_first_wins_a_tie_on_the_same_day() -> None:
    treasury = Rate("EUR", "USD", Decimal("1.2"), date(2026, 3, 2), "our treasury")
    book = RateBook([treasury, *RATES])
    assert book.convert(Decimal("1"), "EUR", "USD", date(2026, 3, 2)).rates == (treasury,)
