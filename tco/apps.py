from django.apps import AppConfig


class TcoConfig(AppConfig):
    name = "tco"
    verbose_name = "Scenarios and runs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Connects the receivers: re-pricing after a price refresh, a deleted run's result file,
        # and the revisions the evaluation cache's key reads (tco/services/evaluation_reads.py).
        from tco import signals
        from tco.runs import worker_steps

        # What a Celery worker does for sweep runs as it starts, lives and stops.
        worker_steps.install()
        signals.connect_revisions()
