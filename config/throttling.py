"""API rate limits per token (budgeting tools), per user (sessions) or per address (anonymous)."""
from __future__ import annotations

from rest_framework.authtoken.models import Token
from rest_framework.throttling import SimpleRateThrottle


class TokenRateThrottle(SimpleRateThrottle):
    """Each API token gets its own budget, so one runaway script cannot starve the others."""

    scope = "token"

    def get_cache_key(self, request, view):
        if isinstance(request.auth, Token):
            ident = f"token:{request.auth.key}"
        elif request.user and request.user.is_authenticated:
            ident = f"user:{request.user.pk}"
        else:
            ident = f"ip:{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}
