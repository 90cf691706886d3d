from django.apps import AppConfig


class TcoConfig(AppConfig):
    name = "tco"
    default_auto_field = "django.db.models.BigAutoField"
