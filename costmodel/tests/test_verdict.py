"""One verdict over buying, every rent option and every per-token API (issue 23), by hand."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from numpy.testing import assert_allclose

from costmodel import ApiOption
from costmodel import TokenMix
from costmodel import evaluate
from costmodel import one_at_a_time
from costmodel.examples import flat_scenario

# flat_scenario: 32 systems at $300,000 and 23,827.20 a month of power over 36 months, 0 %.
BUY_USD = 9_600_000.0 + 36 * 23_827.20  # 10,457,779.20
# 256 accelerators x 730 h x 1,000 tokens/s x 3,600 s = 672,768 million tokens a month.
MILLION_TOKENS_PER_MONTH = 256 * 730 * 1000 * 3600 / 1e6


def _token_scenario(*apis: ApiOption, rent: tuple = ()):
    base = flat_scenario()
    return replace(base, workload=replace(base.workload, tokens_per_s_per_accelerator=1000.0),
                   tokens=TokenMix(0.0, 0.0, 1.0), api=apis, rent=rent)


def test_buying_alone_evaluates_and_its_verdict_says_it_is_the_only_option() -> None:
    result = evaluate(flat_scenario(rent=()))
    verdict = result.verdict
    assert verdict.cheapest.kind == "buy" and verdict.runner_up is None and verdict.margin_usd is None
    assert_allclose(verdict.cheapest.total_usd, BUY_USD)
    assert verdict.sentence() == ("Buy is the only option given: over 36 months, NPV of costs before "
                                  "tax $10.46M (cash $10.46M).")
    assert result.tornado is None and result.recommendation == verdict.sentence()


def test_buying_against_a_per_token_api_alone_names_the_api_when_it_is_cheaper() -> None:
    # $0.10 per million output tokens: 672,768 x 0.10 = $67,276.80 a month, $2,421,964.80 in all.
    result = evaluate(_token_scenario(ApiOption("cheap-api", 1.0, 1.0, 0.10)))
    verdict = result.verdict
    api_usd = MILLION_TOKENS_PER_MONTH * 0.10 * 36
    assert_allclose(api_usd, 2_421_964.80)
    assert (verdict.cheapest.kind, verdict.cheapest.name) == ("api", "cheap-api")
    assert_allclose(verdict.cheapest.npv_usd, api_usd)
    assert_allclose(verdict.margin_usd, BUY_USD - api_usd)  # 8,035,814.40
    assert math.isnan(verdict.breakeven_month)
    assert verdict.sentence() == (
        "Pay per token: cheap-api is the cheapest over 36 months: NPV of costs before tax $2.42M "
        "(cash $2.42M), $8.04M less than buying (NPV); buying never breaks even against it (discounted).")
    # The sensitivity moves the winner's margin over the next cheapest, buying here.
    tornado = result.tornado
    assert (tornado.winner, tornado.against, tornado.against_kind) == (
        "Pay per token: cheap-api", "Buy", "buy")
    assert_allclose(tornado.base_saving_usd, BUY_USD - api_usd)
    assert result.to_dict()["verdict"]["cheapest"]["label"] == "Pay per token: cheap-api"


def test_buying_against_a_dear_api_breaks_even_where_the_discounted_totals_cross() -> None:
    # $1 per million: $672,768 a month against buying's $9.6M up front and $23,827.20 a month:
    # buying is ahead from the month m with 9,600,000 + 23,827.20 m <= 672,768 m: m = 15 (14.79).
    verdict = evaluate(_token_scenario(ApiOption("dear-api", 1.0, 1.0, 1.0))).verdict
    assert verdict.cheapest.kind == "buy" and verdict.runner_up.name == "dear-api"
    assert verdict.breakeven_month == 15
    assert "buying breaks even in month 15 (discounted)" in verdict.sentence()


def test_an_api_that_cannot_serve_the_workload_is_left_out_with_its_reason() -> None:
    limited = ApiOption("limited-api", 1.0, 1.0, 0.01, rate_limit_tokens_per_month=1e9)
    scenario = _token_scenario(limited, rent=flat_scenario().rent)
    verdict = evaluate(scenario).verdict
    assert [option.kind for option in verdict.ranked] == ["buy", "rent"]
    assert [(o.name, o.reason) for o in verdict.left_out] == [
        ("limited-api", "the workload needs more tokens a month than its rate limit allows")]
    assert verdict.sentence().endswith(
        "; left out: limited-api (the workload needs more tokens a month than its rate limit allows).")


def test_held_and_used_hours_billing_worked_by_hand() -> None:
    # Half busy: held, 32 instances x $98.32 x 730 h = $2,296,755.20 a month whatever the use;
    # used, half of it, $1,148,377.60.
    half = flat_scenario()
    half = replace(half, workload=replace(half.workload, utilisation=0.5))
    used = evaluate(half, recommend=False).rent[0]
    held_option = replace(half.rent[0], billing_basis="held")
    held = evaluate(replace(half, rent=(held_option,)), recommend=False).rent[0]
    assert_allclose(used.total_usd, 36 * 1_148_377.60)
    assert_allclose(held.total_usd, 36 * 2_296_755.20)
    assert used.utilisation_slope_usd > 0 and held.utilisation_slope_usd == 0


def test_a_step_input_shows_its_threshold_and_does_not_lead() -> None:
    # The same accelerator rented: 256 x 1.0 / 8 = 32 instances; any factor above 1.0 needs a
    # 33rd (+10 %: 281.6 / 8 -> 36 instances), and 31 do below 31/32 = 0.96875 (-10 %: 29).
    # The saving moves only by whole instances, not with the factor itself: no continuous
    # effect, so the row leads nothing.
    scenario = flat_scenario()
    tornado = one_at_a_time(scenario)
    row = next(row for row in tornado.rows if row.path == "rent.0.equivalence_factor")
    assert row.swing_usd == pytest.approx(7 * 98.32 * 730 * 36)  # 36 - 29 instances, 36 months
    low, high = row.steps
    assert (low.count, low.before, low.after) == ("the instances of on-demand", 32, 31)
    assert low.threshold == pytest.approx(0.96875, abs=1e-6)
    assert (high.before, high.after) == (32, 33) and high.threshold == pytest.approx(1.0, abs=1e-6)
    assert row.effect_usd == 0
    assert tornado.rows[0].path != "rent.0.equivalence_factor"
    assert high.words("the equivalence factor") == (
        "the instances of on-demand go from 32 to 33 above 1 (the equivalence factor)")
    sentence = evaluate(scenario).recommendation
    assert "equivalen" not in sentence and "rented accelerators" not in sentence


def test_after_tax_the_verdict_ranks_every_option_on_its_after_tax_cost() -> None:
    # 30 % tax, no discounting, no resale: every cost is deducted within the horizon (the
    # undepreciated basis at the horizon), so each option costs 70 % of its pre-tax total:
    # the API 0.7 x 2,421,964.80 = 1,695,375.36; buying 0.7 x 10,457,779.20 = 7,320,445.44.
    from costmodel.after_tax import after_tax_view
    from costmodel.tax import TaxMethod
    from costmodel.tax import TaxTerms

    inputs = _token_scenario(ApiOption("cheap-api", 1.0, 1.0, 0.10), rent=flat_scenario().rent)
    result = evaluate(inputs, recommend=False)
    view = after_tax_view(inputs, result, TaxTerms(0.3, TaxMethod.MACRS_5))
    verdict = view.verdict(result.verdict)
    assert verdict.basis == "after_tax"
    assert [(option.kind, option.name) for option in verdict.ranked] == [
        ("api", "cheap-api"), ("buy", "Buy"), ("rent", "on-demand")]
    assert_allclose(verdict.cheapest.npv_usd, 1_695_375.36)
    assert_allclose(verdict.buy.total_usd, 7_320_445.44)
    assert verdict.sentence().startswith(
        "Pay per token: cheap-api is the cheapest over 36 months: NPV of costs after tax $1.70M "
        "(cash $1.70M), $5.63M less than buying (NPV)")
    (api,) = view.to_dict()["api"]
    assert (api["name"], api["npv_after_tax_usd"]) == ("cheap-api", 1_695_375.36)


def test_the_sensitivity_moves_the_winners_margin_over_the_next_cheapest_whatever_its_kind() -> None:
    # The API ($2.42M) wins; renting at $5 an instance-hour, 32 x 730 x 36 x 5 = $4,204,800,
    # comes next; buying ($10.46M) last. The electricity price moves buying alone: the margin
    # (renting less the API) does not move, where buying's saving against the API would.
    rent = (replace(flat_scenario().rent[0], price_usd_per_instance_hour=5.0),)
    scenario = _token_scenario(ApiOption("cheap-api", 1.0, 1.0, 0.10), rent=rent)
    result = evaluate(scenario)
    tornado = result.tornado
    assert (tornado.winner, tornado.against_kind) == ("Pay per token: cheap-api", "rent")
    assert_allclose(tornado.base_saving_usd, result.verdict.margin_usd)
    rows = {row.path: row for row in tornado.rows}
    power = rows["facility.electricity_usd_per_kwh"]
    assert power.swing_usd == 0.0 and power.effect_usd == 0.0
    # The rent price moves the margin by 10 % of the rent bill each way: 2 x $420,480.
    assert_allclose(rows["rent.0.price_usd_per_instance_hour"].swing_usd, 2 * 420_480.0)
