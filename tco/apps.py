from django.apps import AppConfig


class TcoConfig(AppConfig):
    name = "tco"
    verbose_name = "Scenarios and runs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Connects the receivers: re-pricing after a price refresh, a deleted run's result file.
        from tco import signals  # noqa: F401
