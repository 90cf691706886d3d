"""API rate limits per token (budgeting tools), per user (sessions) or per address (anonymous).

Counting is one atomic Redis INCR per request on a counter per identity and window, so
concurrent requests on many web processes cannot slip past the limit together (a
read-modify-write history list, DRF's default, lets them). When the cache is down the API
keeps answering without limits (fail open) and says so in the log: an outage of the
throttle's store must not take the catalog and the evaluations down with it.
"""
from __future__ import annotations

import logging

import redis
from knox.models import AuthToken
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger(__name__)


class TokenRateThrottle(SimpleRateThrottle):
    """Each API token gets its own budget, so one runaway script cannot starve the others.

    The anonymous address is DRF's ``get_ident``: REMOTE_ADDR, or the address the
    ``NUM_PROXIES`` trusted proxies put in X-Forwarded-For (never a header a client sets).
    """

    scope = "token"

    def get_cache_key(self, request, view):
        # Identities, never secrets: a token by the start of its stored SHA-512 digest, never
        # its key.
        if isinstance(request.auth, AuthToken):
            ident = f"token:{request.auth.digest[:32]}"
        elif request.user and request.user.is_authenticated:
            ident = f"user:{request.user.pk}"
        else:
            ident = f"ip:{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        try:
            count = self._count(self.key)
        except (redis.RedisError, OSError) as exc:
            logger.warning("rate limit not applied: its cache is unavailable (%s)", type(exc).__name__)
            return True
        return count <= self.num_requests

    def wait(self) -> float:
        """Seconds until the window that refused the request is over (at most)."""
        return float(self.duration)

    def _count(self, key: str) -> int:
        """This request's number in the current window (the window starts with its first)."""
        self.cache.add(key, 0, self.duration)
        try:
            return self.cache.incr(key)
        except ValueError:  # the window ended between add and incr
            self.cache.add(key, 0, self.duration)
            return self.cache.incr(key)
