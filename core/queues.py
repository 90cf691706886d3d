"""Celery queue names, so a big sweep never starves report or price-refresh jobs."""
from enum import StrEnum


class Queue(StrEnum):
    DEFAULT = "default"
    SWEEPS = "sweeps"
    REPORTS = "reports"
    REFRESH = "refresh"
