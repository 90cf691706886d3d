"""Sweeps and Monte Carlo rank every option a scenario gives, as its verdict does (issue 46):
buying, each rent option and each per-token API within its rate limit."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.testing import assert_allclose

import costmodel as engine
from costmodel.examples import flat_scenario
from tco.runs.compute import MARGIN_COLUMN
from tco.runs.compute import WINNER_COLUMN
from tco.runs.compute import monte_carlo_chunk_table
from tco.runs.compute import npv_column
from tco.runs.compute import sweep_chunk_table
from tco.runs.specs import distribution_from_text
from tco.runs.specs import parse_monte_carlo_spec
from tco.runs.specs import parse_sweep_spec

API_NAME = "token-api"


def _with_api(**api: float) -> engine.Scenario:
    """flat_scenario's 32 systems against its rent option and a per-token API (1,000 tokens/s an
    accelerator, output tokens only: 672,768 million tokens a month at full use)."""
    base = flat_scenario()
    return replace(base, workload=replace(base.workload, tokens_per_s_per_accelerator=1000.0),
                   tokens=engine.TokenMix(0.0, 0.0, 1.0),
                   api=(engine.ApiOption(API_NAME, 1.0, 1.0, api.pop("output", 0.10), **api),))


def test_each_points_winner_and_margin_are_those_of_the_verdict_of_that_point_alone():
    inputs = _with_api(rate_limit_tokens_per_month=6e11)
    spec = parse_monte_carlo_spec({"samples": 64, "distributions": [
        distribution_from_text("utilisation=uniform(0.3,1)"),
        distribution_from_text("api.0.usd_per_million_output=uniform(0.05,2)"),
        distribution_from_text("rent.0.price_usd_per_instance_hour=uniform(4,40)")]}, inputs)

    frame = monte_carlo_chunk_table(inputs, spec, 11, 0, 64).frame()

    drawn = [path for path in frame.columns if path.startswith(("workload.", "api.", "rent.0.price"))]
    winners = set()
    for _, row in frame.iterrows():
        alone = engine.with_overrides(inputs, {path: float(row[path]) for path in drawn})
        point = engine.verdict_of(engine.evaluate(alone, detail=False), alone)
        assert row[WINNER_COLUMN] == ("buy" if point.cheapest.kind == "buy" else point.cheapest.name)
        assert_allclose(row[MARGIN_COLUMN], point.margin_usd)
        for option in point.ranked:
            assert_allclose(row[npv_column("buy" if option.kind == "buy" else option.name)], option.npv_usd)
        left_out = {option.name for option in point.left_out}
        assert np.isnan(row[npv_column(API_NAME)]) == (API_NAME in left_out)
        winners.add(point.cheapest.kind)
    # The draws give every kind of winner, and leave the API out above its rate limit.
    assert winners == {"buy", "rent", "api"}
    assert frame[npv_column(API_NAME)].isna().any()


def test_a_sweep_where_the_api_is_cheapest_everywhere_names_it_the_winner_at_every_point():
    # $0.10 a million output tokens: at most $67,276.80 a month against buying's $9.6M up front.
    inputs = _with_api()
    spec = parse_sweep_spec({"axes": [{"path": "utilisation", "values": [0.5, 0.75, 1.0]}]}, inputs)

    table = sweep_chunk_table(inputs, spec, 0, 3)

    assert [table.categories[code] for code in table.winner] == [API_NAME] * 3
    # At full use the API costs 672,768 x 0.10 x 36 = $2,421,964.80; buying $10,457,779.20 and
    # renting more, so the margin is over buying: $8,035,814.40.
    assert_allclose(table.column(npv_column(API_NAME))[2], 2_421_964.80)
    assert_allclose(table.column(MARGIN_COLUMN)[2], 10_457_779.20 - 2_421_964.80)

