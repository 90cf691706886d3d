"""The report workbook of a stored scenario carries its FOCUS projection as a sheet whose rows
add up to the scenario's cash flows."""
from __future__ import annotations

import io

import numpy as np
import pytest
from openpyxl import load_workbook

from finops.focus_columns import COLUMNS
from reports.builders.excel import build_workbook
from reports.services import report_content_for
from tco.services.evaluation import scenario_evaluate


@pytest.mark.django_db
def test_the_workbook_has_the_focus_projection_of_every_option(demo):
    scenario = demo[0]["Inference fleet: 32x L40S vs cloud"]
    content = report_content_for(scenario=scenario)
    workbook = load_workbook(io.BytesIO(build_workbook(content)), read_only=True)
    assert "FOCUS projection" in workbook.sheetnames
    rows = list(workbook["FOCUS projection"].iter_rows(values_only=True))
    assert list(rows[0]) == list(COLUMNS)
    index = {name: i for i, name in enumerate(rows[0])}
    billed = {}
    for row in rows[1:]:
        billed[row[index["x_Option"]]] = billed.get(row[index["x_Option"]], 0.0) + row[index["BilledCost"]]
    result = scenario_evaluate(scenario=scenario).result
    assert billed["Buy"] == pytest.approx(float(np.sum(result.buy.cash_flows.per_month_usd)), abs=0.01)
    for option in result.rent:
        assert billed[option.name] == pytest.approx(float(np.sum(option.cash_flows.per_month_usd)), abs=0.01)
    assert rows[1][index["ChargePeriodStart"]].endswith("T00:00:00Z")
