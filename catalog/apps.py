from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = "Catalog"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Connects the receivers that move the catalog's revision with its specifications.
        from catalog import signals

        signals.connect()
