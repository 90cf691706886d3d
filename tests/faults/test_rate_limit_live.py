"""The API's rate limit under concurrency, spoofed addresses and a Redis outage (real gunicorn)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.contrib.auth import get_user_model
from knox.models import AuthToken

from tests.faults.webserver import Gunicorn
from tests.worker import REPO_ROOT

LIMIT = 30
CLIENTS = 20
URL_PATH = "/api/v1/accelerators/"


@pytest.fixture
def web(transactional_db, catalog, private_redis, request):
    server = Gunicorn(redis_url=private_redis.url, API_RATE_LIMIT=f"{LIMIT}/min",
                      log_path=REPO_ROOT / "test-artifacts" / f"gunicorn-{request.node.name}.log").start()
    yield server
    server.stop()


def statuses(url: str, headers: list[dict[str, str]]) -> list[int]:
    with ThreadPoolExecutor(CLIENTS) as pool:
        return list(pool.map(lambda h: requests.get(url, headers=h, timeout=30).status_code, headers))


def test_20_concurrent_clients_on_one_token_get_exactly_the_limit(web):
    _, key = AuthToken.objects.create(user=get_user_model().objects.create_user("budget-tool"))

    answers = statuses(web.url + URL_PATH, [{"Authorization": f"Token {key}"}] * (3 * LIMIT))

    assert answers.count(200) == LIMIT
    assert answers.count(429) == 2 * LIMIT


def test_a_client_cannot_escape_the_anonymous_limit_by_setting_x_forwarded_for(web):
    spoofed = [{"X-Forwarded-For": f"203.0.113.{i}"} for i in range(2 * LIMIT)]

    answers = statuses(web.url + URL_PATH, spoofed)

    assert answers.count(200) == LIMIT


def test_with_redis_down_the_api_answers_unthrottled_and_logs_it(web, private_redis):
    private_redis.shutdown()

    answers = statuses(web.url + URL_PATH, [{}] * 10)

    assert answers == [200] * 10
    assert "rate limit not applied: its cache is unavailable (ConnectionError)" in web.log()
