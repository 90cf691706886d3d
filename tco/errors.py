"""The error input is refused with: the field to fix and why, as an HTTP 400 names them."""
from __future__ import annotations


class FieldError(ValueError):
    """Input that cannot be used; ``field`` names what to fix (a scenario field, a path in a spec)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
