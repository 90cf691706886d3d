"""Test settings: PostgreSQL and Redis on localhost (make test checks they run), fast hashing."""
import os
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-not-a-secret")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tco")
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if XDIST_WORKER and os.environ.get("TCO_XDIST_WORKER") != XDIST_WORKER:
    # pytest-xdist's worker gwN of a session takes the N-th Redis database after the session's
    # and a var folder of its own (media, the filesystem broker). The processes its tests start
    # inherit both through the environment, and TCO_XDIST_WORKER, so they move them no further.
    number = int(XDIST_WORKER.removeprefix("gw"))
    session = urlsplit(os.environ.get("REDIS_URL", f"redis://127.0.0.1:6379/{1 + os.getppid() % 15}"))
    database = 1 + (int(session.path.strip("/") or 1) - 1 + number) % 15
    os.environ["REDIS_URL"] = session._replace(path=f"/{database}").geturl()
    var_dir = Path(os.environ.get("TCO_VAR_DIR", Path(__file__).resolve().parents[2] / "var"))
    os.environ["TCO_VAR_DIR"] = str(var_dir / XDIST_WORKER)
    os.environ["TCO_XDIST_WORKER"] = XDIST_WORKER
# A Redis database per pytest process (1-15), so concurrent sessions never share queues.
os.environ.setdefault("REDIS_URL", f"redis://127.0.0.1:6379/{1 + os.getpid() % 15}")
os.environ.setdefault("API_RATE_LIMIT", "100000/min")  # a test lowers it to check throttling
# Refresh tests read recorded feeds from their temporary folders and the sample payloads kept
# with the tests; the variable reaches the worker processes they start too.
SAMPLE_FEEDS = Path(__file__).resolve().parents[2] / "tests" / "catalog" / "pricefeeds" / "samples"
os.environ.setdefault("PRICE_FEED_FOLDERS", ",".join([tempfile.gettempdir(), str(SAMPLE_FEEDS)]))
# The fake NetBox, webhook receivers and feed servers of the tests listen on 127.0.0.1, which the
# outbound client refuses by default (core/outbound.py); a test of that refusal empties this.
os.environ.setdefault("OUTBOUND_ALLOWED_NETWORKS", "127.0.0.1/32")

from .base import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Throttle counters in process memory: clearing them must never flush the broker's database.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
# Tasks run inline unless a test starts a real worker process (tests/worker.py), which turns
# this off so the tasks it queues in turn go through the broker too.
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=True)  # noqa: F405
CELERY_TASK_EAGER_PROPAGATES = True
# Webhook retries a second apart, not minutes (a test's receiver fails twice, then accepts).
NOTIFY_RETRY_BASE_S = env.float("NOTIFY_RETRY_BASE_S", default=0.5)  # noqa: F405

# Serve static files from the apps directly; no collectstatic needed outside production.
WHITENOISE_AUTOREFRESH = True

# One test database per pytest process, so concurrent runs on one machine don't collide.
DATABASES["default"]["TEST"] = {"NAME": f"test_tco_{os.getpid()}"}  # noqa: F405
