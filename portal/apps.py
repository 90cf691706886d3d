from django.apps import AppConfig


class PortalConfig(AppConfig):
    """The top floor: the admin site and the team home, which read every app below them.

    Nothing imports the portal; it may import every app (tests/test_architecture.py)."""

    name = "portal"
    verbose_name = "Portal"
