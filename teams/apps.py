from django.apps import AppConfig


class TeamsConfig(AppConfig):
    """Teams, memberships and roles; who sees and changes what."""

    name = "teams"
    verbose_name = "Teams"
    default_auto_field = "django.db.models.BigAutoField"
