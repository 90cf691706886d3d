"""A request body over DATA_UPLOAD_MAX_MEMORY_SIZE gets JSON naming the limit (it was Django's
HTML 400 page that did not say why)."""
from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.django_db


def test_a_json_body_over_the_limit_is_refused_naming_it(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
    body = json.dumps({"name": "x" * 99_000, "description": ["y" * 1000] * 1100})

    response = api.post("/api/v1/evaluate/", body, content_type="application/json")

    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "The request body is larger than the limit of 1 MiB "
                                         "(1,048,576 bytes; DJANGO_UPLOAD_MAX_BYTES)."}


def test_a_form_over_the_limit_is_refused_naming_it(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
    body = "&".join(f"field{i}={'z' * 1000}" for i in range(1100))

    response = api.post("/api/v1/evaluate/", body, content_type="application/x-www-form-urlencoded")

    assert response.status_code == 413
    assert response.json()["detail"].startswith("The request body is larger than the limit of 1 MiB")
