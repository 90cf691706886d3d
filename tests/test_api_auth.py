"""API authentication: tokens for budgeting tools, revocable, expiring, stored as digests only,
rate-limited per token."""
from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(db) -> tuple[AuthToken, str]:
    """A budgeting tool's token and its key (known only when it is made)."""
    return AuthToken.objects.create(user=get_user_model().objects.create_user("budget-tool"))


def client_with(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_token_authenticates_and_a_revoked_one_does_not(token):
    row, key = token
    client = client_with(key)
    assert client.get("/api/v1/scenarios/").status_code == 200

    row.delete()  # revoking = deleting it in the admin

    assert client.get("/api/v1/scenarios/").status_code == 401


def test_a_token_expires_after_the_configured_lifetime(settings, db):
    settings.REST_KNOX = {**settings.REST_KNOX, "TOKEN_TTL": dt.timedelta(days=30)}
    row, key = AuthToken.objects.create(user=get_user_model().objects.create_user("budget-tool"))

    assert abs(row.expiry - (timezone.now() + dt.timedelta(days=30))) < dt.timedelta(minutes=1)
    assert client_with(key).get("/api/v1/scenarios/").status_code == 200
    AuthToken.objects.filter(pk=row.pk).update(expiry=timezone.now() - dt.timedelta(seconds=1))
    assert client_with(key).get("/api/v1/scenarios/").status_code == 401


@pytest.mark.django_db(transaction=True)
def test_an_expired_token_is_deleted_when_it_is_used(db):
    expired, key = AuthToken.objects.create(user=get_user_model().objects.create_user("budget-tool"))
    kept, _ = AuthToken.objects.create(user=get_user_model().objects.create_user("other-tool"))
    AuthToken.objects.filter(pk__in=[expired.pk, kept.pk]).update(
        expiry=timezone.now() - dt.timedelta(seconds=1))

    assert client_with(key).get("/api/v1/scenarios/").status_code == 401

    # Gone although the 401 rolled the request's transaction back; another expired token waits
    # for its own next use or the hourly clean-up.
    assert list(AuthToken.objects.values_list("pk", flat=True)) == [kept.pk]


def test_only_the_keys_sha512_digest_is_stored(token):
    row, key = token

    stored = AuthToken.objects.values().get(pk=row.pk)

    assert row.digest == hashlib.sha512(key.encode()).hexdigest()
    assert not any(key in str(value) for value in stored.values())


def test_each_token_has_its_own_rate_limit(settings, token):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"token": "3/min"}}
    from rest_framework.settings import api_settings
    from rest_framework.throttling import SimpleRateThrottle

    default_rates = SimpleRateThrottle.THROTTLE_RATES
    SimpleRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
    cache.clear()
    _, key = token
    _, other = AuthToken.objects.create(user=get_user_model().objects.create_user("other-tool"))
    first, second = client_with(key), client_with(other)
    try:
        codes = [first.get("/api/v1/scenarios/").status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        assert second.get("/api/v1/scenarios/").status_code == 200
    finally:
        SimpleRateThrottle.THROTTLE_RATES = default_rates
        cache.clear()


def test_a_superuser_makes_a_token_in_the_admin_and_reads_its_key_once(admin_client, db):
    user = get_user_model().objects.create_user("budget-tool")
    expiry = timezone.now() + dt.timedelta(days=7)

    # A token has a name (issue 24), so its user knows which one to revoke.
    made = admin_client.post("/admin/knox/authtoken/add/", {
        "user": user.pk, "name": "budget sync", "expiry_0": expiry.strftime("%Y-%m-%d"),
        "expiry_1": expiry.strftime("%H:%M:%S")}, follow=True)

    (message,) = [str(m) for m in made.context["messages"] if "shown this once" in str(m)]
    key = message.rsplit(": ", 1)[1]
    assert client_with(key).get("/api/v1/scenarios/").status_code == 200
    listing = admin_client.get("/admin/knox/authtoken/").content.decode()
    assert key not in listing
    assert key[:15] not in listing


def test_a_token_cannot_outlive_the_configured_lifetime(admin_client, settings, db):
    settings.REST_KNOX = {**settings.REST_KNOX, "TOKEN_TTL": dt.timedelta(days=30)}
    user = get_user_model().objects.create_user("budget-tool")
    later = timezone.now() + dt.timedelta(days=31)

    refused = admin_client.post("/admin/knox/authtoken/add/", {
        "user": user.pk, "name": "x", "expiry_0": later.strftime("%Y-%m-%d"),
        "expiry_1": later.strftime("%H:%M:%S")})

    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors["expiry"] == [
        "at most 30 days from now (API_TOKEN_TTL_DAYS)"]
    assert not AuthToken.objects.exists()


def test_staff_who_are_not_superusers_make_tokens_for_users_but_not_for_other_staff(client, db):
    # Issue 24: staff make tokens for others, picking the user by name; making one for another
    # staff member (or a superuser) stays a superuser's act.
    client.force_login(get_user_model().objects.create_user("stella", is_staff=True))
    expiry = timezone.now() + dt.timedelta(days=7)
    form = {"name": "budget sync", "expiry_0": expiry.strftime("%Y-%m-%d"),
            "expiry_1": expiry.strftime("%H:%M:%S")}

    assert client.get("/admin/knox/authtoken/add/").status_code == 200
    tool = get_user_model().objects.create_user("budget-tool")
    assert client.post("/admin/knox/authtoken/add/", {**form, "user": tool.pk}).status_code == 302
    boss = get_user_model().objects.create_superuser("boss", "b@example.com", "pw")
    refused = client.post("/admin/knox/authtoken/add/", {**form, "user": boss.pk})
    errors = refused.context["adminform"].form.errors
    assert errors["user"] == ["only a superuser makes tokens for other staff"]
