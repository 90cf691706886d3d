"""Text that spreadsheets would run as a formula, made inert before it goes into a CSV file.

Excel, LibreOffice and Google Sheets treat a cell starting with = + - @ (or a tab or carriage
return before one) as a formula: a rent option called ``=HYPERLINK(...)`` or ``+cmd|' /C calc'!A0``
would run when a colleague opens the download. OWASP's advice: prefix such text with a quote.
"""
from __future__ import annotations

import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert(text: str) -> str:
    """``text`` with a leading ``'`` when a spreadsheet would read it as a formula."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def inert_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose column names and text cells are inert; numbers are left as they are."""
    safe = frame.rename(columns=lambda name: inert(str(name)))
    for column in safe.select_dtypes(include=["object", "category", "string"]).columns:
        safe[column] = safe[column].map(lambda value: inert(value) if isinstance(value, str) else value)
    return safe
