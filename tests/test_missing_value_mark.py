"""A missing figure reads the same everywhere: one mark, ``costmodel.vocabulary.MISSING``, spelled
once; code and templates name it (``MISSING``, ``{% missing %}``, ``|or_missing``)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from costmodel.vocabulary import MISSING
from portal.admin_site import TeamAdminSite

ROOT = Path(__file__).resolve().parents[1]
APPS = ("core", "teams", "catalog", "sites", "tco", "reports", "notifications", "finops", "portal")
DASHES = {"-", "–", "—"}
# A dash standing alone in a template: as text between tags or around a tag, or a default.
TEMPLATE_DASH = re.compile(r'(>|%})\s*[–—]\s*(<|{%)|default(_if_none)?:"[-–—]"')


def _app_files(pattern: str) -> list[Path]:
    return [path for app in APPS for path in sorted((ROOT / app).rglob(pattern))
            if "migrations" not in path.parts]


def test_no_module_spells_a_dash_of_its_own() -> None:
    # A string that is only an en or em dash (not a range's dash inside an f-string), and a
    # hyphen where a value is returned (elsewhere it is a minus sign or a separator).
    spelled = []
    for path in _app_files("*.py"):
        tree = ast.parse(path.read_text())
        in_f_strings = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
                        for part in node.values}
        spelled += [f"{path.relative_to(ROOT)}:{node.lineno}" for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and node.value in DASHES - {"-"}
                    and id(node) not in in_f_strings
                    or isinstance(node, ast.Return) and "-" in _returned_constants(node.value)]
    assert spelled == []


def _returned_constants(value: ast.expr | None) -> set[object]:
    if isinstance(value, ast.IfExp):
        return _returned_constants(value.body) | _returned_constants(value.orelse)
    return {value.value} if isinstance(value, ast.Constant) else set()


def test_no_template_spells_a_dash_of_its_own() -> None:
    spelled = [f"{path.relative_to(ROOT)}:{number}" for path in _app_files("*.html")
               for number, line in enumerate(path.read_text().splitlines(), 1)
               if TEMPLATE_DASH.search(line)]
    assert spelled == []


def test_the_admin_shows_an_empty_column_with_the_same_mark() -> None:
    assert TeamAdminSite.empty_value_display == MISSING == "–"
