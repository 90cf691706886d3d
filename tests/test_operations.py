"""Operations: container files lint and validate, production settings pass check --deploy,
and log lines are JSON carrying a request id."""
from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def test_the_dockerfile_passes_hadolint():
    result = run(str(BIN / "hadolint"), "docker/Dockerfile")

    assert result.returncode == 0, result.stdout + result.stderr


def test_the_compose_file_is_valid_with_the_example_environment():
    result = run(str(BIN / "docker-compose"), "-f", "docker/compose.yml",
                 "--env-file", "docker/.env.example", "config", "--quiet",
                 env={"TCO_ENV_FILE": ".env.example"})

    assert result.returncode == 0, result.stdout + result.stderr


def test_the_example_environment_lists_every_variable_the_settings_read():
    # test.py's variables only tune the test run; every deployment-facing one must be listed.
    settings_text = "".join((REPO / "config" / "settings" / f"{name}.py").read_text()
                            for name in ("base", "local", "production"))
    example = (REPO / "docker" / ".env.example").read_text()
    read = set(re.findall(r'env\.\w+\("([A-Z_]+)"', settings_text)) | set(
        re.findall(r'env\("([A-Z_]+)"', settings_text))
    listed = set(re.findall(r"^([A-Z_]+)=", example, re.MULTILINE))
    assert read - listed == set()


def test_production_settings_pass_check_deploy():
    result = run(sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING",
                 env={"DJANGO_SETTINGS_MODULE": "config.settings.production",
                      "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
                      "DJANGO_ALLOWED_HOSTS": "tco.example.com",
                      "DATABASE_URL": "sqlite:////tmp/tco-check-deploy.sqlite3"})

    assert result.returncode == 0, result.stdout + result.stderr


def test_production_settings_refuse_to_start_without_a_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SECRET_KEY"}
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=REPO, capture_output=True,
                            text=True, timeout=120,
                            env={**env, "DJANGO_SETTINGS_MODULE": "config.settings.production",
                                 "DJANGO_ALLOWED_HOSTS": "tco.example.com"})

    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


@pytest.mark.django_db
def test_request_log_lines_carry_a_request_id(client, caplog):
    caplog.set_level("INFO")

    client.get("/healthz")

    events = [r.msg for r in caplog.records if isinstance(r.msg, dict)]
    finished = [e for e in events if e.get("event") == "request_finished"]
    assert finished and finished[0]["request_id"]
    assert json.dumps(finished[0]["request_id"])  # JSON-serialisable, as the formatter needs


def test_the_worker_and_manage_py_load_the_same_settings_when_none_are_named():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}

    # `celery report` loads the app as `celery worker` does and prints the settings it read.
    worker = subprocess.run([sys.executable, "-m", "celery", "-A", "config", "report"], cwd=REPO,
                            capture_output=True, text=True, timeout=120, env=env)
    manage = subprocess.run([sys.executable, "manage.py", "shell", "-c",
                             "from django.conf import settings; print(settings.SETTINGS_MODULE)"],
                            cwd=REPO, capture_output=True, text=True, timeout=120, env=env)

    assert worker.returncode == 0, worker.stderr
    assert "SETTINGS_MODULE: 'config.settings.local'" in worker.stdout
    assert manage.stdout.split()[-1] == "config.settings.local"
