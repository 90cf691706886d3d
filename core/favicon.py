"""/favicon.ico: the service's icon (two bars, buy and rent), cached by browsers for a day."""
from __future__ import annotations

from functools import cache
from pathlib import Path

from django.http import HttpResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

ICON = Path(__file__).with_name("favicon.ico")


@cache
def _icon() -> bytes:
    return ICON.read_bytes()


@require_GET
@cache_control(max_age=86400, public=True)
def favicon(request) -> HttpResponse:
    return HttpResponse(_icon(), content_type="image/x-icon")
