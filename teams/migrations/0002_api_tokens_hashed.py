"""API tokens move to django-rest-knox: each key that DRF's token table kept in plain text is
stored as its SHA-512 digest, expiring one token lifetime (API_TOKEN_TTL_DAYS) from now, and
the plain-text row is deleted. Budgeting tools keep their key until it expires."""

from django.db import migrations
from django.utils import timezone


def _hash_plain_keys(apps, schema_editor):
    from knox.crypto import hash_token
    from knox.settings import CONSTANTS, knox_settings

    connection = schema_editor.connection
    if "authtoken_token" not in connection.introspection.table_names():
        return
    token_model = apps.get_model("knox", "AuthToken")
    expiry = timezone.now() + knox_settings.TOKEN_TTL
    with connection.cursor() as cursor:
        cursor.execute("SELECT key, user_id FROM authtoken_token")
        token_model.objects.bulk_create(
            token_model(digest=hash_token(key), token_key=key[:CONSTANTS.TOKEN_KEY_LENGTH],
                        user_id=user_id, expiry=expiry)
            for key, user_id in cursor.fetchall()
        )
        cursor.execute("DELETE FROM authtoken_token")


class Migration(migrations.Migration):

    dependencies = [
        ("teams", "0001_initial"),
        ("knox", "0009_extend_authtoken_field"),
    ]

    operations = [migrations.RunPython(_hash_plain_keys, migrations.RunPython.noop, elidable=True)]
