"""The FOCUS export of the demo scenarios and the demo plan: BilledCost by month adds up to the
cash flows the scenario shows, to the cent, and the FinOps Foundation's validator passes it."""
from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd
import pytest

from finops.exports.focus import focus_csv
from finops.exports.focus import focus_parquet
from finops.exports.focus import monthly_billed_usd
from finops.exports.projections import BUY_OPTION
from finops.exports.projections import plan_focus
from finops.exports.projections import scenario_focus
from tco.services.evaluation import scenario_evaluate
from tests.finops.focus_validator import validate

CENT = 0.005


def cash_flows_by_option(scenario) -> dict[str, np.ndarray]:
    result = scenario_evaluate(scenario=scenario).result
    sides = {BUY_OPTION: result.buy.cash_flows, **{o.name: o.cash_flows for o in result.rent}}
    return {name: np.reshape(flows.per_month_usd, -1) for name, flows in sides.items()}


@pytest.mark.django_db
def test_billed_cost_by_month_is_each_options_cash_flow_to_the_cent(demo):
    scenarios, _ = demo
    for scenario in scenarios.values():
        frame = scenario_focus(scenario, start=date(2027, 1, 1))
        billed = monthly_billed_usd(frame)
        expected = cash_flows_by_option(scenario)
        assert set(billed.index) == set(expected), scenario.name
        for option, flows in expected.items():
            by_month = billed.loc[option].reindex(range(len(flows)), fill_value=0.0).to_numpy()
            assert np.abs(by_month - flows).max() < CENT, (scenario.name, option)
        # Month 0 is January 2027, month 12 January 2028: the calendar follows the start.
        first = frame[frame["x_Month"] == 12]["ChargePeriodStart"].iloc[0]
        assert first == pd.Timestamp("2028-01-01", tz="UTC")


@pytest.mark.django_db
def test_buying_is_a_purchase_amortised_and_renting_priced_by_its_model(demo):
    scenarios, _ = demo
    h100 = scenario_focus(scenarios["8x H100 training cluster"], start=date(2027, 1, 1))
    buy = h100[h100["x_Option"] == BUY_OPTION]
    capex = buy[buy["x_CostLine"] == "capex-systems"].iloc[0]
    assert (capex["ChargeCategory"], capex["ChargeFrequency"]) == ("Purchase", "One-Time")
    assert capex["EffectiveCost"] == 0
    assert capex["BilledCost"] > 0 and capex["x_Month"] == 0
    depreciation = buy[buy["x_CostLine"] == "depreciation"]
    assert (depreciation["BilledCost"] == 0).all() and (depreciation["EffectiveCost"] > 0).all()
    resale = buy[buy["x_CostLine"] == "residual-value"].iloc[0]
    assert resale["ChargeCategory"] == "Credit" and resale["BilledCost"] < 0 and resale["x_Month"] == 36
    compute = h100[h100["x_CostLine"] == "compute"].groupby("x_Option")["PricingCategory"].first()
    reserved = [name for name in compute.index if "reserved" in name]
    assert compute[reserved[0]] == "Committed"
    assert set(compute.drop(reserved)) == {"Standard"}
    b200 = scenario_focus(scenarios["256x B200 build with liquid cooling"])
    spot = b200[(b200["x_CostLine"] == "compute") & b200["x_Option"].str.contains("spot")]
    assert set(spot["PricingCategory"]) == {"Dynamic"}


@pytest.mark.django_db
def test_the_plans_billed_cost_by_month_is_its_cash_to_the_cent(demo):
    _, plan = demo
    frame = plan_focus(plan, start=date(2027, 1, 1))
    by_month = frame.groupby("x_Month")["BilledCost"].sum()
    cash = np.asarray(plan.result["cash_usd"])
    assert np.abs(by_month.reindex(range(len(cash)), fill_value=0.0).to_numpy() - cash).max() < CENT
    assert set(frame["x_PlanId"]) == {plan.pk}
    assert set(frame["ProviderName"]) <= {"On-premises", "AWS"}


@pytest.mark.django_db
def test_the_focus_validator_passes_the_demo_exports_as_csv_and_parquet(demo, tmp_path):
    scenarios, plan = demo
    frames = [scenario_focus(scenario) for scenario in scenarios.values()] + [plan_focus(plan)]
    frame = pd.concat(frames, ignore_index=True)
    csv, parquet = tmp_path / "demo.csv", tmp_path / "demo.parquet"
    csv.write_bytes(focus_csv(frame))
    parquet.write_bytes(focus_parquet(frame))
    assert validate(csv, tmp_path / "csv") == []
    assert validate(parquet, tmp_path / "parquet") == []


@pytest.mark.django_db
def test_the_validator_refuses_a_value_focus_does_not_allow(demo, tmp_path):
    """The check above can fail: a pricing category FOCUS does not know is reported."""
    scenarios, _ = demo
    frame = scenario_focus(scenarios["8x H100 training cluster"]).head(20).copy()
    frame.loc[3, "PricingCategory"] = "Cheap"
    bad = tmp_path / "bad.csv"
    bad.write_bytes(focus_csv(frame))
    assert [failure for failure in validate(bad, tmp_path / "bad") if failure.startswith("PricingCategory")]
