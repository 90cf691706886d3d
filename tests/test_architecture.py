"""Architecture fences that imports alone would not enforce."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_importing_the_engine_loads_no_django() -> None:
    probe = (
        "import sys, tco.engine, tco.engine.evaluate, tco.engine.sensitivity; "
        "print(sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "[]"


def test_the_tco_package_init_imports_nothing() -> None:
    tree = ast.parse((ROOT / "tco" / "__init__.py").read_text())
    assert not [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
