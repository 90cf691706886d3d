"""Create (or reset) the local demo superuser, an approver of the Demo team, and print its
login; refused outside DEBUG."""
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.core.management.base import CommandError

from tco.demo import demo_team
from teams.models import Membership
from teams.models import Role

DEMO_USERNAME = "admin"
DEMO_PASSWORD = "demo-admin-password"


class Command(BaseCommand):
    help = "Create the demo admin login for a local run and print it (DEBUG only)."

    def handle(self, *args, **options):
        if not settings.DEBUG:
            raise CommandError("ensure_demo_admin only runs with DJANGO_DEBUG=true: "
                               "a fixed password must never reach a production database.")
        user, _ = get_user_model().objects.get_or_create(username=DEMO_USERNAME)
        user.is_staff = user.is_superuser = True
        user.set_password(DEMO_PASSWORD)
        user.save()
        Membership.objects.update_or_create(user=user, team=demo_team(),
                                            defaults={"role": Role.APPROVER})
        self.stdout.write(self.style.SUCCESS(
            f"Demo admin: http://127.0.0.1:8000/admin/  user: {DEMO_USERNAME}  "
            f"password: {DEMO_PASSWORD}"))
