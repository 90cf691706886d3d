"""What a verdict ranks the options on, chosen by a team (``teams``) and by a scenario (``tco``):
the one list of choices both apps store."""
from __future__ import annotations

from django.db import models


class VerdictBasis(models.TextChoices):
    """What the verdict ranks on (the engine's ``PRE_TAX``/``AFTER_TAX``); empty = chosen for
    the scenario (tco/services/verdict_basis.py)."""

    PRE_TAX = "pre_tax", "Before tax"
    AFTER_TAX = "after_tax", "After tax"
