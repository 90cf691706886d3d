"""Expired API tokens are deleted when they are used, not only refused."""
from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest
from django.http import HttpResponse
from knox.settings import knox_settings

from teams.tokens import expired_token_delete


class ExpiredTokenDeletion:
    """After a 401 to a request with ``Authorization: Token <key>``, delete that token if it has
    expired. A middleware, because it runs after the view's transaction (ATOMIC_REQUESTS) is
    rolled back with the 401, which undid knox's own delete."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 401:
            key = _token_key(request.headers.get("Authorization", ""))
            if key:
                expired_token_delete(key)
        return response


def _token_key(header: str) -> str | None:
    """The key of an ``Authorization: Token <key>`` header, None for any other."""
    parts = header.split()
    if len(parts) == 2 and parts[0].lower() == knox_settings.AUTH_HEADER_PREFIX.lower():
        return parts[1]
    return None
