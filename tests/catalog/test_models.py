"""Invariants: field-named errors from clean(), and the database refusing what slips past."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError

from catalog.models import AcceleratorThroughput
from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.models import Source
from catalog.models import SystemSku
from tests.catalog.conftest import RETRIEVED


def _price(small_catalog, **fields) -> PricePoint:
    return PricePoint(
        **{
            "offering": small_catalog.p5_us_east,
            "amount": Decimal("1"),
            "as_of": dt.date(2026, 1, 1),
            "source": small_catalog.source,
            "retrieved_at": RETRIEVED,
            **fields,
        }
    )


def test_clean_names_the_field_of_a_non_positive_price(small_catalog):
    with pytest.raises(ValidationError) as caught:
        _price(small_catalog, amount=Decimal("0")).full_clean()

    assert caught.value.message_dict["amount"] == ["must be greater than zero"]


def test_the_database_refuses_a_price_with_no_target_or_two(small_catalog):
    with pytest.raises(IntegrityError, match="catalog_price_exactly_one_target"):
        _price(small_catalog, system=small_catalog.dgx).save()


def test_the_database_refuses_a_zero_price(small_catalog):
    with pytest.raises(IntegrityError, match="catalog_price_amount_positive"):
        _price(small_catalog, amount=Decimal("0")).save()


def test_the_same_price_from_the_same_source_and_date_is_stored_once(small_catalog):
    with pytest.raises(IntegrityError, match="catalog_price_offering_natural_key"):
        _price(small_catalog, amount=Decimal("98.32"), as_of=dt.date(2025, 1, 1)).save()


def test_the_database_refuses_idle_power_above_maximum(small_catalog):
    with pytest.raises(IntegrityError, match="catalog_systemsku_idle_within_max"):
        SystemSku.objects.filter(pk=small_catalog.dgx.pk).update(power_idle_kw=Decimal("11"))


def test_the_database_refuses_an_unknown_provider(small_catalog):
    with pytest.raises(IntegrityError, match="catalog_offering_provider_known"):
        CloudOffering.objects.filter(pk=small_catalog.p5_us_east.pk).update(provider="acme")


def test_only_one_dense_figure_per_precision_is_preferred(small_catalog):
    other = Source.objects.create(key="other", title="Other", kind="quote", retrieved_on=dt.date(2026, 1, 1))

    def preferred(tflops: str, source: Source, *, sparse: bool = False) -> AcceleratorThroughput:
        return AcceleratorThroughput(
            accelerator=small_catalog.h100,
            precision="FP16",
            tflops=Decimal(tflops),
            source=source,
            is_preferred=True,
            is_sparse=sparse,
        )

    with pytest.raises(ValidationError, match="a with-sparsity figure cannot be the preferred one"):
        preferred("1979", small_catalog.source, sparse=True).full_clean()
    preferred("989", small_catalog.source).save()
    with pytest.raises(IntegrityError, match="catalog_throughput_one_preferred"):
        preferred("756", other).save()
