"""Every view that shows a scenario's figures names the same winner, lists every option where it
lists options, and writes money in the scenario's currency.

Three scenarios, each in its own currency and with another winner:

- US dollars: the 8x H100 demo, which buying wins;
- euros: the same demo with a per-token API at $0.10 / $0.05 / $0.20 per million input, cached
  and output tokens, which wins (1,000 tokens/s per accelerator);
- pounds sterling: the 256x B200 demo, which a rent option wins.

The views: the API's evaluate, the scenario page, the scenario list and the team home (the
scenario's row), side by side (the scenario and its clone), compare versions, a Monte Carlo and
a sensitivity run's pages, a plan's page, a price alert's e-mail, the PDF (as pdftotext reads it)
and the workbook (its cached values and number formats). In a scenario not in US dollars no
figure may read "$" or "USD", except where an exchange rate is stated.
"""
from __future__ import annotations

import datetime as dt
import html
import io
import re
import subprocess
from decimal import Decimal

import pytest
from django.core import mail
from django.utils import timezone
from openpyxl import load_workbook

from catalog.exchange_rates.services import ecb_source
from catalog.models import ExchangeRate
from catalog.models import PricePoint
from notifications.models import Subscription
from reports.services import report_build
from reports.services import report_content_for
from tco.models import ApiOption
from tco.models import Scenario
from tco.models import SweepRun
from tco.services.plans import plan_create
from tco.services.repricing import scenario_reprice
from tco.services.runs import sweep_run_start
from tco.services.scenarios import scenario_clone
from tco.services.scenarios import scenario_update

RATES_ON = dt.date(2026, 3, 4)
CASES = {
    # case: (demo scenario, reporting currency, the winner's kind)
    "usd-buy": ("8x H100 training cluster", "USD", "buy"),
    "eur-api": ("8x H100 training cluster", "EUR", "api"),
    "gbp-rent": ("256x B200 build with liquid cooling", "GBP", "rent"),
}
# The views that list the options (a plan ranks its own choices; an alert names what moved).
LISTS_OPTIONS = ("scenario page", "side by side", "compare versions", "Monte Carlo run", "PDF", "workbook")
# How an exchange rate is stated: "1 EUR = 1.1649 USD", "0.8584 EUR/USD", "exchange rate".
RATE_WORDS = re.compile(r"1 [A-Z]{3} = [\d.,]+ [A-Z]{3}|\b[A-Z]{3}/[A-Z]{3}\b|(?i:exchange rate)")


def money_leaks(text: str, currency: str) -> list[str]:
    """What in ``text`` writes US dollars in a scenario reported in another currency: each "$" or
    "USD" with the words around it, unless those words state an exchange rate (a quote in dollars
    beside its conversion may name both, however a PDF wraps the line)."""
    if currency == "USD":
        return []
    flat = re.sub(r"\s+", " ", text)
    found = []
    for match in re.finditer(r"\$|\bUSD\b", flat):
        around = flat[max(0, match.start() - 300):match.end() + 300]
        if not RATE_WORDS.search(around):
            found.append(around)
    return found


def visible_text(page: str) -> str:
    """The text a person reads on a page: tags, scripts and styles out, one line per block."""
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)
    page = re.sub(r"<(br|/p|/tr|/li|/h\d|/div|/caption|/th)\b[^>]*>", "\n", page)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def section(page: str, element_id: str) -> str:
    """The element with ``id`` (up to the next element of the same kind closing it)."""
    match = re.search(rf'<(\w+)[^>]*\bid="{element_id}".*?</\1>', page, flags=re.S)
    assert match, f"no #{element_id} on the page"
    return match.group(0)


def row_of(page: str, name: str) -> str:
    """The table row that names the scenario ``name``."""
    rows = [row for row in re.findall(r"<tr\b.*?</tr>", page, flags=re.S) if html.escape(name) in row]
    assert rows, f"no row names {name}"
    return rows[0]


@pytest.fixture(params=list(CASES))
def case(request, demo_scenarios, admin_user):
    """The case's scenario, in its currency, with its options; and what its verdict says."""
    name, currency, winner_kind = CASES[request.param]
    scenario = demo_scenarios[name]
    for code, rate in (("EUR", "1.1649"), ("GBP", "1.3322")):
        ExchangeRate.objects.create(base=code, quote="USD", rate=Decimal(rate), on=RATES_ON,
                                    source=ecb_source())
    Scenario.objects.filter(pk=scenario.pk).update(reporting_currency=currency, rates_as_of=RATES_ON,
                                                   currency="USD", prices_as_of=None)
    if winner_kind == "api":
        Scenario.objects.filter(pk=scenario.pk).update(tokens_per_s_per_accelerator=Decimal("1000"))
        ApiOption.objects.create(scenario=scenario, name="Hosted Llama 70B",
                                 usd_per_million_input=Decimal("0.10"),
                                 usd_per_million_cached_input=Decimal("0.05"),
                                 usd_per_million_output=Decimal("0.20"))
    scenario.refresh_from_db()
    return scenario, currency, winner_kind


@pytest.fixture
def evaluated(case, client, admin_user):
    """The API's evaluation of the case (which records its snapshot), and its verdict."""
    scenario, currency, winner_kind = case
    client.force_login(admin_user)
    response = client.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/")
    assert response.status_code == 200, response.json()
    verdict = response.json()["result"]["verdict"]
    assert verdict["cheapest"]["kind"] == winner_kind
    assert verdict["currency"] == currency
    return verdict


def test_every_view_names_the_winner_lists_every_option_and_writes_its_currency(
        case, evaluated, client, admin_user, django_capture_on_commit_callbacks, tmp_path):
    scenario, currency, _ = case
    winner = evaluated["cheapest"]["label"]
    options = [option["name"] for option in evaluated["options"]]  # each label ends with it
    seen: dict[str, str] = {}

    # The API: its sentence, in the scenario's currency.
    assert not money_leaks(evaluated["sentence"], currency), evaluated["sentence"]
    assert evaluated["sentence"].startswith(winner)

    # The scenario page: the result (its inputs' form names every currency it offers).
    page = client.get(f"/admin/tco/scenario/{scenario.pk}/change/").content.decode()
    seen["scenario page"] = visible_text(section(page, "scenario-result"))

    # The scenario list and the team home: the scenario's row.
    for view, url in (("scenario list", "/admin/tco/scenario/"), ("team home", "/admin/")):
        seen[view] = visible_text(row_of(client.get(url).content.decode(), scenario.name))

    # Side by side: the scenario beside its clone.
    clone = scenario_clone(scenario=scenario, owner=admin_user)
    page = client.post("/admin/tco/scenario/", {
        "action": "side_by_side_selected", "_selected_action": [scenario.pk, clone.pk]}).content.decode()
    seen["side by side"] = visible_text(section(page, "side-by-side"))

    # Compare versions: the scenario before and after an edit of its description.
    scenario_update(scenario=scenario, data={"description": "Edited for the comparison."},
                    rent_options=None, user=admin_user, revision=scenario.revision)
    page = client.get(f"/admin/tco/scenario/{scenario.pk}/compare/").content.decode()
    seen["compare versions"] = visible_text(section(page, "verdict-moves"))

    # A Monte Carlo run and a sensitivity run (eager: done when started).
    with django_capture_on_commit_callbacks(execute=True):
        sweep_run_start(scenario=scenario, kind="monte_carlo", created_by=admin_user, seed=7, spec={
            "samples": 200, "distributions": [{"path": "workload.utilisation", "kind": "triangular",
                                               "low": 0.5, "mode": 0.7, "high": 0.9}]})
        sweep_run_start(scenario=scenario, kind="sensitivity", created_by=admin_user,
                        spec={"step_share": 0.1})
    for run in SweepRun.objects.filter(scenario=scenario):
        page = client.get(f"/admin/tco/sweeprun/{run.pk}/change/").content.decode()
        seen[f"{run.get_kind_display()} run"] = visible_text(section(page, "run-result"))

    # A plan over the scenario's demand.
    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_create(scenario=scenario, name="Plan", spec={
            "demand": {"start": 8, "growth_per_month": 0.05, "months": 36},
            "owned": [{"name": scenario.system.name, "lead_time_months": 4}],
            "rent": [{"name": next(o["name"] for o in evaluated["options"] if o["kind"] == "rent")}]})
    page = client.get(f"/admin/tco/procurementplan/{plan.pk}/change/").content.decode()
    seen["plan"] = visible_text(page[page.index('id="content"'):])

    # A price alert's e-mail: a catalog price of a rent option halved today.
    Subscription.objects.create(team=scenario.team, channel="email", address="finance@example.com",
                                events=["price_alert"])
    assert client.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/").status_code == 200  # the baseline
    option = scenario.rent_options.filter(price_usd_per_instance_hour__isnull=True).first()
    latest = option.offering.prices.filter(team__isnull=True).order_by("-as_of").first()
    PricePoint.objects.create(offering=option.offering, amount=latest.amount / 2, currency=latest.currency,
                              as_of=timezone.localdate(), source=latest.source, retrieved_at=timezone.now())
    scenario.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        alerts = scenario_reprice(scenario=scenario)
    assert alerts, "halving a rent price moved nothing"
    (email,) = [message for message in mail.outbox if message.to == ["finance@example.com"]]
    seen["alert e-mail"] = email.body

    # The PDF and the workbook of the scenario's report.
    scenario.refresh_from_db()
    content = report_content_for(scenario=scenario)
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(report_build(content=content, format="pdf"))
    seen["PDF"] = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                                 check=True, timeout=120).stdout
    workbook = load_workbook(io.BytesIO(report_build(content=content, format="xlsx")))
    texts, formats = [], set()
    for sheet in workbook.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                # A cell that is only a code names a quote's currency (the prices used, the
                # rates): not an amount written in it.
                if isinstance(cell.value, str) and not cell.value.startswith("=") \
                        and not re.fullmatch(r"[A-Z]{3}", cell.value):
                    texts.append(cell.value)
                if isinstance(cell.value, int | float) or str(cell.value).startswith("="):
                    formats.add(cell.number_format)
    seen["workbook"] = "\n".join(texts)
    dollar_formats = [f for f in formats if currency != "USD" and ('"$"' in f or "USD" in f)]

    # The winner, named as the verdict names it, everywhere; every option where options are
    # listed; no dollar in another currency. Every finding at once, view by view.
    flat = {view: re.sub(r"\s+", " ", text) for view, text in seen.items()}
    findings = [f"the {view} does not name the winner {winner}" for view, text in flat.items()
                if view not in ("plan", "Sensitivity run") and winner not in text]
    findings += [f"the {view} leaves out {option}" for view in LISTS_OPTIONS for option in options
                 if option not in flat[view]]
    findings += [f"the {view} writes US dollars: {money_leaks(text, currency)[:2]}"
                 for view, text in seen.items() if money_leaks(text, currency)]
    findings += [f"the workbook formats money in US dollars: {f}" for f in dollar_formats]
    assert not findings, "\n".join(findings)
