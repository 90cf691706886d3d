from django.apps import AppConfig


class TcoConfig(AppConfig):
    name = "tco"
    verbose_name = "Scenarios and runs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Connects the receiver that re-prices saved scenarios after a price refresh.
        from tco import signals  # noqa: F401  (the run file receiver too)
        from tco import tasks  # noqa: F401  (the run file receiver too)
