"""The image's files, installed as the image installs them, start with production settings.

No Docker engine here, so the test does what docker/Dockerfile does: it copies what each
stage's COPY lines copy, ``pip install .`` (not editable) the build stage's files into a fresh
virtualenv, then runs ``collectstatic`` and ``check --deploy`` in the runtime stage's files.
The dependencies and the build backend come from the test's own environment (no network): the
fresh virtualenv sees its site-packages after its own.
"""
from __future__ import annotations

import os
import shlex
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from tests.worker import REPO_ROOT
from tests.worker import database_url

DOCKERFILE = REPO_ROOT / "docker" / "Dockerfile"


def dockerfile_copies(text: str) -> dict[str, list[tuple[list[str], str]]]:
    """Per stage, its COPY lines from the build context as (sources, destination in WORKDIR).

    >>> dockerfile_copies("FROM x AS build\\nWORKDIR /src\\nCOPY a b ./\\nFROM y\\n"
    ...                   "COPY --from=build /venv /venv\\nCOPY --chown=app:app tco ./tco\\n")
    {'build': [(['a', 'b'], './')], 'stage-1': [(['tco'], './tco')]}
    """
    stages: dict[str, list[tuple[list[str], str]]] = {}
    stage = ""
    for line in text.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        if words[0].upper() == "FROM":
            stage = words[3] if len(words) > 3 and words[2].upper() == "AS" else f"stage-{len(stages)}"
            stages[stage] = []
        elif words[0].upper() == "COPY" and not any(w.startswith("--from=") for w in words):
            paths = [w for w in words[1:] if not w.startswith("--")]
            stages[stage].append((paths[:-1], paths[-1]))
    return stages


def stage_files(copies: list[tuple[list[str], str]], into: Path) -> Path:
    """The files one stage copies from the repository, laid out under ``into`` as in WORKDIR."""
    for sources, destination in copies:
        for source in sources:
            origin = REPO_ROOT / source
            target = into / destination
            if origin.is_dir():
                shutil.copytree(origin, target, ignore=shutil.ignore_patterns("__pycache__"),
                                dirs_exist_ok=True)
            else:
                target.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, target / origin.name)
    return into


def run(command: list[str], *, cwd: Path, env: dict[str, str]) -> str:
    completed = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                               timeout=600)
    assert completed.returncode == 0, (f"{' '.join(command)} failed:\n"
                                       f"{completed.stdout[-3000:]}\n{completed.stderr[-3000:]}")
    return completed.stdout + completed.stderr


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    """(python of the installed virtualenv, the runtime stage's /app) as the image has them."""
    root = tmp_path_factory.mktemp("image")
    stages = dockerfile_copies(DOCKERFILE.read_text())
    build, runtime = stages["build"], stages["runtime"]
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=300)
    python = venv / "bin" / "python"
    venv_site = Path(subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True).stdout.strip())
    (venv_site / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-build-isolation", "--no-compile", "--no-index", "--quiet", "."],
        cwd=stage_files(build, root / "src"), env=dict(os.environ))
    return python, stage_files(runtime, root / "app")


@pytest.fixture
def production_env(tmp_path):
    """What a deployment sets: secret key, hosts, database, writable directory."""
    return {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "DJANGO_SECRET_KEY": "image-test-" + "k3y-0f-f1fty-ch4r4ct3rs-4nd-m4ny-d1ff3r3nt-0n3s",
            "DJANGO_ALLOWED_HOSTS": "tco.example.com", "DATABASE_URL": database_url(),
            "TCO_VAR_DIR": str(tmp_path / "var"), "PYTHONPATH": ""}


def test_every_package_of_the_image_is_installed(image, tmp_path):
    python, _ = image
    packages = "costmodel, config, core, catalog, tco, reports, teams, sites, finops, notifications, portal"
    located = run([str(python), "-c", f"import {packages}; print(*(m.__file__ for m in ({packages})))"],
                  cwd=tmp_path, env={**os.environ, "PYTHONPATH": ""}).split()
    assert [Path(path).parts[-3] for path in located] == ["site-packages"] * 11


@pytest.mark.django_db
def test_collectstatic_and_check_deploy_pass_with_production_settings(image, production_env):
    python, app = image

    collected = run([str(python), "manage.py", "collectstatic", "--noinput"], cwd=app,
                    env=production_env)
    checked = run([str(python), "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                  cwd=app, env=production_env)

    assert "static files copied" in collected
    assert (app / "staticfiles" / "admin" / "css" / "base.css").is_file()
    assert "System check identified no issues" in checked


@pytest.mark.django_db
def test_the_installed_package_alone_passes_check_deploy(image, production_env, tmp_path):
    """Run outside /app: templates, data files and every app come from the installed package."""
    python, _ = image

    checked = run([str(python), "-m", "django", "check", "--deploy", "--fail-level", "WARNING"],
                  cwd=tmp_path, env=production_env)

    assert "System check identified no issues" in checked
