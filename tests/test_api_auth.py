"""API authentication: tokens for budgeting tools, revocable, rate-limited per token."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(db):
    user = get_user_model().objects.create_user("budget-tool")
    return Token.objects.create(user=user)


def test_a_token_authenticates_and_a_revoked_one_does_not(token):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.get("/api/v1/scenarios/").status_code == 200

    token.delete()  # revoking = deleting it in the admin

    assert client.get("/api/v1/scenarios/").status_code == 401


def test_each_token_has_its_own_rate_limit(settings, token):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"token": "3/min"}}
    from rest_framework.settings import api_settings
    from rest_framework.throttling import SimpleRateThrottle

    default_rates = SimpleRateThrottle.THROTTLE_RATES
    SimpleRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
    cache.clear()
    other = Token.objects.create(user=get_user_model().objects.create_user("other-tool"))
    first, second = APIClient(), APIClient()
    first.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    second.credentials(HTTP_AUTHORIZATION=f"Token {other.key}")
    try:
        codes = [first.get("/api/v1/scenarios/").status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        assert second.get("/api/v1/scenarios/").status_code == 200
    finally:
        SimpleRateThrottle.THROTTLE_RATES = default_rates
        cache.clear()


def test_tokens_are_managed_in_the_admin(admin_client, token):
    assert admin_client.get("/admin/authtoken/tokenproxy/").status_code == 200
