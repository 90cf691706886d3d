"""The workbook's Strategies sheet, recalculated by LibreOffice, gives the engine's strategies to the
cent: each month's cost, total and NPV of every strategy, and the value of waiting as their
difference.

Two cases in one LibreOffice run: the rich scenario (financing, discounting) over 36 months on a
curve of on demand $2.50 and 12 months $2.00 with the next generation at month 18 doing twice the
work at the rich scenario's own system price (the second 12-month bridge contract is left at month
18, paying a quarter of its 6 remaining months); and the
engine's 120-month example (every term, spot with a 15 % overhead, a 60 % base on 12-month terms,
the B200 at month 24 after a 24-month bridge contract).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from numpy.testing import assert_allclose

from costmodel.examples import strategy_example
from costmodel.market_resale import MarketResale
from costmodel.strategies import NEXT_GENERATION
from costmodel.strategies import NextGeneration
from costmodel.strategies import StrategyInputs
from costmodel.strategies import evaluate_strategies
from costmodel.term_structure import TermPrice
from costmodel.term_structure import TermStructure
from costmodel.tests.scenarios import rich_scenario
from reports.builders.excel import build_workbook
from reports.builders.excel.strategies_sheet import strategy_name
from tests.reports.conftest import content_for
from tests.reports.recalc import Values
from tests.reports.recalc import recalculate

CENT = 0.01
RESALE = MarketResale(useful_life_months=60.0, risk_share=0.5)


def worked() -> StrategyInputs:
    scenario = rich_scenario()
    terms = TermStructure(
        (TermPrice("on_demand", 2.50, source="index"), TermPrice("12", 2.00, source="broker"))
    )
    twice = NextGeneration("Next", 18.0, float(scenario.buy.system_price_usd), 2.0, source="worked example")
    return StrategyInputs(scenario, terms, twice, exit_share=0.25, market_resale=RESALE)


CASES = {"worked": worked(), "example": replace(strategy_example(), market_resale=RESALE)}


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    work = tmp_path_factory.mktemp("strategies")
    paths = []
    for name, inputs in CASES.items():
        paths.append(work / f"{name}.xlsx")
        paths[-1].write_bytes(build_workbook(content_for(inputs.scenario, strategy_inputs=inputs)))
    return {name: Values(path) for name, path in zip(CASES, recalculate(paths, work), strict=True)}


@pytest.mark.parametrize("case", CASES)
def test_every_strategy_costs_what_the_engine_says_to_the_cent(recalculated, case):
    values = recalculated[case]
    verdict = evaluate_strategies(CASES[case])
    assert values.errors() == []
    assert {cost.key for cost in verdict.strategies} >= {"buy_now", "buy_now_market", "lock_12", "on_demand",
                                                         NEXT_GENERATION}
    for cost in verdict.strategies:
        assert_allclose(values.cells(strategy_name(cost.key, "flow")), cost.per_month_usd, rtol=0, atol=CENT,
                        err_msg=cost.key)
        assert_allclose(values[strategy_name(cost.key, "total")], float(cost.total_usd), rtol=0, atol=CENT)
        assert_allclose(values[strategy_name(cost.key, "npv")], float(cost.npv_usd), rtol=0, atol=CENT)
    assert_allclose(values["strategy_value_of_waiting"], verdict.value_of_waiting_usd, rtol=0, atol=CENT)


def test_the_worked_example_by_hand(recalculated):
    # The rich scenario holds 250 accelerators every hour (730 h a month) for 60 months: on demand
    # at $2.50, 250 x 730 x 2.50 = $456,250 a month, $27,375,000; the 12-month term at $2.00,
    # $365,000 a month, $21,900,000.
    values = recalculated["worked"]
    assert values["strategy_accelerators"] == 250 and values["finance_horizon_months"] == 60
    assert values["strategy_on_demand_total"] == pytest.approx(27_375_000.00, abs=CENT)
    assert values["strategy_lock_12_total"] == pytest.approx(21_900_000.00, abs=CENT)
    # Waiting rents months 1 to 18 on the 12-month term ($365,000 a month; on demand would cost
    # 18 x $456,250 = $8,212,500, against 18 x $365,000 + the exit = $7,117,500) and leaves the
    # second contract at month 18 paying a quarter of its 6 months left: $547,500 more then.
    bridge = values.cells(strategy_name(NEXT_GENERATION, "bridge"))
    assert bridge[0] == 0 and bridge[1] == bridge[17] == pytest.approx(365_000.00, abs=CENT)
    assert bridge[18] == pytest.approx(365_000.00 + 547_500.00, abs=CENT)
    assert bridge[19:] == [0] * 42
    assert values["strategy_value_of_waiting"] == pytest.approx(
        values["strategy_buy_now_npv"] - values["strategy_next_generation_npv"], abs=CENT)
