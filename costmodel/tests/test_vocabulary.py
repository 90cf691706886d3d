"""Every input, result figure and cash-flow line has words; whole figures are whole in JSON."""

from __future__ import annotations

import json
from dataclasses import fields
from dataclasses import replace

from costmodel import ApiOption
from costmodel import evaluate
from costmodel import numeric_input_paths
from costmodel.footprint import Footprint
from costmodel.result import BuyResult
from costmodel.result import RentResult
from costmodel.tests.scenarios import rich_scenario
from costmodel.vocabulary import CASH_FLOW_LINES
from costmodel.vocabulary import INPUTS
from costmodel.vocabulary import RESULTS
from costmodel.vocabulary import generic_path
from costmodel.vocabulary import input_label
from costmodel.vocabulary import input_term
from costmodel.vocabulary import sentence_labels


def test_every_engine_input_path_has_a_term() -> None:
    with_api = replace(rich_scenario(), api=(ApiOption("api", 3.0, 0.3, 15.0),))
    paths = {generic_path(path) for path in numeric_input_paths(with_api)}
    assert paths - set(INPUTS) == set()
    assert set(INPUTS) - paths == set()  # nothing labelled that the engine no longer has


def test_every_result_figure_and_line_has_a_term() -> None:
    declared = {f"footprint.{f.name}" for f in fields(Footprint)}
    declared |= {f"buy.{f.name}" for f in fields(BuyResult) if f.name != "cash_flows"}
    declared |= {f"rent.{f.name}" for f in fields(RentResult) if f.name != "cash_flows"}
    assert declared - set(RESULTS) == set()
    result = evaluate(rich_scenario())
    lines = set(result.buy.cash_flows.lines_usd) | {
        line for option in result.rent for line in option.cash_flows.lines_usd}
    assert lines - set(CASH_FLOW_LINES) == set()
    assert {f"summary.{key}" for figures in result.summary().values() for key in figures} <= set(RESULTS)


def test_labels_are_words_not_paths() -> None:
    for path, term in INPUTS.items():
        assert "_" not in term.label and "." not in term.label, path
    for path, term in RESULTS.items():
        assert "_" not in term.label, path
    assert all("_" not in label for label in CASH_FLOW_LINES.values())


def test_indexed_paths_name_their_option() -> None:
    names = ["AWS p5.48xlarge (8x H100 SXM5 80 GB), us-east-1, on-demand"]
    assert input_label("rent.0.price_usd_per_instance_hour", rent_names=names) == (
        "Instance price, AWS p5.48xlarge (8x H100 SXM5 80 GB), us-east-1, on-demand")
    assert input_term("rent.3.egress_usd_per_gb").show_with_unit(0.085) == "$0.0850 per GB"
    assert sentence_labels(["facility.pue", "facility.electricity_usd_per_kwh"]) == {
        "facility.pue": "the PUE", "facility.electricity_usd_per_kwh": "the electricity price"}


def test_months_and_counts_are_whole_in_json() -> None:
    document = evaluate(rich_scenario()).to_dict()
    for option in document["rent"]:
        assert option["breakeven_month"] is None or type(option["breakeven_month"]) is int
    assert type(document["horizon_months"]) is int
    for key in ("accelerators_bought", "systems", "racks", "systems_per_rack"):
        assert type(document["footprint"][key]) is int, key
    for figures in document["summary"].values():
        assert figures["breakeven_month"] is None or type(figures["breakeven_month"]) is int
    assert '"breakeven_month": 32.0' not in json.dumps(document)
