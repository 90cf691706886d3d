"""Structured logs: JSON lines (or a readable console form locally) with request and task ids.

django-structlog binds request_id/user_id to every log line of a request and task_id to every
line of a Celery task; the same configuration serves the web process and the workers.
"""
from __future__ import annotations

import structlog

SHARED_PROCESSORS = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_logger_name,
    structlog.stdlib.add_log_level,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
    structlog.processors.StackInfoRenderer(),
    structlog.processors.format_exc_info,
]


def logging_config(*, level: str, fmt: str) -> dict:
    """A logging.dictConfig for ``fmt`` "json" (one JSON object per line) or "console"."""
    renderer = (structlog.processors.JSONRenderer() if fmt == "json"
                else structlog.dev.ConsoleRenderer(colors=False))
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "structured": {
                "()": structlog.stdlib.ProcessorFormatter,
                "processors": [structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                               renderer],
                # Lines from plain `logging` users (Django, Celery) get the same fields.
                "foreign_pre_chain": SHARED_PROCESSORS,
            },
        },
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "structured"}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "django.server": {"level": "WARNING"},  # the access log repeats django_structlog's
            # PDF rendering chatters at INFO for every page and font.
            "weasyprint": {"level": "WARNING"},
            "fontTools": {"level": "WARNING"},
        },
    }


def configure_structlog() -> None:
    """Route structlog through the standard logging handlers configured above."""
    structlog.configure(
        processors=[*SHARED_PROCESSORS, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        cache_logger_on_first_use=True,
    )
