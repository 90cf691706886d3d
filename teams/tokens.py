"""API tokens a user makes for themselves (or staff for a user): named, expiring, revocable.

The key is shown once, when the token is made; only its SHA-512 digest is stored
(django-rest-knox). Every token expires at most API_TOKEN_TTL_DAYS after it is made, and past
its expiry it is deleted, not only refused: when it is next used (``expired_token_delete``,
after the request's 401) and by a periodic clean-up (beat, hourly) for those never used again.
"""
from __future__ import annotations

import datetime as dt

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from knox.crypto import hash_token
from knox.models import AuthToken
from knox.settings import knox_settings

from teams.models import ApiTokenName


def latest_expiry() -> dt.datetime:
    """The latest a token made now may expire."""
    return timezone.now() + knox_settings.TOKEN_TTL


def expiry_check(expiry: dt.datetime) -> dt.datetime:
    """``expiry`` if a token made now may have it; ValidationError saying why not."""
    if expiry <= timezone.now():
        raise ValidationError("must be in the future", code="past")
    if expiry > latest_expiry():
        raise ValidationError(f"at most {knox_settings.TOKEN_TTL.days} days from now (API_TOKEN_TTL_DAYS)",
                              code="too_late")
    return expiry


def api_token_create(*, user, name: str, expiry: dt.datetime) -> tuple[AuthToken, str]:
    """A new token of ``user`` named ``name``; (the token row, the key to show once)."""
    expiry_check(expiry)
    with transaction.atomic():
        token, key = AuthToken.objects.create(user=user, expiry=expiry - timezone.now())
        ApiTokenName.objects.create(token=token, name=name)
    return token, key


def api_token_revoke(*, user, digest: str) -> bool:
    """Delete one of ``user``'s own tokens; False when they have no such token."""
    deleted, _ = AuthToken.objects.filter(user=user, digest=digest).delete()
    return bool(deleted)


def tokens_of(user):
    """The user's tokens still valid, newest first, with their names."""
    return (AuthToken.objects.filter(user=user, expiry__gt=timezone.now())
            .select_related("label").order_by("-created"))


def expired_tokens_delete() -> int:
    """Delete every token whose expiry has passed; returns how many were deleted."""
    deleted, _ = AuthToken.objects.filter(expiry__lt=timezone.now()).delete()
    return deleted


def expired_token_delete(key: str) -> bool:
    """Delete the token whose key is ``key`` if it has expired; whether one was deleted.

    knox deletes it while refusing it, but inside the request's transaction (ATOMIC_REQUESTS),
    which its 401 rolls back: this runs once the request's transaction is over.
    """
    deleted, _ = AuthToken.objects.filter(digest=hash_token(key), expiry__lt=timezone.now()).delete()
    return bool(deleted)
