"""Who may do what in the catalog API."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS
from rest_framework.permissions import BasePermission


class IsStaffOrReadOnly(BasePermission):
    """Anyone may read the catalog; only staff may change it."""

    def has_permission(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_staff)
