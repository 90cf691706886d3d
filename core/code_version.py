"""The version of the code that computes a cached answer: a digest of the project's sources.

Cached figures (the scenario page, the evaluate endpoint: tco/services/evaluation_cache.py) live
for a day in Redis, which outlives a deployment. Keyed on this digest, the answers computed by
the code before an upgrade are not served by the code after it, whatever changed (a cost line,
a warning, a label), without anyone remembering to bump a version.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from django.conf import settings

# What computes and renders an answer: Python modules and templates. Data files reach answers
# through the database (``load_catalog`` moves the catalog's revision).
SOURCE_SUFFIXES = (".py", ".html")
# Packages at the project's root that no answer runs.
NOT_SERVED = ("tests", "benchmarks")


@lru_cache(maxsize=1)
def code_version() -> str:
    """The digest of this process's sources (16 hex digits), computed once per process."""
    return sources_digest(Path(settings.BASE_DIR))


def sources_digest(root: Path) -> str:
    """A digest of every source file (name and bytes) of the packages at ``root``."""
    digest = hashlib.sha256()
    for path in _sources(root):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def _sources(root: Path) -> list[Path]:
    packages = [folder for folder in root.iterdir()
                if (folder / "__init__.py").is_file() and folder.name not in NOT_SERVED]
    return sorted(path for package in packages for path in package.rglob("*")
                  if path.suffix in SOURCE_SUFFIXES and path.is_file())
