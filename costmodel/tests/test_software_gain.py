"""The yearly software gain fitted on dated results, and its average over an asset's life."""

from __future__ import annotations

import math
from datetime import date

import pytest

from costmodel.sizing.software_gain import DatedResult
from costmodel.sizing.software_gain import fit_yearly_gain
from costmodel.sizing.software_gain import life_average_factor


def test_one_configuration_measured_twice_gives_its_compound_yearly_gain():
    # 1,000 then 1,440 tokens/s four years apart (1,461 days): 1.44^(1/4) = 1.0954, 9.54 % a year.
    earlier = DatedResult("a", date(2021, 1, 1), 1000.0, "model on chip")
    later = DatedResult("a", date(2025, 1, 1), 1440.0, "model on chip")

    gain = fit_yearly_gain([earlier, later])

    assert gain is not None
    assert gain.per_year == pytest.approx(1.44 ** 0.25 - 1, rel=1e-12)
    assert "model on chip: 1,000 on 2021-01-01 to 1,440 on 2025-01-01" in gain.describe()


def test_groups_share_one_slope_and_a_faster_chip_is_not_a_newer_result():
    # Two chips, each measured a year apart (2023-01-01 to 2024-01-01, 365 days), gaining 10 %
    # and 30 %: one shared slope is the mean of ln 1.1 and ln 1.3 over 365 / 365.25 years. The
    # faster chip being 5x faster says nothing about time.
    year = 365 / 365.25
    results = [DatedResult("slow", date(2023, 1, 1), 100.0), DatedResult("slow", date(2024, 1, 1), 110.0),
               DatedResult("fast", date(2023, 1, 1), 500.0), DatedResult("fast", date(2024, 1, 1), 650.0)]

    gain = fit_yearly_gain(results)

    expected = math.exp((math.log(1.1) + math.log(1.3)) / 2 / year) - 1
    assert gain is not None and gain.per_year == pytest.approx(expected, rel=1e-12)
    assert len(gain.groups) == 2


def test_no_configuration_measured_at_two_dates_gives_no_gain():
    same_day = [DatedResult("a", date(2025, 1, 1), 100.0), DatedResult("a", date(2025, 1, 1), 120.0),
                DatedResult("b", date(2024, 1, 1), 90.0)]
    assert fit_yearly_gain(same_day) is None


def test_the_life_average_of_a_gain_is_checkable_by_hand():
    # 10 % a year over 3 years: (1.1^3 - 1) / (3 ln 1.1) = 0.331 / 0.285931 = 1.157624.
    assert life_average_factor(0.10, 3.0) == pytest.approx(0.331 / (3 * math.log(1.1)), rel=1e-12)
    assert life_average_factor(0.10, 3.0) == pytest.approx(1.157624, abs=1e-6)
    assert life_average_factor(0.0, 3.0) == 1.0
    # A loss lowers it: -10 % a year over 2 years: (0.81 - 1) / (2 ln 0.9) = 0.901681.
    assert life_average_factor(-0.10, 2.0) == pytest.approx(-0.19 / (2 * math.log(0.9)), rel=1e-12)
    with pytest.raises(ValueError, match="above -100 %"):
        life_average_factor(-1.0, 2.0)
