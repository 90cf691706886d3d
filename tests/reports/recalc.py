"""Recalculate workbooks with LibreOffice headless and read back the values, as Excel would show them.

openpyxl writes formulas without results; LibreOffice, told to recalculate every file it
loads, computes them and saves the values next to the formulas, which openpyxl then reads
with ``data_only=True``. One LibreOffice start converts several files (it takes seconds).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from openpyxl import load_workbook
from openpyxl.workbook.workbook import Workbook

RECALC_TIMEOUT_S = 180
# LibreOffice's "recalculation on file load" for Excel files: 0 = always (1 = never, 2 = ask).
ALWAYS_RECALCULATE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">
<prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""
INSTALL_HINT = "LibreOffice is needed to recalculate workbooks: apt-get install libreoffice-calc"


def recalculate(paths: Sequence[Path], work_dir: Path) -> list[Path]:
    """Recalculated copies of the workbooks (same names, in ``work_dir / "recalculated"``)."""
    soffice = shutil.which("soffice")
    if soffice is None:
        raise RuntimeError(INSTALL_HINT)
    profile = work_dir / "libreoffice-profile"
    (profile / "user").mkdir(parents=True, exist_ok=True)
    (profile / "user" / "registrymodifications.xcu").write_text(ALWAYS_RECALCULATE)
    out_dir = work_dir / "recalculated"
    completed = subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            "--norestore",
            "--convert-to",
            "xlsx:Calc MS Excel 2007 XML",
            "--outdir",
            str(out_dir),
            *map(str, paths),
        ],
        capture_output=True,
        text=True,
        timeout=RECALC_TIMEOUT_S,
        check=False,
    )
    converted = [out_dir / path.name for path in paths]
    missing = [path for path in converted if not path.exists()]
    if completed.returncode or missing:
        raise RuntimeError(f"LibreOffice did not convert {missing}: {completed.stdout}{completed.stderr}")
    return converted


class Values:
    """Recalculated values of a workbook, looked up by defined name."""

    def __init__(self, path: Path) -> None:
        self.workbook: Workbook = load_workbook(path, data_only=True)

    def cells(self, name: str) -> list:
        """Values of a named cell or column range, top to bottom."""
        defined = self.workbook.defined_names[name]
        ((sheet, reference),) = defined.destinations
        cells = self.workbook[sheet][reference.replace("$", "")]
        if not isinstance(cells, tuple):
            return [cells.value]
        return [row[0].value for row in cells]

    def __getitem__(self, name: str):
        (value,) = self.cells(name)
        return value

    def errors(self) -> list[tuple[str, str, str]]:
        """(sheet, cell, value) of every cell whose formula ended in an error (#NAME?, Err:502...)."""
        return [
            (ws.title, cell.coordinate, cell.value)
            for ws in self.workbook.worksheets
            for row in ws.iter_rows()
            for cell in row
            if isinstance(cell.value, str) and (cell.value.startswith("#") or cell.value.startswith("Err:"))
        ]
