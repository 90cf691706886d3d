"""A run's pages and summary list every option as the scenario's verdict does, in its currency
(issue 46): run_scenario's DGX H100 at 400,000 and p5 at 50 an hour, against a per-token API at
0.01 a million tokens, the cheapest at every draw: 8 accelerators x 730 h x 1,000 tokens/s x
3,600 s = 21,024 million tokens a month at full use, 210.24 a month."""
from __future__ import annotations

from decimal import Decimal

import pytest

from tco.models import ApiOption
from tco.models import RunKind
from tco.services.scenarios import scenario_save
from tests.tco.test_runs_services import start

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]
API_NAME = "Cheap tokens"
MONTE_CARLO = {"samples": 200, "histogram_bins": 10,
               "distributions": [{"path": "utilisation", "kind": "uniform", "low": 0.3, "high": 1.0}]}


@pytest.fixture
def api_cheapest(run_scenario):
    run_scenario.tokens_per_s_per_accelerator = Decimal("1000")
    api = ApiOption(name=API_NAME, usd_per_million_input=Decimal("0.01"),
                    usd_per_million_cached_input=Decimal("0.01"), usd_per_million_output=Decimal("0.01"))
    return scenario_save(scenario=run_scenario, rent_options=list(run_scenario.rent_options.all()),
                         api_options=[api])


def _page(client, run) -> str:
    return client.get(f"/admin/tco/sweeprun/{run.pk}/change/").content.decode()


def test_monte_carlo_gives_the_api_a_probability_of_100_percent_and_every_other_option_0(
        api_cheapest, admin_client):
    run = start(api_cheapest, RunKind.MONTE_CARLO, MONTE_CARLO, seed=3)

    ranking = {row["label"]: row["cheapest_share"] for row in run.summary["ranking"]}
    assert ranking == {"Buy": 0.0, "Rent p5 on demand": 0.0, f"Pay per token: {API_NAME}": 1.0}
    assert run.summary["buy_wins_probability"] == 0.0
    api_npv = run.summary["ranking"][2]["npv_usd"]
    # At most 210.24 a month over 36 months, no discounting: 7,568.64 at full use.
    assert 0 < api_npv["min"] <= api_npv["max"] <= 7_568.64 + 0.01
    page = _page(admin_client, run)
    assert "<th>Buy</th><td class=\"num\">0.0%</td>" in page
    assert "<th>Rent p5 on demand</th><td class=\"num\">0.0%</td>" in page
    assert f"<th>Pay per token: {API_NAME}</th><td class=\"num\">100.0%</td>" in page
    assert "Winner&#x27;s margin over the next cheapest (NPV)" in page
    assert "Probability that buying wins" not in page


def test_a_sweep_counts_the_points_where_each_option_is_the_cheapest(api_cheapest, admin_client):
    spec = {"axes": [{"path": "utilisation", "values": [0.5, 1.0]}]}
    run = start(api_cheapest, RunKind.SWEEP, spec)

    assert [(row["kind"], row["cheapest_share"]) for row in run.summary["ranking"]] == [
        ("buy", 0.0), ("rent", 0.0), ("api", 1.0)]
    # The API's NPV over the two points is the tokens' cost, in proportion to u (0.5 and 1), at
    # most 36 x 210.24 = 7,568.64.
    npv = run.summary["ranking"][2]["npv_usd"]
    assert npv["max"] == pytest.approx(2 * npv["min"]) and npv["max"] <= 7_568.64
    assert "Share of points where it is the cheapest" in _page(admin_client, run)


def test_the_api_summary_lists_every_option_with_the_runs_currency(api_cheapest, api):
    run = start(api_cheapest, RunKind.MONTE_CARLO, MONTE_CARLO, seed=3)

    summary = api.get(f"/api/v1/runs/{run.pk}/summary/").json()
    assert summary["currency"] == "USD"
    assert [row["label"] for row in summary["ranking"]] == ["Buy", "Rent p5 on demand",
                                                            f"Pay per token: {API_NAME}"]
    assert summary["margin_usd"]["p50"] > 0


def test_the_sensitivity_page_shows_the_scenarios_own_swings_of_the_winners_margin_sorted_and_folded(
        api_cheapest, admin_client):
    from costmodel.vocabulary import usd_short
    from tco.runs.summaries import stored_tornado
    from tco.services.evaluation import scenario_evaluate

    run = start(api_cheapest, RunKind.SENSITIVITY, {"step_share": 0.1})
    own = scenario_evaluate(scenario=api_cheapest).tornado

    # One computation: the run's swing of each input is the scenario's, of the API's margin over
    # buying (the next cheapest).
    assert own.winner == f"Pay per token: {API_NAME}" and own.against == "Buy"
    stored = stored_tornado(run.summary)
    assert (stored.winner, stored.against) == (own.winner, own.against)
    swings = {row.path: row.effect_usd for row in own.rows}
    assert {row.path: row.effect_usd for row in stored.rows} == pytest.approx(swings)
    page = _page(admin_client, run)
    moving = sorted((row for row in own.rows if row.effect_usd > 0), key=lambda row: -row.effect_usd)
    positions = [page.index(usd_short(row.effect_usd) + "</td>") if row.effect_usd == row.swing_usd
                 else page.index(usd_short(row.effect_usd) + " (") for row in moving[:3]]
    assert positions == sorted(positions)  # widest first
    assert f"The margin of Pay per token: {API_NAME} over the next cheapest (NPV)" in page
    assert page.count("<rect width=") == len(moving)  # a bar each
    still = len(own.rows) - len(moving)
    assert f"{still} inputs move nothing: " in page
    assert "option 1" not in page
    assert "Swing" in page and "swing_usd" not in page


@pytest.fixture
def eur_api_cheapest(api_cheapest):
    from django.utils import timezone

    from tests.tco.test_currencies import add_rate

    # The amounts typed in euros; the catalog's in dollars, converted at the day's rate.
    add_rate(timezone.localdate(), "1.16")
    api_cheapest.reporting_currency = api_cheapest.currency = "EUR"
    api_cheapest.save()
    return api_cheapest


def _result_section(page: str) -> str:
    return page[page.index('id="run-result"'):page.index("</fieldset>", page.index('id="run-result"'))]


@pytest.mark.parametrize("kind, spec", [
    (RunKind.MONTE_CARLO, MONTE_CARLO),
    (RunKind.SWEEP, {"axes": [{"path": "utilisation", "values": [0.5, 1.0]}]}),
    (RunKind.SENSITIVITY, {"step_share": 0.1}),
])
def test_a_euro_runs_page_and_downloads_say_euros_never_dollars(eur_api_cheapest, admin_client, api, kind,
                                                                spec):
    run = start(eur_api_cheapest, kind, spec, **({"seed": 3} if kind == RunKind.MONTE_CARLO else {}))

    assert run.summary["currency"] == "EUR"
    result = _result_section(_page(admin_client, run))
    assert "EUR " in result
    assert "$" not in result and "USD" not in result
    if kind != RunKind.SENSITIVITY:
        assert f"NPV of costs, {'P10' if kind == RunKind.MONTE_CARLO else 'min'} (EUR)" in result
    download = api.get(api.get(f"/api/v1/runs/{run.pk}/").json()["result_csv_url"])
    header = b"".join(download.streaming_content).decode().splitlines()[0]
    assert "usd" not in header.lower() and ("buy: npv_eur" in header or kind == RunKind.SENSITIVITY)
