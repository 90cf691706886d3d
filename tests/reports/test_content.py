"""What the reports show, before any file: bill of materials, key figures, provenance, formats."""

from __future__ import annotations

import math
from dataclasses import replace

from numpy.testing import assert_allclose

import costmodel as engine
from costmodel.tests.scenarios import flat_scenario
from costmodel.tests.scenarios import rich_scenario
from reports.content import bill_of_materials
from reports.content import describe_path
from reports.content import key_figures
from reports.formatting import format_month
from reports.formatting import format_share
from reports.formatting import format_usd_cents
from tco.services.engine_inputs import Assumption
from tco.services.evaluation import every_input


def test_bill_of_materials_quantity_times_unit_price_is_the_engines_amount():
    inputs = rich_scenario()
    result = engine.evaluate(inputs, recommend=False)

    lines = bill_of_materials(inputs, result)

    assert [line.line for line in lines] == list(result.buy.capex_usd)
    for line in lines:
        assert_allclose(line.quantity * line.unit_price_usd, line.amount_usd, err_msg=line.line)
    # 250 accelerators lose 5 % to the power cap: 250 / 0.95 / 8 -> 33 systems at $300,000.
    systems = lines[0]
    assert (systems.quantity, systems.unit_price_usd, systems.amount_usd) == (33.0, 300_000.0, 9_900_000.0)


def test_key_figures_are_rounded_to_the_cent_and_none_where_there_is_no_answer():
    # flat_scenario: buy $9.6M + 36 x $23,827.20 = $10,457,779.20; rent 36 x $2,296,755.20.
    never = replace(
        flat_scenario(), rent=(replace(flat_scenario().rent[0], price_usd_per_instance_hour=0.01),)
    )

    figures = key_figures(engine.evaluate(never, recommend=False))

    assert figures["buy"]["total_usd"] == 10_457_779.20
    # Renting 256 accelerators at $0.01 per 8-GPU instance-hour never costs more than buying.
    assert figures["rent"][0]["breakeven_month"] is None
    assert figures["rent"][0]["total_usd"] == round(32 * 0.01 * 730 * 36, 2)


def test_every_input_is_listed_with_its_recorded_provenance_or_its_catalog_table():
    inputs = rich_scenario()
    recorded = [Assumption("buy.system_price_usd", 300_000.0, "USD", "catalog", "price point 7 (seed-004)")]

    rows = {row.path: row for row in every_input(inputs, recorded)}

    assert list(rows) == engine.numeric_input_paths(inputs)
    assert (rows["buy.system_price_usd"].value, rows["buy.system_price_usd"].source) == (
        300_000.0,
        "price point 7 (seed-004)",
    )
    # Engine inputs alone record no catalog rows: their cooling tiers say so rather than cite a
    # source they never came from (a stored scenario records each tier with its sources).
    assert rows["cooling.5.max_kw_per_rack"].value == math.inf
    assert rows["cooling.5.max_kw_per_rack"].source == "not recorded"
    assert rows["workload.utilisation"].source == "not recorded"
    assert (
        describe_path("rent.2.price_usd_per_instance_hour", inputs)
        == "Instance price, spot"
    )


def test_figures_read_as_finance_expects():
    assert format_usd_cents(1_234_567.891) == "$1,234,567.89"
    assert format_usd_cents(-45.6) == "-$45.60"
    assert format_usd_cents(-0.001) == "$0.00"  # no "-$0.00"
    assert format_usd_cents(math.nan) == "n/a"
    assert (format_month(14.0), format_month(math.nan)) == ("month 14", "never")
    assert (format_share(0.4128), format_share(math.nan)) == ("41.3%", "none")
