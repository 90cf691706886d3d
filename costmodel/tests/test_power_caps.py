"""Throughput lost to a power cap, from seed 003's table for the H100 SXM (worked by hand)."""

import pytest

from costmodel.inputs import InputError
from costmodel.power_caps import CapPoint
from costmodel.power_caps import cap_loss

H100 = [CapPoint(700, 0.0, 0.0, "seed-003"), CapPoint(600, 0.05, 0.08, "seed-003"),
        CapPoint(500, 0.15, 0.25, "seed-003"), CapPoint(400, 0.30, 0.50, "seed-003")]


def test_a_cap_at_600_w_costs_the_tables_5_to_8_percent():
    loss = cap_loss(600, 700, H100)
    assert (loss.loss_low, loss.loss_high) == (0.05, 0.08)
    assert loss.loss == pytest.approx(0.065)
    assert loss.describe() == "at 600 W: 5-8 % lower throughput, 6.5 % used (seed-003)"


def test_between_rows_the_loss_is_interpolated():
    # 550 W is halfway from 600 W (5-8 %) to 500 W (15-25 %): 10-16.5 %.
    loss = cap_loss(550, 700, H100)
    assert loss.loss_low == pytest.approx(0.10) and loss.loss_high == pytest.approx(0.165)
    # 650 W is halfway from the TDP (0 %) to 600 W: 2.5-4 %.
    assert cap_loss(650, 700, H100).loss_high == pytest.approx(0.04)


def test_no_cap_costs_nothing_and_a_cap_below_the_table_is_refused():
    assert cap_loss(700, 700, H100).loss == 0.0
    with pytest.raises(InputError, match="below the catalog's lowest measured cap"):
        cap_loss(300, 700, H100)
    with pytest.raises(InputError) as refused:
        cap_loss(0, 700, H100)
    assert refused.value.path == "power_cap_w"
