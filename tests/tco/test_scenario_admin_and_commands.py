"""The scenario admin page with its result, cloning, and the tco_evaluate / load_demo commands."""
from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
from decimal import Decimal

import pytest
from django.core.management import CommandError
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from catalog.models import CloudOffering
from catalog.models import PricePoint
from tco.models import RentOption
from tco.models import Scenario
from teams.finance_defaults import FINANCE_DEFAULTS
from teams.models import FinanceDefault
from tests.teams.members import team

pytestmark = pytest.mark.django_db


def test_the_scenario_page_shows_key_figures_chart_and_cash_flows(admin_client, demo_scenarios):
    scenario = demo_scenarios["8x H100 training cluster"]

    response = admin_client.get(f"/admin/tco/scenario/{scenario.pk}/change/")

    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="scenario-result"' in page
    assert "<svg" in page  # the cumulative-cost chart
    assert "breakeven" in page.lower()
    assert "Monthly cash flows" in page
    assert "Air cooling (CRAC/CRAH)" in page  # one DGX H100 at 10.2 kW per rack


def test_the_scenario_list_and_add_pages_render(admin_client, demo_scenarios):
    listing = admin_client.get("/admin/tco/scenario/")
    assert listing.status_code == 200
    assert admin_client.get("/admin/tco/scenario/add/").status_code == 200
    # A price age stays on one line in its narrow column: '1,057 days' with a no-break space.
    assert re.search(r'<td class="field-price_age">[\d,]+\u00a0days</td>', listing.content.decode())


def test_input_labels_are_the_vocabularys_with_their_units(admin_client, demo_scenarios):
    scenario = demo_scenarios["8x H100 training cluster"]
    page = admin_client.get(f"/admin/tco/scenario/{scenario.pk}/change/").content.decode()
    labels = re.findall(r"<label[^>]*>([^<]+)</label>", page)

    for label in ("PUE:", "System price (USD per system):", "Utilisation (0-1):",
                  "Electricity price (USD per kWh):", "Loan term (months):",
                  "Instance price (USD per instance-hour):", "Up-front payment (USD per instance):"):
        assert label in labels, label
    assert not {"Pue:", "System price usd:", "Electricity usd per kwh:", "Upfront usd:"} & set(labels)


def test_inputs_show_as_typed_not_as_stored(admin_client, demo_scenarios):
    scenario = demo_scenarios["8x H100 training cluster"]
    page = admin_client.get(f"/admin/tco/scenario/{scenario.pk}/change/").content.decode()

    # The columns keep 4 and 2 decimals; the fields show 0.8 and 730, and an empty sizing is empty.
    assert 'name="utilisation" value="0.8"' in page and 'name="hours_per_month" value="730"' in page
    assert re.search(r'name="rent_options-0-upfront_usd" value="0"', page)
    assert re.search(r'<textarea name="sizing"[^>]*>\s*</textarea>', page)


def test_a_blank_input_says_what_it_resolves_to_and_follows_a_new_price(admin_client, demo_scenarios):
    # The system price is left empty: the catalog's price point for the DGX H100 fills it.
    scenario = demo_scenarios["8x H100 training cluster"]
    url = f"/admin/tco/scenario/{scenario.pk}/change/"
    assert scenario.system_price_usd is None
    assert "Used now: $320,000.00 USD, catalog" in admin_client.get(url).content.decode()

    current = PricePoint.objects.filter(system=scenario.system).latest("as_of")
    PricePoint.objects.create(system=scenario.system, amount=Decimal("350000"), source=current.source,
                              as_of=timezone.localdate() - dt.timedelta(days=1), retrieved_at=timezone.now())

    assert "Used now: $350,000.00 USD, catalog" in admin_client.get(url).content.decode()


def test_the_scenario_page_asks_each_role_once(admin_client, demo_scenarios):
    # Every inline, form, widget and link asks whether the user may view, add or change: the
    # answers are kept for the request (73 queries of the teams table before). The questions: a
    # role (viewer, analyst, approver) in the scenario's team, and in some team.
    scenario = demo_scenarios["8x H100 training cluster"]
    with CaptureQueriesContext(connection) as queries:
        assert admin_client.get(f"/admin/tco/scenario/{scenario.pk}/change/").status_code == 200
    role_checks = [q["sql"] for q in queries.captured_queries
                   if q["sql"].startswith('SELECT 1 AS "a" FROM "teams_team"')]
    assert 0 < len(role_checks) <= 6


def test_clone_copies_the_scenario_and_its_rent_options(admin_client, demo_scenarios):
    scenario = demo_scenarios["256x B200 build with liquid cooling"]

    response = admin_client.get(f"/admin/tco/scenario/{scenario.pk}/clone/")

    copy = Scenario.objects.get(name="256x B200 build with liquid cooling (copy)")
    assert response.status_code == 302
    assert copy.accelerators == 256
    assert RentOption.objects.filter(scenario=copy).count() == 3
    assert RentOption.objects.filter(scenario=scenario).count() == 3


def test_load_demo_twice_changes_nothing(catalog):
    call_command("load_demo", stdout=io.StringIO())
    before = (Scenario.objects.count(), RentOption.objects.count(), CloudOffering.objects.count())

    call_command("load_demo", stdout=io.StringIO())

    assert before == (3, 8, before[2])
    assert (Scenario.objects.count(), RentOption.objects.count(),
            CloudOffering.objects.count()) == before


@pytest.fixture
def scenario_file(tmp_path, catalog):
    offering = CloudOffering.objects.get(provider="aws", instance_type="p5.48xlarge",
                                         pricing_model="on_demand")
    data = {"name": "cli", "accelerator": "h100-sxm-80gb", "accelerators": 8, "utilisation": "1",
            "system": "dgx-h100", "system_price_usd": "400000", "facility": "colo-air",
            "electricity_usd_per_kwh": "0.10", "pue": "1", "colocation_usd_per_kw_month": "0",
            "horizon_months": 12, **{name: "0" for name in FINANCE_DEFAULTS},
            "depreciation_months": 60,
            "rent_options": [{"offering": offering.pk, "price_usd_per_instance_hour": "50"}]}
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(data))
    return path


def test_tco_evaluate_prints_the_result_as_json(scenario_file):
    out = io.StringIO()

    call_command("tco_evaluate", str(scenario_file), stdout=out)

    result = json.loads(out.getvalue())["result"]
    assert result["rent"][0]["breakeven_month"] == 12  # 400,000 / (36,500 - 744.60) = 11.19
    assert Scenario.objects.count() == 0


def test_tco_evaluate_takes_the_finance_defaults_of_the_team_a_file_names(scenario_file):
    FinanceDefault.objects.create(team=team(), field="support_share_per_year",
                                  value=Decimal("0.11"), reason="our vendor's support quote")
    data = json.loads(scenario_file.read_text())
    del data["support_share_per_year"]
    scenario_file.write_text(json.dumps({**data, "team": team().slug}))
    out = io.StringIO()

    call_command("tco_evaluate", str(scenario_file), stdout=out)

    assumptions = {row["path"]: row for row in json.loads(out.getvalue())["assumptions"]}
    assert assumptions["buy.support_share_per_year"]["value"] == 0.11


def test_tco_evaluate_prints_monthly_lines_as_csv(scenario_file):
    out = io.StringIO()

    call_command("tco_evaluate", str(scenario_file), "--csv", stdout=out)

    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [int(r["month"]) for r in rows] == list(range(13))
    rent_total = [c for c in rows[0] if c.endswith(": total") and not c.startswith("buy")][0]
    assert float(rows[1][rent_total]) == 36_500.00  # 730 h x $50
    assert float(rows[12]["buy: cumulative"]) == pytest.approx(400_000 + 12 * 744.60)


def test_tco_evaluate_fails_naming_the_field(tmp_path, scenario_file):
    data = json.loads(scenario_file.read_text())
    data["utilisation"] = "2"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))

    with pytest.raises(CommandError, match="utilisation"):
        call_command("tco_evaluate", str(bad), stdout=io.StringIO())


@pytest.mark.parametrize(("field", "value", "message"), [
    ("system", "dgx-h1000", "system: no system SKU 'dgx-h1000'"),
    ("horizon_months", "three years", "horizon_months: “three years” value must be an integer."),
    ("utilisaton", "0.5", "utilisaton: is not a field here"),
])
def test_tco_evaluate_names_the_field_it_cannot_read(tmp_path, scenario_file, field, value,
                                                     message):
    data = {**json.loads(scenario_file.read_text()), field: value}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))

    with pytest.raises(CommandError) as refused:
        call_command("tco_evaluate", str(bad), stdout=io.StringIO())

    assert str(refused.value) == f"{bad}: invalid scenario: {message}"
