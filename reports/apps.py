from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "reports"
    verbose_name = "Reports"
    default_auto_field = "django.db.models.BigAutoField"
