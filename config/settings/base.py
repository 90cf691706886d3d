"""Settings shared by every environment; every deploy-specific value is read from the environment.

local.py and test.py only supply development defaults before importing this module;
production.py adds hardening. Secrets have no default here.
"""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import environ
from csp.constants import NONCE
from csp.constants import NONE
from csp.constants import SELF

from core.logging import configure_structlog
from core.logging import logging_config
from core.queues import Queue

BASE_DIR = Path(__file__).resolve().parent.parent.parent
env = environ.Env()

# Runtime files of the embedded (no-server) setup: SQLite database, filesystem broker, media.
VAR_DIR = Path(env.str("TCO_VAR_DIR", default=str(BASE_DIR / "var")))

SECRET_KEY = env.str("DJANGO_SECRET_KEY")
DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    # django.contrib.admin, with an admin site that also lets team members in (portal/admin_site.py)
    "portal.admin_apps.TeamAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "django_structlog",
    "simple_history",
    "axes",
    "teams",
    "catalog",
    "tco",
    "reports",
    "sites.apps.SitesConfig",
    "notifications",
    "finops",
    # The top floor: the admin site's home, which reads every app above (portal/apps.py).
    "portal",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # A request that cannot reach the database: a JSON 503 with Retry-After, not a 500 page.
    "core.database_outage.DatabaseUnavailable",
    # A query parameter holding NUL or another control character: a 400 naming it.
    "core.text_input.QueryStringControlCharacters",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # An expired API token answered 401 is deleted once the request's transaction is over.
    "teams.middleware.ExpiredTokenDeletion",
    # Records the signed-in user on every history row (scenarios, rent options, prices).
    "simple_history.middleware.HistoryRequestMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_structlog.middlewares.RequestMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: turns a locked-out login into its lockout answer.
    "axes.middleware.AxesMiddleware",
]

# Admin login throttling (django-axes): after 5 wrong passwords for one user from one address,
# that pair is locked out for 15 minutes, even with the right password.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# Reverse proxies in front of the web processes whose X-Forwarded-For entry is trusted for a
# client's address (login lockouts, the anonymous API limit); 0 = REMOTE_ADDR only.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
AXES_IPWARE_PROXY_COUNT = TRUSTED_PROXY_COUNT or None
AXES_IPWARE_META_PRECEDENCE_ORDER = ("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR") if TRUSTED_PROXY_COUNT \
    else ("REMOTE_ADDR",)

# Content-Security-Policy (django-csp): only our own scripts (the run page's one inline script
# carries the request's nonce), no framing, no plugins. Admin widgets set inline styles.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, "'unsafe-inline'"],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
FORM_RENDERER = "core.form_renderer.FormRenderer"

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = True
# A worker task or a request reuses its process's connection for this long [s] instead of
# opening one each time (~8 ms a sweep chunk with PostgreSQL); the health check replaces a
# connection the server dropped (a restart, an idle timeout) before it is used.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # `make run`: web, worker and beat write to one file. A deferred transaction that reads and
    # then writes fails at once with "database is locked" when another process writes;
    # IMMEDIATE takes the write lock up front, and the timeout waits for it instead.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,  # seconds
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("DJANGO_STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env.str("DJANGO_MEDIA_ROOT", default=str(VAR_DIR / "media")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Run results and report files go through the storage API: the folder above, or, with
# S3_BUCKET set, an S3-compatible object store (AWS S3, MinIO, ...) that web and workers on any
# machine share with no shared disk. Object names are unique, so nothing checks for overwrites.
S3_BUCKET = env.str("S3_BUCKET", default="")
if S3_BUCKET:
    STORAGES["default"] = {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": {
        "bucket_name": S3_BUCKET,
        "endpoint_url": env.str("S3_ENDPOINT_URL", default="") or None,
        "region_name": env.str("S3_REGION", default="") or None,
        "access_key": env.str("S3_ACCESS_KEY_ID", default="") or None,
        "secret_key": env.str("S3_SECRET_ACCESS_KEY", default="") or None,
        "file_overwrite": True,
        "default_acl": None,
        "querystring_auth": True,
    }}

# Uploaded price and quote files are read in memory; refuse anything larger outright.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DJANGO_UPLOAD_MAX_BYTES", default=10 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE

REST_FRAMEWORK = {
    # Service refusals (bad input, four eyes, frozen approvals) as 400/403/409.
    "EXCEPTION_HANDLER": "tco.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_PARSER_CLASSES": [
        "core.parsers.BoundedJSONParser",
        "core.parsers.TextFormParser",
        "core.parsers.TextMultiPartParser",
    ],
    # ?page_size=N, at most 500 (core/pagination.py).
    "DEFAULT_PAGINATION_CLASS": "core.pagination.SizedPageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # Tokens (created and revoked in the admin) for budgeting tools; sessions for the admin and
    # the browsable API. Token first, so an unauthenticated call gets 401 with WWW-Authenticate.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "knox.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_THROTTLE_CLASSES": ["core.throttling.TokenRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"token": env.str("API_RATE_LIMIT", default="600/min")},
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
}
# API tokens (django-rest-knox): stored as SHA-512 digests, the key shown once when created;
# each expires API_TOKEN_TTL_DAYS after it was made. An expired one answers 401 and is deleted
# then, by teams.middleware.ExpiredTokenDeletion (knox's own delete in the request is rolled back
# with the 401, under ATOMIC_REQUESTS), and by the hourly teams.tasks.expired_tokens_delete_task
# if it is never used again.
# Clients keep sending "Authorization: Token <key>".
# Named, so the teams app's token names (teams.ApiTokenName) can refer to the token model.
KNOX_TOKEN_MODEL = "knox.AuthToken"
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=env.int("API_TOKEN_TTL_DAYS", default=90)),
    "AUTH_HEADER_PREFIX": "Token",
    "AUTO_REFRESH": False,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "AI compute TCO API",
    "DESCRIPTION": "Catalog of accelerators, systems and cloud prices; buy-vs-rent evaluation.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI served from our own static files: the docs work on an air-gapped deployment.
    "SWAGGER_UI_DIST": "SIDECAR",
    # "Try it out" authenticates as budgeting tools do: Authorize with "Token <key>" (made on
    # the admin's "My API tokens" page), kept across reloads. Only the token scheme is offered.
    "AUTHENTICATION_WHITELIST": ["knox.auth.TokenAuthentication"],
    "SWAGGER_UI_SETTINGS": {"persistAuthorization": True},
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.openapi.document_error_responses",
    ],
    # Several models have a "kind"; give each choice set its own schema name.
    "ENUM_NAME_OVERRIDES": {
        "SourceKindEnum": "catalog.choices.SourceKind",
        "AcceleratorKindEnum": "catalog.choices.AcceleratorKind",
        "SystemKindEnum": "catalog.choices.SystemKind",
        "FacilityKindEnum": "catalog.choices.FacilityKind",
        "RunKindEnum": "tco.choices.RunKind",
        "CurrencyEnum": "core.currency.Currency",
        "ScenarioStatusEnum": "tco.choices.ScenarioStatus",
        # Each named once: a job's list and its detail are two components (core/limits.py).
        "RunStatusEnum": "tco.choices.RunStatus",
        "PlanStatusEnum": "tco.choices.PlanStatus",
        "ImportStatusEnum": "core.file_imports.ImportStatus",
        "RunFailureTypeEnum": "tco.choices.FailureType",
    },
}

REDIS_URL = env.str("REDIS_URL", default="")

# The cache holds API throttle counters; with Redis they are shared by every web process.
# Short socket timeouts: when Redis is down or hangs, the throttle fails open at once.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL,
                "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}}
    if REDIS_URL else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
}

# Celery: https://docs.celeryq.dev/en/stable/userguide/configuration.html
# With no REDIS_URL the broker is kombu's filesystem transport on local folders, so the
# service runs real background workers on a bare machine; REDIS_URL switches to Redis.
BROKER_DIR = VAR_DIR / "broker"
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # A chunk's hard time limit stays well under this, or acks_late would run it twice.
        "visibility_timeout": 3600,
    }
else:
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
    # kombu expects the folders to exist; creating them here keeps `make run` one command.
    for folder in ("queue", "control"):
        (BROKER_DIR / folder).mkdir(parents=True, exist_ok=True)
CELERY_TASK_IGNORE_RESULT = True  # clients poll job rows, never Celery results
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_DEFAULT_QUEUE = Queue.DEFAULT.value
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=600)
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=660)
CELERY_WORKER_PREFETCH_MULTIPLIER = 1  # tasks are long; don't hoard them on one worker
# Celery's Django fixup closes the database connection around every task unless this is set
# (it then closes it every 2 x this many tasks); config/celery_app.py applies Django's own rule
# instead (DATABASE_CONN_MAX_AGE, health checks), as for a request.
CELERY_DB_REUSE_MAX = 1_000_000
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# A Redis restart or fail-over takes seconds: publishing retries for about 10 s (0, 1, 2, 3 and
# 4 s apart) before a send gives up; the job then waits for the reaper (core/jobs.py).
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 5, "interval_start": 0, "interval_step": 1,
                                    "interval_max": 4}
# A task retries a lost database or broker connection 5 times, 2 s doubling but at most this
# long apart (core/task_retries.py): 62 s in all by default. A test of a long outage shortens it.
TASK_RETRY_BACKOFF_MAX_S = env.int("TASK_RETRY_BACKOFF_MAX_S", default=60)
# Job recovery (core/jobs.py): a job is sent at most this many times, then failed with why;
# one still waiting this long after it was sent is sent again; a worker asked whether it still
# runs a job has this long to answer. The reapers run every minute (their beat schedules).
JOBS_MAX_ATTEMPTS = env.int("JOBS_MAX_ATTEMPTS", default=3)
JOBS_RESEND_PENDING_AFTER_S = env.int("JOBS_RESEND_PENDING_AFTER_S", default=300)
JOBS_WORKER_REPLY_TIMEOUT_S = env.float("JOBS_WORKER_REPLY_TIMEOUT_S", default=2.0)
# Rows a quote or FOCUS cost import writes in each transaction, once the whole file is checked
# (core/file_imports.py): short transactions, a few hundred per import at most.
IMPORT_BATCH_ROWS = env.int("IMPORT_BATCH_ROWS", default=5_000)
# Worker processes consuming the sweeps queue, over all machines: a run the client does not
# size is cut into a few chunks per process (tco/runs/limits.py).
SWEEP_WORKER_PROCESSES = env.int("SWEEP_WORKER_PROCESSES", default=2)
# Stored run results a team may hold, over all its runs (a request limit, tco/runs/quota.py).
RUN_RESULTS_QUOTA_BYTES = env.int("RUN_RESULTS_QUOTA_BYTES", default=5 * 1024**3)

# JSON lines with request and task ids (django-structlog); DJANGO_LOG_FORMAT=console for humans.
LOGGING = logging_config(level=env.str("DJANGO_LOG_LEVEL", default="INFO"),
                         fmt=env.str("DJANGO_LOG_FORMAT", default="json"))
configure_structlog()
DJANGO_STRUCTLOG_CELERY_ENABLED = True

# Price refresh (catalog/refresh): AWS regions read, the feeds' API keys (empty = none; the
# provider then answers 401 and the job row says so), and when a price counts as stale.
PRICE_REFRESH_AWS_REGIONS = env.list("PRICE_REFRESH_AWS_REGIONS",
                                     default=["us-east-1", "us-west-2", "eu-west-1"])
GCP_BILLING_API_KEY = env.str("GCP_BILLING_API_KEY", default="")
LAMBDA_API_KEY = env.str("LAMBDA_API_KEY", default="")
RUNPOD_API_KEY = env.str("RUNPOD_API_KEY", default="")
# The only hosts a refresh sends a request (and an API key) to, whatever location a schedule
# or a command names: the providers' endpoints, plus a deployment's own mirror if it has one.
PRICE_FEED_HOSTS = env.list("PRICE_FEED_HOSTS", default=[
    "pricing.us-east-1.amazonaws.com", "prices.azure.com", "cloudbilling.googleapis.com",
    "cloud.lambda.ai", "api.runpod.io", "www.ecb.europa.eu",
])
# The region whose feed price the catalog's own offering of an instance type (no region: the
# seeds name none) takes, so a refresh updates the offering scenarios use instead of adding a twin.
PRICE_REFRESH_CATALOG_REGIONS = env.dict("PRICE_REFRESH_CATALOG_REGIONS", default={
    "aws": "us-east-1", "azure": "eastus", "gcp": "us-central1"})
# NetBox (sites/netbox.py): the DCIM sites, racks and power feeds are imported from; its API
# token (read-only is enough). Empty URL: no NetBox configured, imports are refused.
NETBOX_URL = env.str("NETBOX_URL", default="")
NETBOX_TOKEN = env.str("NETBOX_TOKEN", default="")
# An import follows NetBox's page links only on NETBOX_URL's host, at most this many requests,
# and gives up this many seconds after it starts (within its 300 s soft limit).
NETBOX_MAX_REQUESTS = env.int("NETBOX_MAX_REQUESTS", default=2000)
NETBOX_DEADLINE_S = env.float("NETBOX_DEADLINE_S", default=240.0)
# Every outgoing request (NetBox, webhooks, price feeds; core/outbound.py) goes only to public
# addresses, whatever the host allowlists say. Networks listed here ("10.1.0.0/16") are opened as
# well, for a NetBox or a webhook receiver inside the deployment's own network; none by default.
OUTBOUND_ALLOWED_NETWORKS = env.list("OUTBOUND_ALLOWED_NETWORKS", default=[])
# A figure is converted at the newest exchange rate on or before its date, however old; one more
# than this many days older warns of its age (the ECB publishes no rate on weekends and TARGET
# holidays). A team may set its own (Team.exchange_rate_tolerance_days).
EXCHANGE_RATE_MAX_AGE_DAYS = env.int("EXCHANGE_RATE_MAX_AGE_DAYS", default=7)
# The only folders a refresh reads a local feed file (a mirror) from, whatever path a schedule
# or a command names; none by default: refreshes read the providers' endpoints.
PRICE_FEED_FOLDERS = env.list("PRICE_FEED_FOLDERS", default=[])
PRICE_STALE_AFTER_DAYS = env.int("PRICE_STALE_AFTER_DAYS", default=30)
# Re-pricing after a refresh alerts when a scenario's winner flips or its breakeven month moves
# by at least this many months (a move to or from "never" always counts).
REPRICE_BREAKEVEN_THRESHOLD_MONTHS = env.int("REPRICE_BREAKEVEN_THRESHOLD_MONTHS", default=3)
# Four eyes: an approver may not approve a scenario version they created or edited. A one-person
# team sets this to allow it (the approval still records who signed, and the pinned prices).
SCENARIO_SELF_APPROVAL = env.bool("SCENARIO_SELF_APPROVAL", default=False)

# Alerts that reach people (notifications/): e-mail through SMTP, webhooks signed with
# HMAC-SHA256 and only to the hosts listed here (names, ".domain" suffixes or "*" for any public
# host); never to a loopback, private, link-local or metadata address, whatever this list says,
# unless OUTBOUND_ALLOWED_NETWORKS opens it. A failed delivery is retried after
# NOTIFY_RETRY_BASE_S x 2^n seconds, at most NOTIFY_MAX_ATTEMPTS attempts in all.
EMAIL_HOST = env.str("EMAIL_HOST", default="127.0.0.1")
EMAIL_PORT = env.int("EMAIL_PORT", default=25)
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=False)
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="tco-alerts@localhost")
NOTIFY_WEBHOOK_ALLOWED_HOSTS = env.list("NOTIFY_WEBHOOK_ALLOWED_HOSTS", default=[])
NOTIFY_WEBHOOK_TIMEOUT_S = env.float("NOTIFY_WEBHOOK_TIMEOUT_S", default=10.0)
NOTIFY_MAX_ATTEMPTS = env.int("NOTIFY_MAX_ATTEMPTS", default=6)
NOTIFY_RETRY_BASE_S = env.float("NOTIFY_RETRY_BASE_S", default=30.0)
# Actual costs against the plan (finops/): a month whose actual total is off its projection by
# more than this share (and this many dollars) alerts the team.
VARIANCE_ALERT_SHARE = env.float("VARIANCE_ALERT_SHARE", default=0.10)
VARIANCE_ALERT_MIN_USD = env.float("VARIANCE_ALERT_MIN_USD", default=100.0)
