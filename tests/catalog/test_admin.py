"""Admin pages of every catalog model render, price history shows newest first, quotes upload."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from catalog.models import Accelerator
from catalog.models import AcceleratorPowerCap
from catalog.models import AcceleratorThroughput
from catalog.models import CloudOffering
from catalog.models import CoolingTechnology
from catalog.models import FacilityProfile
from catalog.models import PowerDensityReference
from catalog.models import PricePoint
from catalog.models import QuoteImport
from catalog.models import Source
from catalog.models import SystemSku

MODELS = (
    Source,
    Accelerator,
    AcceleratorThroughput,
    AcceleratorPowerCap,
    SystemSku,
    CloudOffering,
    PricePoint,
    CoolingTechnology,
    FacilityProfile,
    PowerDensityReference,
)


def _url(model, view: str, *args) -> str:
    return reverse(f"admin:catalog_{model._meta.model_name}_{view}", args=args)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_changelist_search_and_change_pages_render(admin_client, catalog, model):
    obj = model.objects.first()

    assert admin_client.get(_url(model, "changelist")).status_code == 200
    assert admin_client.get(_url(model, "changelist"), {"q": "h100"}).status_code == 200
    assert admin_client.get(_url(model, "change", obj.pk)).status_code == 200


@pytest.mark.parametrize("model", [m for m in MODELS if m is not PricePoint], ids=lambda m: m.__name__)
def test_add_pages_render(admin_client, catalog, model):
    assert admin_client.get(_url(model, "add")).status_code == 200


def test_the_offering_page_shows_its_price_history_newest_first(admin_client, catalog):
    p5 = CloudOffering.objects.get(provider="aws", instance_type="p5.48xlarge", region="unspecified")

    page = admin_client.get(_url(CloudOffering, "change", p5.pk)).content.decode()

    # 55.04 (seed-003, 2026-06-18), 98.32 (seed-004, 2025-01-01), 100 (seed-002, 2024-01-01)
    positions = [page.index(amount) for amount in ("55.0400", "98.3200", "100.0000")]
    assert positions == sorted(positions)


def test_the_accelerator_page_shows_where_each_figure_comes_from(admin_client, catalog):
    h100 = Accelerator.objects.get(slug="h100-sxm-80gb")

    page = admin_client.get(_url(Accelerator, "change", h100.pk)).content.decode()

    # Issue 24: the sources of each figure are a table, the figure by its label, each source by
    # its title with its key.
    row = re.search(r"<tr><td>TDP[^<]*</td><td>([^<]*)</td></tr>", page)
    assert row is not None and all(f"({key})" in row.group(1)
                                   for key in ("seed-000", "seed-002", "seed-003", "seed-004"))
    assert "1979.00" in page  # the with-sparsity rows are listed with the dense ones


def test_the_quote_upload_adds_prices_on_a_worker_and_shows_the_import(
    admin_client, catalog, django_capture_on_commit_callbacks
):
    count = PricePoint.objects.count()
    upload = SimpleUploadedFile(
        "quote.csv", b"kind,slug,amount,currency,as_of,source\nsystem,dgx-h100,420000,USD,2026-10-01,ACME\n"
    )

    with django_capture_on_commit_callbacks(execute=True):  # the import task runs inline here
        response = admin_client.post(reverse("admin:catalog_pricepoint_import"), {"file": upload})

    job = QuoteImport.objects.get()
    assert response["Location"] == reverse("admin:catalog_quoteimport_change", args=[job.pk])
    assert (job.status, job.rows_total, job.prices_created, job.progress_percent) == ("done", 1, 1, 100)
    assert PricePoint.objects.count() == count + 1
    page = admin_client.get(response["Location"]).content.decode()
    assert "100 % (1 of 1 rows checked, 1 written)" in page


def test_a_refused_quote_file_names_every_bad_row_on_its_import_page_and_writes_nothing(
    admin_client, catalog, django_capture_on_commit_callbacks
):
    count = PricePoint.objects.count()
    upload = SimpleUploadedFile(
        "quote.csv",
        b"kind,slug,amount,currency,as_of,source\n"
        b"system,dgx-h100,420000,USD,2026-10-01,ACME\n"
        b"system,dgx-h100,-3,USD,2026-10-01,ACME\n",
    )

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(reverse("admin:catalog_pricepoint_import"), {"file": upload})

    job = QuoteImport.objects.get()
    assert (job.status, job.prices_created) == ("failed", 0)
    assert job.errors == [{"row": 3, "field": "amount", "reason": "must be greater than zero"}]
    assert job.error == "Nothing was imported: 1 bad row (first: row 3, amount: must be greater than zero)."
    assert PricePoint.objects.count() == count
    page = admin_client.get(response["Location"]).content.decode()
    assert "<tr><td>3</td><td>amount</td><td>must be greater than zero</td></tr>" in page


def test_a_file_that_is_not_text_is_refused_at_once_as_a_form_error(admin_client, catalog):
    upload = SimpleUploadedFile("quote.csv", b"kind,slug\n\x00\x01")

    response = admin_client.post(reverse("admin:catalog_pricepoint_import"), {"file": upload})

    assert response.status_code == 200
    assert response.context["form"].errors["file"] == [
        r"file: not a CSV text file: it holds binary data ('\x00' at character 10)"]
    assert not QuoteImport.objects.exists()


def test_the_upload_page_renders_and_is_linked_from_the_price_list(admin_client, catalog):
    listing = admin_client.get(_url(PricePoint, "changelist")).content.decode()

    assert reverse("admin:catalog_pricepoint_import") in listing
    assert admin_client.get(reverse("admin:catalog_pricepoint_import")).status_code == 200


@pytest.mark.parametrize(("change", "field", "words"), [
    ({"rate": "1000000000"}, "rate",
     "1 EUR = 1000000000 USD is more than 2 times off the ECB's 1.1649 USD of 2026-03-04"),
    ({"rate": "0.0000001"}, "rate", "1 EUR = 0.0000001 USD is more than 2 times off the ECB's 1.1649 USD"),
    ({"on": "2099-01-01"}, "on", "2099-01-01 is outside the days a rate can be known: from 1999-01-04"),
    ({"on": "1900-01-01"}, "on", "1900-01-01 is outside the days a rate can be known"),
])
def test_the_exchange_rate_form_applies_the_apis_bounds(admin_client, db, change, field, words):
    """The same rule as POST /api/v1/exchange-rates/ (tests/tco/test_money_api.py)."""
    from datetime import date
    from decimal import Decimal

    from catalog.choices import SourceKind
    from catalog.exchange_rates.services import ecb_source
    from catalog.models import ExchangeRate

    ecb = ecb_source()
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.1649"), on=date(2026, 3, 4),
                                source=ecb)
    treasury = Source.objects.create(key="treasury-2026-03", title="Treasury rate sheet, March 2026",
                                     kind=SourceKind.REFERENCE_DOCUMENT)
    form = {"base": "EUR", "quote": "USD", "rate": "1.15", "on": "2026-03-04",
            "source": treasury.pk, "team": ""}

    refused = admin_client.post(_url(ExchangeRate, "add"), {**form, **change})
    saved = admin_client.post(_url(ExchangeRate, "add"), form)

    assert refused.status_code == 200
    [error] = refused.context["adminform"].form.errors[field]
    assert words in error
    assert saved.status_code == 302
    assert list(ExchangeRate.objects.filter(source=treasury).values_list("rate", flat=True)) == [
        Decimal("1.15")]
