from django.apps import AppConfig


class TeamsConfig(AppConfig):
    """Teams, memberships and roles; who sees and changes what."""

    name = "teams"
    verbose_name = "Teams"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Every app's models are loaded by now: their text fields refuse control characters.
        from core.text_input import bound_text_fields

        bound_text_fields()
