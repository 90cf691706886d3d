"""`make run`'s SQLite: processes writing at once wait for each other instead of failing."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Reads, waits while the other process does the same, then writes: with SQLite's default
# deferred transactions the second writer gets "database is locked" at once.
READ_THEN_WRITE = """
import time, django
django.setup()
from django.db import connection, transaction
with transaction.atomic():
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM counter")
        time.sleep(1.0)
        cursor.execute("INSERT INTO counter VALUES (1)")
print("ok")
"""


def embedded_env(var_dir: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL")}
    return {**env, "DJANGO_SETTINGS_MODULE": "config.settings.local", "TCO_VAR_DIR": str(var_dir)}


def test_two_processes_writing_to_sqlite_at_once_both_succeed(tmp_path):
    env = embedded_env(tmp_path)
    subprocess.run([sys.executable, "-c", "import django; django.setup(); from django.db import connection; "
                    "connection.cursor().execute('CREATE TABLE counter (n integer)')"],
                   cwd=REPO, env=env, check=True, timeout=60)

    writers = [subprocess.Popen([sys.executable, "-c", READ_THEN_WRITE], cwd=REPO, env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outcomes = [writer.communicate(timeout=60) for writer in writers]

    assert [writer.returncode for writer in writers] == [0, 0], [err[-500:] for _, err in outcomes]
    assert [out.strip() for out, _ in outcomes] == ["ok", "ok"]


def test_the_wsgi_entry_point_never_falls_back_to_debug_settings():
    env = {key: value for key, value in os.environ.items()
           if key not in ("DJANGO_SETTINGS_MODULE", "DJANGO_SECRET_KEY", "DJANGO_DEBUG")}

    result = subprocess.run([sys.executable, "-c", "import config.wsgi"], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=60)

    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr
