"""The price-feed package stays pure Python, so its tests and jobs need no database."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]


def test_importing_the_price_feeds_loads_no_django_module() -> None:
    code = (
        "import sys, catalog.pricefeeds, benchmarks.pricefeeds; "
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'django'); "
        "print(loaded); sys.exit(1 if loaded else 0)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    )

    assert completed.returncode == 0, completed.stdout + completed.stderr
