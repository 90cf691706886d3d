"""Reads other apps rely on: the price in force on a date, price history, dense throughput."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from catalog.models import AcceleratorThroughput
from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.selectors import dense_tflops
from catalog.selectors import offerings_with_price_at
from catalog.selectors import price_at
from catalog.selectors import price_history
from tests.catalog.conftest import RETRIEVED


def test_price_at_takes_the_latest_price_on_or_before_the_date(small_catalog):
    p5 = small_catalog.p5_us_east

    assert price_at(p5, on=dt.date(2024, 12, 31)) is None
    assert price_at(p5, on=dt.date(2025, 1, 1)).amount == Decimal("98.32")
    assert price_at(p5, on=dt.date(2026, 6, 17)).amount == Decimal("98.32")
    assert price_at(p5, on=dt.date(2026, 6, 18)).amount == Decimal("55.04")
    assert price_at(small_catalog.dgx, on=dt.date(2026, 1, 1)).amount == Decimal("450000")


def test_on_the_same_date_the_last_retrieved_price_is_in_force(small_catalog):
    p5 = small_catalog.p5_us_east
    PricePoint.objects.create(
        offering=p5,
        amount=Decimal("54.00"),
        as_of=dt.date(2026, 6, 18),
        source=small_catalog.source,
        retrieved_at=RETRIEVED + dt.timedelta(days=1),
    )

    assert price_at(p5, on=dt.date(2026, 7, 1)).amount == Decimal("54.00")


def test_price_history_filters_a_date_range_newest_first(small_catalog):
    p5 = small_catalog.p5_us_east

    assert [p.amount for p in price_history(p5)] == [Decimal("55.04"), Decimal("98.32")]
    assert [p.amount for p in price_history(p5, start=dt.date(2026, 1, 1))] == [Decimal("55.04")]
    assert [p.amount for p in price_history(p5, end=dt.date(2025, 12, 31))] == [Decimal("98.32")]


def test_offerings_are_annotated_with_the_price_on_a_date_in_one_query(
    small_catalog, django_assert_num_queries
):
    with django_assert_num_queries(1):
        prices = {
            o.pk: o.price_in_force
            for o in offerings_with_price_at(CloudOffering.objects.all(), on=dt.date(2026, 6, 30))
        }

    assert Decimal(prices[small_catalog.p5_us_east.pk]["amount"]) == Decimal("55.04")
    assert prices[small_catalog.p5_us_west.pk]["as_of"] == "2026-03-01"
    assert prices[small_catalog.p5_spot.pk] is None  # its first price is 2026-07-01


def test_dense_tflops_ignores_sparse_and_unpreferred_figures(small_catalog):
    def row(precision, tflops, **flags):
        AcceleratorThroughput.objects.create(
            accelerator=small_catalog.h100,
            precision=precision,
            tflops=Decimal(tflops),
            source=small_catalog.source,
            **flags,
        )

    row("FP16", "989", is_preferred=True)
    row("FP16", "1979", is_sparse=True)
    row("FP4", "1979")

    assert dense_tflops(small_catalog.h100) == {"FP16": Decimal("989")}
