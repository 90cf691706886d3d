"""/healthz on gunicorn with production settings while Redis, then PostgreSQL, is down: always
its JSON, 503 naming the part that is down, within a few seconds; 200 again once it is back.

Before: with Redis down it answered 500, an HTML page, after 2 s (the kept worker status is read
from the Redis cache); with PostgreSQL down the request's transaction failed before the view.
"""
from __future__ import annotations

import pytest
import requests
from django.conf import settings

from tests.faults.outages import TcpProxy
from tests.faults.webserver import Gunicorn
from tests.worker import REPO_ROOT

ANSWER_WITHIN_S = 5


@pytest.fixture
def db_proxy():
    database = settings.DATABASES["default"]
    proxy = TcpProxy((database["HOST"], int(database["PORT"]))).start()
    yield proxy
    proxy.cut()


@pytest.fixture
def server(transactional_db, private_redis, db_proxy, request):
    database = settings.DATABASES["default"]
    user = database.get("USER") or "postgres"
    web = Gunicorn(redis_url=private_redis.url,
                   DATABASE_URL=f"postgres://{user}@127.0.0.1:{db_proxy.port}/{database['NAME']}",
                   log_path=REPO_ROOT / "test-artifacts" / f"gunicorn-{request.node.name}.log").start()
    yield web
    web.stop()


def health(server: Gunicorn) -> requests.Response:
    return requests.get(f"{server.url}/healthz", timeout=ANSWER_WITHIN_S)


def test_healthz_says_what_is_down_as_json_whatever_is_down(server, private_redis, db_proxy):
    assert health(server).status_code == 200

    private_redis.shutdown()
    down = health(server)
    assert down.status_code == 503
    assert down.headers["Content-Type"] == "application/json"
    body = down.json()
    assert body["status"] == "unavailable"
    assert body["database"]["ok"] is True
    assert body["broker"] == {"ok": False, "error": "OperationalError"}
    assert body["workers"]["ok"] is False

    private_redis.start()
    db_proxy.cut()
    down = health(server)
    assert down.status_code == 503
    assert down.headers["Content-Type"] == "application/json"
    body = down.json()
    assert body["database"] == {"ok": False, "error": "OperationalError"}
    assert body["broker"]["ok"] is True

    db_proxy.restore()
    assert health(server).status_code == 200
    assert "WORKER TIMEOUT" not in server.log()
