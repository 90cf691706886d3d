"""Architecture fences that imports alone would not enforce."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_importing_the_engine_loads_no_django() -> None:
    probe = (
        "import sys, costmodel, costmodel.evaluate, costmodel.sensitivity; "
        "print(sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "[]"


def test_the_tco_package_init_imports_nothing() -> None:
    tree = ast.parse((ROOT / "tco" / "__init__.py").read_text())
    assert not [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


API_PACKAGES = ("tco.api", "catalog.api", "reports.api", "finops.api")
# The URL configuration mounts the API's routers; it is the API layer's entry point.
API_WIRING = {Path("config/urls.py")}


def _imported_modules(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _production_modules() -> list[tuple[Path, set[str]]]:
    """(path, modules it imports) for every module of the image's packages."""
    return [(path.relative_to(ROOT), _imported_modules(ast.parse(path.read_text(), str(path))))
            for path in sorted(ROOT.glob("*/**/*.py"))
            if path.relative_to(ROOT).parts[0] not in ("tests", ".venv", ".venv-focus", "scripts")]


def test_production_code_and_its_benchmarks_import_nothing_from_tests() -> None:
    assert [f"{path} imports {name}" for path, imported in _production_modules()
            for name in sorted(imported) if name == "tests" or name.startswith("tests.")] == []


def test_nothing_outside_the_api_layer_imports_from_it() -> None:
    offenders = []
    for relative, imported in _production_modules():
        if relative in API_WIRING:
            continue
        if any(relative.parts[:2] == (package.split(".")[0], "api") for package in API_PACKAGES):
            continue
        offenders += [f"{relative} imports {name}" for name in sorted(imported)
                      if any(name == package or name.startswith(package + ".")
                             for package in API_PACKAGES)]
    assert offenders == []


def test_tco_has_at_most_twelve_top_level_modules() -> None:
    # Everything else lives in the packages named for what it is: admin, api, services, engine...
    modules = sorted(path.name for path in (ROOT / "tco").glob("*.py"))
    assert len(modules) <= 12, modules


def _imports_package(imported: set[str], package: str) -> list[str]:
    return sorted(name for name in imported if name == package or name.startswith(package + "."))


def test_no_module_of_tco_imports_reports() -> None:
    # reports builds on tco (its exports read evaluations); tco reaching back would make a circle.
    assert [f"{path} imports {name}" for path, imported in _production_modules()
            if path.parts[0] == "tco" for name in _imports_package(imported, "reports")] == []


def test_only_benchmarks_and_tests_import_the_benchmarks() -> None:
    # The service never imports its benchmarks; the tests share the worker harness with them.
    assert [f"{path} imports {name}" for path, imported in _production_modules()
            if path.parts[0] != "benchmarks"
            for name in _imports_package(imported, "benchmarks")] == []


ENGINE_MAY_IMPORT = {"numpy", "scipy", "numba", "costmodel"}


def test_the_engine_package_imports_only_the_standard_library_and_numerics() -> None:
    offenders = []
    for path in sorted((ROOT / "costmodel").rglob("*.py")):
        if "tests" in path.relative_to(ROOT).parts:
            continue
        for name in _imported_modules(ast.parse(path.read_text(), str(path))):
            top = name.split(".")[0]
            if top not in ENGINE_MAY_IMPORT and top not in sys.stdlib_module_names:
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


# The apps of the service (a top-level package with an AppConfig), the shared ``core`` below them
# and the ``config`` that wires them: the engine (costmodel) is no app and imports none of them.
APP_LAYERS = ("core", "config")


def _app_packages() -> set[str]:
    return {path.parent.name for path in ROOT.glob("*/apps.py")} | set(APP_LAYERS)


def _app_import_graph() -> dict[str, dict[str, str]]:
    """{app: {app it imports: the first module that does}}, every import counted, including
    those inside functions (an import deferred until apps are loaded is still a dependency)."""
    apps = _app_packages()
    graph: dict[str, dict[str, str]] = {app: {} for app in apps}
    for relative, imported in _production_modules():
        here = relative.parts[0]
        if here not in apps:
            continue
        for name in sorted(imported):
            there = name.split(".")[0]
            if there in apps and there != here:
                graph[here].setdefault(there, str(relative))
    return graph


def _a_circle(graph: dict[str, dict[str, str]]) -> list[str]:
    """One circle of imports as [a, b, ..., a], or [] when there is none (depth-first search)."""
    done: set[str] = set()

    def visit(app: str, path: list[str]) -> list[str]:
        if app in path:
            return path[path.index(app):] + [app]
        if app in done:
            return []
        for there in sorted(graph[app]):
            circle = visit(there, [*path, app])
            if circle:
                return circle
        done.add(app)
        return []

    for app in sorted(graph):
        circle = visit(app, [])
        if circle:
            return circle
    return []


def test_the_graph_covers_every_app_and_core_and_config() -> None:
    assert _app_packages() == {"core", "config", "teams", "catalog", "sites", "tco", "reports",
                               "notifications", "finops", "portal"}


def test_no_app_level_import_circle() -> None:
    # Apps are floors (README, "The app graph"): each imports only the floors below it, so an app can
    # be read, tested and changed without the ones built on it.
    graph = _app_import_graph()
    circle = _a_circle(graph)
    assert circle == [], " -> ".join(
        f"{app} ({graph[app][there]})" for app, there in zip(circle, circle[1:], strict=False)
    ) + f" -> {circle[-1]}"


def test_the_circle_finder_finds_a_circle() -> None:
    assert _a_circle({"a": {"b": "a/x.py"}, "b": {"c": "b/y.py"}, "c": {"a": "c/z.py"}}) == [
        "a", "b", "c", "a"]
    assert _a_circle({"a": {"b": "a/x.py"}, "b": {}}) == []
