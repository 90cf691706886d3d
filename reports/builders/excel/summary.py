"""The Summary sheet: what was evaluated, the recommendation, live key figures and the chart."""

from __future__ import annotations

import math

from costmodel.vocabulary import money_currency
from reports.builders.excel.cells import COUNT
from reports.builders.excel.cells import LINE_COLOURS
from reports.builders.excel.cells import RIGHT
from reports.builders.excel.cells import USD
from reports.builders.excel.cells import USD_PRICE
from reports.builders.excel.cells import WRAP
from reports.builders.excel.cells import absolute
from reports.builders.excel.cells import absolute_range
from reports.builders.excel.cells import header_row
from reports.builders.excel.cells import put_formula
from reports.builders.excel.cells import put_number
from reports.builders.excel.cells import put_text
from reports.builders.excel.cells import section
from reports.builders.excel.cells import set_widths
from reports.builders.excel.cells import title
from reports.builders.excel.comparison import ComparisonLayout
from reports.builders.excel.grid import Chart
from reports.builders.excel.grid import Sheet
from reports.builders.excel.grid import get_column_letter
from reports.builders.excel.names import api_name
from reports.builders.excel.names import rent_name
from reports.content import ReportContent
from reports.content import describe_path
from reports.content import top_movers
from reports.formatting import format_usd_cents
from reports.formatting import timestamp
from tco.services.evaluation import billing_rows

SHEET = "Summary"
CHART_ANCHOR_GAP = 2
BUY_LINE_WIDTH = 3  # pt
RENT_LINE_WIDTH = 1.5

# (label, figure on Comparison, number format, shown for buying, shown for a per-token API)
LIVE_FIGURES = (
    ("Total cost over the horizon", "total_usd", USD, True, True),
    ("NPV of costs", "npv_usd", USD, True, True),
    ("Cost per useful accelerator-hour", "cost_per_useful_accelerator_hour_usd", USD_PRICE, True, False),
    ("Cost per million tokens", "cost_per_million_tokens_usd", USD_PRICE, True, True),
    ("Saving by buying, NPV (option - buy)", "npv_saving_usd", USD, False, True),
    ("Cheaper by NPV", "winner", "@", False, True),
    ("Breakeven month (nominal)", "breakeven_month", COUNT, False, True),
)
# Below the live figures: the verdict's breakeven (the page's, the PDF's and the verdict
# sentence's), a value at export because its discounting is the engine's.
DISCOUNTED_BREAKEVEN = "Breakeven month (discounted, at export)"


def write_summary(ws: Sheet, content: ReportContent, comparison: ComparisonLayout) -> None:
    """Fill the Summary sheet; its key figures are formulas that follow the Assumptions."""
    meta = content.meta
    title(
        ws,
        "Buy vs rent: total cost of ownership",
        "Key figures below are live formulas; the recommendation text is the engine's at export.",
    )
    set_widths(ws, {"A": 40} | {get_column_letter(c): 20 for c in range(2, 10)})
    rows = [
        ("Scenario", meta.scenario_name),
        ("Description", meta.scenario_description),
        ("Scenario ID", "" if meta.scenario_id is None else str(meta.scenario_id)),
        ("Scenario last saved", timestamp(meta.scenario_updated_at)),
        ("Prices as of", meta.prices_as_of.isoformat()),
        ("Author", meta.author),
        ("Generated", timestamp(meta.generated_at)),
        ("Engine version", meta.engine_version),
        ("Report ID", "" if meta.report_id is None else str(meta.report_id)),
        *meta.labels.items(),
        *content.signing_notes(),
        *verdict_rows(content),
        ("Recommendation", content.result.recommendation or ""),
    ]
    row = 4
    for label, value in rows:
        put_text(ws.cell(row=row, column=1), label).alignment = WRAP
        cell = put_text(ws.cell(row=row, column=2), value)
        cell.alignment = WRAP
        ws.merge(row, 2, row, 8)
        row += 1
    ws.row_heights[row - 1] = 75  # the recommendation is a long sentence

    movers = top_movers(content.tornado)
    if movers and content.tornado is not None:
        section(
            ws,
            row + 1,
            f"Assumptions that move {content.tornado.measure} most (each moved "
            f"+/-{content.tornado.step_share:.0%})",
        )
        row += 2
        for mover in movers:
            put_text(ws.cell(row=row, column=1), describe_path(mover.path, content.inputs))
            put_text(ws.cell(row=row, column=2), f"effect {format_usd_cents(mover.effect_usd)}")
            row += 1

    section(ws, row + 1, "Key figures (live)")
    header = row + 2
    # Headed as the verdict names the options ('Rent AWS ...', 'Pay per token: ...').
    sides = ([("Buy", "buy_")]
             + [(f"Rent {option.name}", rent_name(index, ""))
                for index, option in enumerate(content.result.rent)]
             + [(f"Pay per token: {api.name}", api_name(index, ""))
                for index, api in enumerate(content.result.api)])
    discounted = {standing.label: standing.breakeven_month
                  for standing in content.result.verdict.ranked if standing.kind != "buy"}
    header_row(ws, header, ["Figure", *(label for label, _ in sides)], tall=True)
    for offset, (label, figure, number_format, for_buy, for_api) in enumerate(LIVE_FIGURES, start=1):
        put_text(ws.cell(row=header + offset, column=1), label)
        for column, (_, prefix) in enumerate(sides, start=2):
            if (prefix == "buy_" and not for_buy) or (prefix.startswith("api") and not for_api):
                continue
            put_formula(
                ws.cell(row=header + offset, column=column), f"{prefix}{figure}", number_format
            ).alignment = RIGHT
    last = header + len(LIVE_FIGURES) + 1
    put_text(ws.cell(row=last, column=1), DISCOUNTED_BREAKEVEN)
    for column, (label, _) in enumerate(sides, start=2):
        if label in discounted:
            month, cell = discounted[label], ws.cell(row=last, column=column)
            shown = put_text(cell, "never") if math.isnan(month) else put_number(cell, month, COUNT)
            shown.alignment = RIGHT
    ws.add_chart(cumulative_chart(content, comparison), f"A{last + CHART_ANCHOR_GAP}")


def verdict_rows(content: ReportContent) -> list[tuple[str, str]]:
    """The verdict (the page's and the PDF's words), every option by rank and how each rent
    option is billed, as (label, text) rows written as values: read without recalculating."""
    verdict = content.result.verdict
    rows = [("Verdict", verdict.sentence())]
    rows += [(f"Option {rank}{' (cheapest)' if rank == 1 else ''}",
              f"{option.label}: NPV of costs {format_usd_cents(option.npv_usd)}, cash "
              f"{format_usd_cents(option.total_usd)}")
             for rank, option in enumerate(verdict.ranked, start=1)]
    rows += [("Left out", f"{option.name}: {option.reason}") for option in verdict.left_out]
    rows += [(f"Billing: {row['name']}", f"billed for {row['basis']} ({row['why']})")
             for row in billing_rows(content.inputs)]
    return rows


def cumulative_chart(content: ReportContent, comparison: ComparisonLayout) -> Chart:
    """Native chart of cumulative cost by month, one marker where buying breaks even per option."""
    table = comparison.table
    data = table.ws
    months = absolute_range(data, table.first_row, table.last_row, 1)
    lines = ([("Buy", comparison.buy_cumulative_column)]
             + [(f"Rent {option.name}", column)
                for option, column in zip(content.result.rent, comparison.rent_cumulative_columns,
                                          strict=True)]
             + [(f"Pay per token: {api.name}", column)
                for api, column in zip(content.result.api, comparison.api_cumulative_columns, strict=True)])
    series = [
        {
            "name": label,
            "categories": months,
            "values": absolute_range(data, table.first_row, table.last_row, column),
            "marker": {"type": "none"},
            "line": {
                "color": LINE_COLOURS[index % len(LINE_COLOURS)],
                "width": BUY_LINE_WIDTH if index == 0 else RENT_LINE_WIDTH,
            },
        }
        for index, (label, column) in enumerate(lines)
    ]
    month_row = comparison.key_row["breakeven_month"]
    cost_row = comparison.key_row["breakeven_cumulative_usd"]
    others = ([option.name for option in content.result.rent]
              + [f"Pay per token: {api.name}" for api in content.result.api])
    key_columns = comparison.rent_key_columns + comparison.api_key_columns
    for index, (name, column) in enumerate(zip(others, key_columns, strict=True)):
        colour = LINE_COLOURS[(index + 1) % len(LINE_COLOURS)]
        series.append(
            {
                "name": f"Breakeven vs {name}",
                "categories": absolute(data, month_row, column),
                "values": absolute(data, cost_row, column),
                "marker": {
                    "type": "diamond", "size": 10, "fill": {"color": colour}, "border": {"color": colour}
                },
                "line": {"none": True},
            }
        )
    return Chart(
        kind={"type": "scatter", "subtype": "straight"},
        series=series,
        title=f"Cumulative cost ({money_currency()})",
        x_axis={"name": "Month", "num_format": "0", "min": 0, "max": table.n_months},
        y_axis={"name": f"Cumulative cost ({money_currency()})", "num_format": '"$"#,##0'},
        legend={"position": "bottom"},
        size={"width": 900, "height": 380},
    )
