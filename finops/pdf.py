"""The variance of actual costs against their target: formatted tables for the admin page and
the PDF (one template for both)."""
from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string
from weasyprint import HTML
from weasyprint.urls import URLFetcher

from costmodel.vocabulary import MISSING
from costmodel.vocabulary import money
from finops.variance import Variance


def _row(label: str, row: dict[str, Any], currency: str) -> dict[str, Any]:
    share = row["variance_share"]
    projected, actual, difference = (money(row[key], currency=currency)
                                     for key in ("projected_usd", "actual_usd", "variance_usd"))
    return {"label": label, "projected": projected, "actual": actual, "variance": difference,
            "share": MISSING if share is None else f"{share:+.1%}", "over_threshold": row["over_threshold"]}


def variance_context(variance: Variance) -> dict[str, Any]:
    """What the variance template shows: the tables by month, option and provider, and the total."""
    target = variance.target
    scenario = target.approved_scenario
    currency = variance.currency
    months = [_row(row["month"][:7], row, currency) for row in variance.by_month]
    return {
        "variance": variance,
        "currency": currency,
        "threshold": f"{variance.threshold_share:.0%}",
        "heading": f"Actual costs: {scenario.name}",
        "subheading": f"Team {target.team.name}; compared with {variance.option}, month 0 = "
                      f"{target.starts_on:%B %Y}.",
        "tables": [("By month", "Month", months),
                   ("By option", "Option", [_row(row["option"], row, currency)
                                            for row in variance.by_option]),
                   ("By provider", "Provider", [_row(row["provider"], row, currency)
                                                for row in variance.by_provider]),
                   ("Total", "", [_row("All months", variance.total, currency)] if months else [])],
    }


def variance_pdf(variance: Variance) -> bytes:
    html = render_to_string("finops/variance.html", variance_context(variance))
    return HTML(string=html, url_fetcher=URLFetcher(allowed_protocols={"data"})).write_pdf()
