"""API tokens past their expiry are deleted, not only refused: a periodic clean-up (beat, hourly)."""
from __future__ import annotations

from django.utils import timezone
from knox.models import AuthToken


def expired_tokens_delete() -> int:
    """Delete every token whose expiry has passed; returns how many were deleted."""
    deleted, _ = AuthToken.objects.filter(expiry__lt=timezone.now()).delete()
    return deleted
