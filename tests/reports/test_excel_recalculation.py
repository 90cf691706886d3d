"""The workbook's formulas, recalculated by LibreOffice, give the engine's figures to the cent.

One LibreOffice run recalculates four workbooks: the rich scenario (every cost line, financing
owed past the horizon, reserved and spot), a variant that takes the other branches (short
loan at 0 %, a 36-month reservation past a 30-month horizon, no new cooling, no throughput),
an idle fleet (no useful hours, no breakeven), one system of $400,000 of hardware bought with
19 % VAT that cannot be recovered, and the rich workbook after an analyst edited five inputs on
its Assumptions sheet, which must follow the engine evaluated with those inputs.
"""

from __future__ import annotations

import io
import math
from dataclasses import replace

import numpy as np
import pytest
from numpy.testing import assert_allclose
from openpyxl import load_workbook

import costmodel as engine
from costmodel.tests.scenarios import one_system_of_hardware
from costmodel.tests.scenarios import rich_scenario
from costmodel.vocabulary import line_label
from reports.builders.excel import build_workbook
from reports.builders.excel.names import input_name
from reports.builders.excel.names import rent_name
from tests.reports.conftest import FORMULA_LIKE_NAME
from tests.reports.conftest import content_for
from tests.reports.recalc import Values
from tests.reports.recalc import recalculate

CENT = 0.01
NO_ANSWER = {"never", "none", "n/a"}
# What the analyst types into the rich workbook's Assumptions sheet.
EDITS = {
    "workload.utilisation": 0.55,
    "facility.electricity_usd_per_kwh": 0.2,
    "buy.system_price_usd": 250_000.0,
    "rent.0.price_usd_per_instance_hour": 80.0,
    "finance.discount_rate_per_year": 0.1,
}


def short_loan_variant() -> engine.Scenario:
    base = rich_scenario()
    reserved = replace(base.rent[1], commitment_months=36.0)
    return replace(
        base,
        workload=replace(base.workload, tokens_per_s_per_accelerator=math.nan),
        buy=replace(
            base.buy,
            loan_term_months=24.0,
            loan_rate_per_year=0.0,
            power_cap_share=1.0,
            power_cap_throughput_loss=0.0,
        ),
        facility=replace(base.facility, existing_cooling_max_kw_per_rack=math.inf),
        rent=(base.rent[0], reserved, base.rent[2]),
        finance=replace(base.finance, horizon_months=30.0, discount_rate_per_year=0.0),
    )


# $400,000 of hardware (one system, nothing else) with 19 % VAT that cannot be recovered.
VAT = one_system_of_hardware(400_000.0, 0.19)


def idle_variant() -> engine.Scenario:
    base = rich_scenario()
    return replace(base, workload=replace(base.workload, utilisation=0.0), rent=(base.rent[0],))


def edit_inputs(payload: bytes, edits: dict[str, float]) -> bytes:
    """The workbook with new values typed into named input cells (formulas kept)."""
    workbook = load_workbook(io.BytesIO(payload))
    for path, value in edits.items():
        ((sheet, reference),) = workbook.defined_names[input_name(path)].destinations
        workbook[sheet][reference.replace("$", "")].value = value
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    """(engine inputs, recalculated values) per case, from one LibreOffice run."""
    work = tmp_path_factory.mktemp("recalc")
    rich = build_workbook(content_for(rich_scenario(), name=FORMULA_LIKE_NAME))
    cases = {
        "rich": (rich_scenario(), rich),
        "short_loan": (short_loan_variant(), build_workbook(content_for(short_loan_variant()))),
        "idle": (idle_variant(), build_workbook(content_for(idle_variant()))),
        "import_vat": (VAT, build_workbook(content_for(VAT))),
        "edited": (engine.with_overrides(rich_scenario(), EDITS), edit_inputs(rich, EDITS)),
    }
    paths = []
    for name, (_, payload) in cases.items():
        paths.append(work / f"{name}.xlsx")
        paths[-1].write_bytes(payload)
    converted = recalculate(paths, work)
    return {
        name: (inputs, Values(path), payload)
        for (name, (inputs, payload)), path in zip(cases.items(), converted, strict=True)
    }


CASES = ["rich", "short_loan", "idle", "import_vat", "edited"]


def assert_same(actual, expected, *, atol: float = CENT) -> None:
    """A workbook figure equals the engine's: to the cent, or both say there is no answer."""
    expected = float(np.reshape(expected, -1)[0])
    if math.isnan(expected):
        assert actual in NO_ANSWER
    else:
        assert_allclose(actual, expected, rtol=0, atol=atol)


@pytest.mark.parametrize("case", CASES)
def test_no_formula_ends_in_an_error(recalculated, case):
    _, values, _ = recalculated[case]
    # NA() is how the chart leaves out the breakeven marker of an option that never breaks even.
    markers = {
        (sheet, ref.replace("$", ""))
        for name, defined in values.workbook.defined_names.items()
        if name.endswith("_breakeven_cumulative_usd")
        for sheet, ref in defined.destinations
    }
    assert [error for error in values.errors() if error[:2] not in markers] == []


@pytest.mark.parametrize("case", CASES)
def test_totals_npvs_breakevens_and_unit_costs_match_the_engine(recalculated, case):
    inputs, values, _ = recalculated[case]
    result = engine.evaluate(inputs, recommend=False)

    assert_same(values["buy_total_usd"], result.buy.total_usd)
    assert_same(values["buy_npv_usd"], result.buy.npv_usd)
    assert_same(
        values["buy_cost_per_useful_accelerator_hour_usd"], result.buy.cost_per_useful_accelerator_hour_usd
    )
    assert_same(values["buy_cost_per_million_tokens_usd"], result.buy.cost_per_million_tokens_usd)
    assert_same(values["capex_total"], result.buy.total_capex_usd)
    for line, amount in result.buy.capex_usd.items():
        assert_same(values[f"capex_{line}"], amount)
    for index, option in enumerate(result.rent):

        def figure(name: str, index=index):
            return values[rent_name(index, name)]

        assert_same(figure("total_usd"), option.total_usd)
        assert_same(figure("npv_usd"), option.npv_usd)
        assert_same(figure("saving_usd"), option.saving_usd)
        assert_same(figure("npv_saving_usd"), option.npv_saving_usd)
        assert_same(figure("breakeven_month"), option.breakeven_month, atol=0)
        assert_same(
            figure("cost_per_useful_accelerator_hour_usd"), option.cost_per_useful_accelerator_hour_usd
        )
        assert_same(figure("cost_per_million_tokens_usd"), option.cost_per_million_tokens_usd)
        assert_same(figure("breakeven_utilisation"), option.breakeven_utilisation, atol=1e-9)
        assert_same(figure("irr_per_year"), option.irr_per_year, atol=1e-6)
        assert figure("winner") == ("buy" if float(option.npv_saving_usd) > 0 else "rent")


@pytest.mark.parametrize("case", CASES)
def test_every_monthly_line_matches_the_engine(recalculated, case):
    inputs, values, _ = recalculated[case]
    result = engine.evaluate(inputs, recommend=False)
    buy_sheet = _columns(values, "Buy cash flows")

    for line, amounts in result.buy.cash_flows.lines_usd.items():
        assert_allclose(buy_sheet[line_label(line)], amounts, rtol=0, atol=CENT, err_msg=line)
    assert_allclose(values.cells("buy_flow"), result.buy.cash_flows.per_month_usd, rtol=0, atol=CENT)
    assert_allclose(values.cells("buy_cumulative"), result.buy.cash_flows.cumulative_usd, rtol=0, atol=CENT)
    assert_allclose(buy_sheet["Depreciation (not cash)"], result.buy.depreciation_line_usd, rtol=0, atol=CENT)
    rent_sheet = _columns(values, "Rent cash flows")
    for index, option in enumerate(result.rent):
        for line, amounts in option.cash_flows.lines_usd.items():
            column = rent_sheet[f"{option.name}: {line_label(line)}"]
            assert_allclose(column, amounts, rtol=0, atol=CENT, err_msg=line)
        assert_allclose(
            values.cells(rent_name(index, "cumulative")), option.cash_flows.cumulative_usd, rtol=0, atol=CENT
        )


@pytest.mark.parametrize("case", CASES)
def test_the_footprint_matches_the_engine(recalculated, case):
    inputs, values, _ = recalculated[case]
    footprint = engine.evaluate(inputs, recommend=False).footprint

    for name in (
        "systems",
        "racks",
        "systems_per_rack",
        "kw_per_rack",
        "it_kw_max",
        "it_kw_average",
        "facility_kw_average",
        "mwh_per_year",
    ):
        assert_same(values[f"fp_{name}"], getattr(footprint, name), atol=1e-9)
    assert values["fp_cooling_technology"] == str(np.reshape(footprint.cooling_tier_name, -1)[0])
    assert values["fp_needs_new_cooling"] == bool(np.reshape(footprint.needs_new_cooling, -1)[0])


def test_a_formula_like_scenario_name_stays_text_after_recalculation(recalculated):
    _, values, _ = recalculated["rich"]

    assert values.workbook["Summary"]["B4"].value == FORMULA_LIKE_NAME


def test_the_edited_inputs_moved_the_figures(recalculated):
    # Guards the edit test against edits that never reached the workbook.
    _, rich, _ = recalculated["rich"]
    _, edited, _ = recalculated["edited"]

    assert edited[input_name("workload.utilisation")] == EDITS["workload.utilisation"]
    assert edited["buy_total_usd"] != pytest.approx(rich["buy_total_usd"])


@pytest.mark.parametrize("case", ["rich", "short_loan", "idle"])
def test_every_value_the_file_carries_is_the_one_libreoffice_computes(recalculated, case):
    # The values stored beside the formulas (what viewers that do not calculate show) are the
    # ones a spreadsheet computes from the formulas: every formula cell of every sheet.
    _, values, payload = recalculated[case]
    formulas = load_workbook(io.BytesIO(payload))
    stored = load_workbook(io.BytesIO(payload), data_only=True)
    compared = 0
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type != "f":
                    continue
                ours = stored[ws.title][cell.coordinate].value
                theirs = values.workbook[ws.title][cell.coordinate].value
                where = f"{ws.title}!{cell.coordinate} {cell.value}"
                if isinstance(theirs, int | float) and not isinstance(theirs, bool):
                    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-6), where
                else:
                    assert ours == theirs, where
                compared += 1
    assert compared > 1000


def _columns(values: Values, sheet: str) -> dict[str, list[float]]:
    """Columns of a monthly table by heading, months 0..H."""
    rows = list(values.workbook[sheet].iter_rows(values_only=True))
    header = next(index for index, row in enumerate(rows) if row[0] == "Month")
    body = [row for row in rows[header + 1 :] if isinstance(row[0], int)]
    return {heading: [row[column] for row in body] for column, heading in enumerate(rows[header]) if heading}


def test_19_percent_vat_on_400000_of_hardware_is_76000_up_front_in_the_workbook(recalculated):
    _, values, _ = recalculated["import_vat"]
    without = engine.evaluate(one_system_of_hardware(400_000.0), recommend=False)

    assert values["capex_import_duty_vat"] == pytest.approx(76_000.0, abs=CENT)
    up_front = values.cells("buy_flow")[0] - float(np.reshape(without.buy.cash_flows.per_month_usd, -1)[0])
    assert up_front == pytest.approx(76_000.0, abs=CENT)
