"""The workbook's FOCUS sheet: the scenario's projected monthly cost rows in FOCUS 1.2 columns,
as the API's FOCUS CSV gives them (values, not formulas), for a budgeting tool to paste."""
from __future__ import annotations

import math

import pandas as pd

from reports.builders.excel.grid import Sheet

FOCUS_SHEET = "FOCUS projection"
MONEY_COLUMNS = {"BilledCost", "EffectiveCost", "ListCost", "ContractedCost", "ListUnitPrice",
                 "ContractedUnitPrice", "PricingCurrencyContractedUnitPrice", "PricingCurrencyEffectiveCost",
                 "PricingCurrencyListUnitPrice", "PricingQuantity", "ConsumedQuantity",
                 "CommitmentDiscountQuantity"}
DATE_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def write_focus_sheet(sheet: Sheet, frame: pd.DataFrame) -> None:
    """One header row of column names, then one row per FOCUS row; empty cells for nulls."""
    for column, name in enumerate(frame.columns, start=1):
        sheet.cell(1, column, name).font = {"bold": True}
    for row, record in enumerate(frame.itertuples(index=False), start=2):
        for column, value in enumerate(record, start=1):
            if isinstance(value, pd.Timestamp):
                value = value.strftime(DATE_FORMAT)
            elif value is pd.NA or (isinstance(value, float) and math.isnan(value)):
                continue
            elif hasattr(value, "item"):  # NumPy scalars as plain Python numbers
                value = value.item()
            cell = sheet.cell(row, column, value)
            if frame.columns[column - 1] in MONEY_COLUMNS:
                cell.number_format = "#,##0.00"  # exact to the micro-dollar, shown to the cent
