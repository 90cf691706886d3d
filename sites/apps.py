from django.apps import AppConfig


class SitesConfig(AppConfig):
    name = "sites"
    label = "dcim_sites"  # "sites" is django.contrib.sites' label
    verbose_name = "Sites"
    default_auto_field = "django.db.models.BigAutoField"
