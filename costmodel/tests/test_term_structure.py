"""An imported term-structure curve: checked row by row and column by column, then one term
structure per date with its sources."""

from __future__ import annotations

import datetime

import pytest

from costmodel.term_structure import CurveError
from costmodel.term_structure import read_curve

TODAY = datetime.date(2026, 11, 28)


def _rows(*lines: str) -> list[dict[str, str]]:
    return [dict(zip(("date", "term", "price", "source"), line.split(","), strict=True)) for line in lines]


def _problems(rows) -> list[str]:
    with pytest.raises(CurveError) as refused:
        read_curve(rows, today=TODAY)
    return [str(problem) for problem in refused.value.problems]


def test_a_good_curve_gives_each_dates_term_structure_with_its_sources() -> None:
    curve = read_curve(
        _rows(
            "2026-10-01,spot,1.40,index A",
            "2026-10-01,on demand,2.50,index A",
            "2026-10-01,1,2.30,index A",
            "2026-10-01,3,2.20,broker B",
            "2026-10-01,6,2.10,broker B",
            "2026-10-01,12,2.00,broker B",
            "2026-11-01,on_demand,2.50,index A",
            "2026-11-01,12 months,2.10,index A",
        ),
        today=TODAY,
    )
    assert sorted(curve.by_date) == [datetime.date(2026, 10, 1), datetime.date(2026, 11, 1)]
    latest = curve.latest()
    assert latest.as_of == datetime.date(2026, 11, 1)
    assert latest.commitment_terms() == ("12",)
    assert latest.price("12").price_usd_per_accelerator_hour == 2.10
    assert curve.by_date[datetime.date(2026, 10, 1)].price("3").source == "broker B"
    assert curve.history("12") == ((datetime.date(2026, 10, 1), 2.00), (datetime.date(2026, 11, 1), 2.10))


def test_gaps_terms_out_of_order_negative_prices_and_future_dates_are_refused_by_row_and_column() -> None:
    assert _problems(
        _rows(
            "2026-10-01,on demand,2.50,index A",  # row 2
            "2026-10-01,1,2.30,index A",
            "2026-10-01,12,2.00,index A",  # row 4: 3 and 6 months missing
            "2026-11-01,12,2.10,index A",  # row 5
            "2026-11-01,6,2.20,index A",  # row 6: after 12 months
            "2026-11-01,24,-1.90,index A",  # row 7
            "2026-12-01,on demand,2.40,index A",  # row 8: after today
            "2026-11-01,48,2.0,",  # row 9: no such term, no source
            "2026-11-01,36,,index A",  # row 10: no price
        )
    ) == [
        "row 4, term: gap in the curve of 2026-10-01: 3 months, 6 months missing "
        "between 1 month and 12 months",
        "row 6, term: 6 months after 12 months: terms out of order (shortest first)",
        "row 7, price: -1.90 must be a positive price per accelerator-hour",
        "row 8, date: 2026-12-01 is in the future (today is 2026-11-28)",
        "row 9, term: '48' is not a term; one of spot, on demand, 1 month, 3 months, 6 months, 12 months, "
        "24 months, 36 months",
        "row 9, source: empty: every price needs its source",
        "row 10, price: empty",
    ]


def test_a_repeated_term_an_unknown_column_and_a_bad_date_are_refused() -> None:
    rows = _rows("2026-10-01,12,2.00,index A", "2026-10-01,12,2.10,index A", "01/10/2026,12,2.00,index A")
    rows[2]["currency"] = "USD"
    assert _problems(rows) == [
        "row 3, term: 12 months given twice for 2026-10-01",
        "row 4, date: '01/10/2026' is not a date (YYYY-MM-DD)",
        "row 4, currency: unknown column; expected date, term, price, source",
    ]
