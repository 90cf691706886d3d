from django.apps import AppConfig


class FinopsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "finops"
    verbose_name = "Actual costs"
