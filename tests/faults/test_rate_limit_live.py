"""The API's rate limit under concurrency, spoofed addresses and a Redis outage (real gunicorn)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import requests
from django.contrib.auth import get_user_model
from knox.models import AuthToken

RATE_LIMIT = 30  # requests a minute, for the `web` fixture
CLIENTS = 20
URL_PATH = "/api/v1/accelerators/"


def statuses(url: str, headers: list[dict[str, str]]) -> list[int]:
    with ThreadPoolExecutor(CLIENTS) as pool:
        return list(pool.map(lambda h: requests.get(url, headers=h, timeout=30).status_code, headers))


def test_20_concurrent_clients_on_one_token_get_exactly_the_limit(web):
    _, key = AuthToken.objects.create(user=get_user_model().objects.create_user("budget-tool"))

    answers = statuses(web.url + URL_PATH, [{"Authorization": f"Token {key}"}] * (3 * RATE_LIMIT))

    assert answers.count(200) == RATE_LIMIT
    assert answers.count(429) == 2 * RATE_LIMIT


def test_a_client_cannot_escape_the_anonymous_limit_by_setting_x_forwarded_for(web):
    spoofed = [{"X-Forwarded-For": f"203.0.113.{i}"} for i in range(2 * RATE_LIMIT)]

    answers = statuses(web.url + URL_PATH, spoofed)

    assert answers.count(200) == RATE_LIMIT


def test_with_redis_down_the_api_answers_unthrottled_and_logs_it(web, private_redis):
    private_redis.shutdown()

    answers = statuses(web.url + URL_PATH, [{}] * 10)

    assert answers == [200] * 10
    assert "rate limit not applied: its cache is unavailable (ConnectionError)" in web.log()
