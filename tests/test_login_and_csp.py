"""Admin login throttling (django-axes) and the Content-Security-Policy header (django-csp)."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/?next=/admin/"


@pytest.fixture
def admin_user(db):
    return get_user_model().objects.create_superuser("root", "root@example.com", "right-password-1")


def log_in(client, password):
    return client.post(LOGIN, {"username": "root", "password": password})


def test_the_right_password_after_five_wrong_ones_is_locked_out(client, admin_user):
    answers = [log_in(client, "wrong").status_code for _ in range(5)]
    assert answers == [200, 200, 200, 200, 429]  # the form again with its error, then locked

    locked = log_in(client, "right-password-1")

    assert locked.status_code == 429
    assert "_auth_user_id" not in client.session


def test_a_few_wrong_passwords_then_the_right_one_still_log_in(client, admin_user):
    for _ in range(3):
        log_in(client, "wrong")

    assert log_in(client, "right-password-1").status_code == 302


def test_a_forged_x_forwarded_for_does_not_reset_the_lockout(client, admin_user):
    for i in range(5):
        client.post(LOGIN, {"username": "root", "password": "wrong"}, HTTP_X_FORWARDED_FOR=f"198.51.100.{i}")

    locked = client.post(LOGIN, {"username": "root", "password": "right-password-1"},
                         HTTP_X_FORWARDED_FOR="198.51.100.99")

    assert locked.status_code == 429


def test_pages_carry_a_content_security_policy_without_inline_scripts(client):
    policy = client.get(LOGIN)["Content-Security-Policy"]

    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["script-src"].startswith("'self'")  # plus the nonce on pages that use it
    assert "'unsafe-inline'" not in directives["script-src"]
    assert directives["frame-ancestors"] == "'none'"
    assert "default-src 'self'" in client.get("/api/v1/")["Content-Security-Policy"]


def test_the_api_docs_page_loads_its_scripts_as_files_under_the_policy(client):
    page = client.get("/api/docs/").content.decode()

    assert "<script>" not in page
    assert client.get("/api/docs/?script=").status_code == 200
