"""Load the demo scenarios (idempotent); `make run` calls it after load_catalog."""
from django.core.exceptions import ObjectDoesNotExist
from django.core.management.base import BaseCommand
from django.core.management.base import CommandError

from tco.demo import load_demo


class Command(BaseCommand):
    help = "Create or refresh the demo scenarios (needs the catalog: run load_catalog first)."

    def handle(self, *args, **options):
        try:
            scenarios = load_demo()
        except (LookupError, ObjectDoesNotExist) as exc:
            raise CommandError(f"{exc} (run load_catalog first)") from exc
        for scenario in scenarios:
            self.stdout.write(f"demo scenario {scenario.pk}: {scenario.name}")
