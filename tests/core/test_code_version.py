"""Cached figures are keyed on a digest of the code's sources: an upgrade computes them again."""
from __future__ import annotations

from core.code_version import sources_digest


def _tree(root):
    (root / "pkg" / "templates").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "costs.py").write_text("RATE = 0.08\n")
    (root / "pkg" / "templates" / "page.html").write_text("<p>{{ npv }}</p>\n")
    (root / "tests").mkdir()
    (root / "tests" / "__init__.py").write_text("")
    (root / "tests" / "test_costs.py").write_text("def test(): pass\n")
    (root / "scripts").mkdir()  # no package: nothing there serves an answer
    (root / "scripts" / "tool.py").write_text("print()\n")


def test_a_changed_module_or_template_changes_the_digest_and_nothing_else_does(tmp_path):
    _tree(tmp_path)
    first = sources_digest(tmp_path)
    assert sources_digest(tmp_path) == first and len(first) == 16

    (tmp_path / "tests" / "test_costs.py").write_text("def test(): assert True\n")
    (tmp_path / "scripts" / "tool.py").write_text("print(1)\n")
    (tmp_path / "pkg" / "__pycache__").mkdir()
    (tmp_path / "pkg" / "__pycache__" / "costs.cpython-311.pyc").write_bytes(b"\0\1")
    (tmp_path / "pkg" / "notes.txt").write_text("not code\n")
    assert sources_digest(tmp_path) == first

    (tmp_path / "pkg" / "costs.py").write_text("RATE = 0.10\n")
    second = sources_digest(tmp_path)
    (tmp_path / "pkg" / "templates" / "page.html").write_text("<p>{{ npv|floatformat:2 }}</p>\n")
    third = sources_digest(tmp_path)
    # A file moved with the same bytes is a different program too.
    (tmp_path / "pkg" / "costs.py").rename(tmp_path / "pkg" / "rates.py")
    assert len({first, second, third, sources_digest(tmp_path)}) == 4
