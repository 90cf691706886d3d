"""What users read about a failed job names no path of the server's file system; the log keeps it.

A refresh of AWS pointed at a single offer file (not a mirror's root) fails with
MissingSource; the job list a signed-in user reads shows the file's name, never the folder it
sits in.
"""
from __future__ import annotations

import logging
from pathlib import Path

from catalog.models import RefreshStatus
from core.shown_errors import without_paths
from tests.catalog.test_refresh import aws_mirror
from tests.catalog.test_refresh import refresh

OFFER = "offers/v1.0/aws/AmazonEC2/20260910195514/us-east-1/index.json"


def test_a_failed_refresh_shows_no_server_path(catalog, tmp_path: Path, client, caplog,
                                               django_user_model):
    client.force_login(django_user_model.objects.create_user("reader"))  # jobs need sign-in
    offer_file = aws_mirror(tmp_path / "mirror-secret-dir") / OFFER

    with caplog.at_level(logging.WARNING, logger="catalog.refresh.services"):
        job = refresh("aws", offer_file)
    shown = client.get("/api/v1/price-refresh-jobs/").json()["results"][0]

    assert (job.status, job.error_code) == (RefreshStatus.FAILED, "missing_source")
    assert "mirror-secret-dir" not in shown["error"] + shown["location"]
    assert str(tmp_path) not in shown["error"] + shown["location"]
    # A single file holds no region folder of a mirror (issue 24: a missing region is skipped).
    assert "…/index.json: holds none of the regions" in shown["error"]
    assert shown["location"] == "…/index.json"
    assert str(offer_file) in caplog.text  # the operator still finds the whole path in the log


def test_paths_are_cut_to_their_names_and_urls_and_units_kept():
    assert (without_paths("FileNotFoundError: [Errno 2] No such file or directory: '/srv/tco/runs/7.parquet'")
            == "FileNotFoundError: [Errno 2] No such file or directory: '…/7.parquet'")
    assert without_paths("aws: ../shared/mirror/index.json: missing") == "aws: …/index.json: missing"
    assert without_paths("file:///var/feeds/x.json is empty") == "…/x.json is empty"
    kept = "aws: https://pricing.example/offers/v1.0/aws/index.json: HTTP 503 at 6.88 USD/h / GPU"
    assert without_paths(kept) == kept
