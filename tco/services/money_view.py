"""Currency, exchange rates, contract books, after-tax figures and fiscal years as text, for the
scenario page and the PDF (the same words and figures in both)."""
from __future__ import annotations

from typing import Any

from costmodel.after_tax import CONVENTION
from costmodel.vocabulary import money as amount
from tco.choices import TaxDepreciation
from tco.services.cash_flows import CashFlowTable
from tco.services.evaluation import Evaluation


def money_view(evaluation: Evaluation, *tables: CashFlowTable | None) -> dict[str, Any]:
    """What the page and the PDF show; ``tables`` are cash flows by fiscal year or quarter."""
    currency = evaluation.currency

    def money(value: float) -> str:
        return amount(value, currency=currency)

    view = evaluation.after_tax
    sides = ([("Buy", view.buy)] + [(option.name, option.flows) for option in view.rent]
             + [(f"Pay per token: {option.name}", option.flows) for option in view.api])
    shown = [table for table in tables if table is not None]
    return {
        "currency": currency,
        "rates": [rate.describe() for rate in evaluation.rates],
        "contracts": [{**row, "list": money(row["list_cost_usd"]),
                       "contracted": money(row["contracted_cost_usd"]),
                       "unused": money(row["unused_commitment_usd"])}
                      for row in evaluation.contract_costs()],
        "tax_rate": f"{view.tax.rate:.2%}",
        "verdict_basis": evaluation.result.verdict.basis_words,
        "tax_method": TaxDepreciation(str(view.tax.method)).label,
        "convention": CONVENTION,
        "after_tax": [{"name": name, "pre": money(flows.total_pre_tax),
                       "after": money(flows.total_after_tax), "npv_pre": money(flows.npv_pre_tax),
                       "npv_after": money(flows.npv_after_tax)} for name, flows in sides],
        "ways": [{"name": way.name.replace("_", " "), "description": way.description,
                  "pre": money(way.flows.total_pre_tax), "after": money(way.flows.total_after_tax),
                  "npv_after": money(way.flows.npv_after_tax)} for way in view.ways],
        "fiscal_start": shown[0].fiscal_year_start_month if shown else None,
        "fiscal_tables": [{"period": table.period, "rows": [
            {"period": row["period"], "buy_pre": money(row["buy_pre_tax"]),
             "buy_after": money(row["buy_after_tax"]), "book": money(row["book_depreciation"]),
             "tax": money(row["tax_depreciation"]), "rent_after": money(row.get("rent_0_after_tax", 0.0))}
            for row in table.rows]} for table in shown],
    }
