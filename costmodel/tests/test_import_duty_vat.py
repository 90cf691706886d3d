"""Import duty and non-recoverable VAT: a share of the hardware capex, paid up front on buying."""

from __future__ import annotations

import numpy as np
import pytest

from costmodel import evaluate
from costmodel.buy import hardware_capex_usd
from costmodel.reference import reference_evaluate
from costmodel.tests.scenarios import one_system_of_hardware
from costmodel.vocabulary import line_label


def test_19_percent_vat_on_400000_of_hardware_costs_76000_more_up_front() -> None:
    without = evaluate(one_system_of_hardware(400_000.0), recommend=False)
    with_vat = evaluate(one_system_of_hardware(400_000.0, 0.19), recommend=False)

    assert float(np.sum(hardware_capex_usd(with_vat.buy.capex_usd))) == pytest.approx(400_000.0)
    assert float(np.sum(with_vat.buy.capex_usd["import_duty_vat"])) == pytest.approx(76_000.0)
    up_front = np.reshape(with_vat.buy.cash_flows.per_month_usd, -1)[0]
    assert up_front - np.reshape(without.buy.cash_flows.per_month_usd, -1)[0] == pytest.approx(76_000.0)
    extra = with_vat.buy.total_capex_usd - without.buy.total_capex_usd
    assert float(np.sum(extra)) == pytest.approx(76_000.0)
    # Renting pays no duty on hardware it does not buy.
    assert float(np.sum(with_vat.rent[0].total_usd)) == float(np.sum(without.rent[0].total_usd))


def test_the_reference_model_pays_the_same_duty_and_words_the_line() -> None:
    reference = reference_evaluate(one_system_of_hardware(400_000.0, 0.19))
    assert reference["buy"]["capex_usd"]["import_duty_vat"] == pytest.approx(76_000.0)
    assert line_label("capex_import_duty_vat") == "Import duty and VAT"
