"""Run the FinOps Foundation's FOCUS validator (PyPI ``focus-validator``) on a file we wrote.

Its only release, 1.0.0, needs numpy<2 and pandas<3, so it runs from its own virtualenv
(``make focus-validator`` makes ``.venv-focus``; ``FOCUS_VALIDATOR`` may name another binary).
It knows the FOCUS 1.0 rules (1.2 keeps every 1.0 column and adds others); some of its rules
name a column by its pre-1.0 name (Provider, Publisher, InvoiceIssuer, ResourceID and, in the
SkuPriceId check, ChargeType, which FOCUS 1.0 and 1.2 call ProviderName, PublisherName,
InvoiceIssuerName, ResourceId and ChargeCategory), so it runs on a copy of its own 1.0 rules
with those names corrected, every check otherwise as shipped. It reads its ISO currency list
from a path relative to the working directory, so it runs from its package's folder.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.worker import REPO_ROOT

RENAMED = {"Provider": "ProviderName", "Publisher": "PublisherName",
           "InvoiceIssuer": "InvoiceIssuerName", "ResourceID": "ResourceId"}


def validator_binary() -> Path:
    binary = Path(os.environ.get("FOCUS_VALIDATOR", REPO_ROOT / ".venv-focus" / "bin" / "focus-validator"))
    if not binary.exists():
        raise AssertionError(f"the FOCUS validator is not installed at {binary}: run `make focus-validator` "
                             "(or set FOCUS_VALIDATOR to its focus-validator binary)")
    return binary


def package_folder() -> Path:
    """The folder holding the validator's ``focus_validator`` package."""
    python = validator_binary().parent / "python"
    return Path(subprocess.run(
        [python, "-c", "import focus_validator as v, pathlib; print(pathlib.Path(v.__file__).parent)"],
        capture_output=True, text=True, check=True).stdout.strip())


def rule_set(folder: Path) -> Path:
    """The validator's FOCUS 1.0 rules, with the pre-1.0 column names corrected."""
    shipped = package_folder() / "rules" / "version_sets"
    target = folder / "version_sets"
    shutil.copytree(shipped, target, dirs_exist_ok=True)
    for rule in (target / "1.0").glob("*.yaml"):
        text = rule.read_text()
        for old, new in RENAMED.items():
            text = text.replace(f"column_id: {old}\n", f"column_id: {new}\n")
        text = text.replace("WHEN ChargeType IN", "WHEN ChargeCategory IN")
        rule.write_text(text)
    return target


def validate(data_file: Path, folder: Path) -> list[str]:
    """The validator's failed checks on ``data_file`` (empty when it passes), as 'check: message'."""
    report = folder / "focus-validator.xml"
    completed = subprocess.run(
        [validator_binary(), "--data-file", str(data_file), "--validate-version", "1.0",
         "--rule-set-path", str(rule_set(folder)),
         "--output-type", "unittest", "--output-destination", str(report)],
        capture_output=True, text=True, timeout=300, cwd=package_folder().parent)
    if not report.exists():
        raise AssertionError(f"the validator wrote no report:\n{completed.stdout}\n{completed.stderr}")
    failed = []
    for case in ET.parse(report).getroot().iter("testcase"):
        for problem in [*case.iter("failure"), *case.iter("error")]:
            failed.append(f"{case.get('name')}: {problem.get('message') or problem.text}")
    return failed
