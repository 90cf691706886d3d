"""A request body over the limit (DATA_UPLOAD_MAX_MEMORY_SIZE) answers JSON naming the limit.

Django refuses such a body with RequestDataTooBig, a SuspiciousOperation, which its default
400 handler answers with an HTML page that does not say why; every other bad request keeps
Django's own answer.
"""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse
from django.views import defaults

MIB = 1024 * 1024


def body_limit_words() -> str:
    """'the limit of 10 MiB (10,485,760 bytes; DJANGO_UPLOAD_MAX_BYTES)'."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return f"the limit of {limit / MIB:g} MiB ({limit:,} bytes; DJANGO_UPLOAD_MAX_BYTES)"


def bad_request(request, exception=None):
    """Django's 400 handler, except that a body over the limit is a 413 with JSON naming it."""
    if isinstance(exception, RequestDataTooBig):
        return JsonResponse({"detail": f"The request body is larger than {body_limit_words()}."},
                            status=413)
    return defaults.bad_request(request, exception)
