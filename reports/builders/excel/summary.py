"""The Summary sheet: what was evaluated, the recommendation, live key figures and the chart."""

from __future__ import annotations

from openpyxl.chart import Reference, ScatterChart, Series
from openpyxl.chart.shapes import GraphicalProperties
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from reports.builders.excel.cells import (
    COUNT,
    RIGHT,
    USD,
    USD_PRICE,
    WRAP,
    header_row,
    put_formula,
    put_text,
    section,
    set_widths,
    title,
)
from reports.builders.excel.comparison import ComparisonLayout
from reports.builders.excel.names import rent_name
from reports.content import ReportContent, top_movers
from reports.formatting import format_usd_cents, timestamp

SHEET = "Summary"
CHART_ANCHOR_GAP = 2
# Buy first, then one colour per rent option (its breakeven marker takes the same colour).
LINE_COLOURS = ("1F4E79", "C55A11", "70AD47", "7030A0", "BF9000", "2E75B6", "A5A5A5")
BUY_LINE_WIDTH = 38100  # EMU: 3 pt
RENT_LINE_WIDTH = 19050  # EMU: 1.5 pt

# (label, figure on Comparison, number format, shown for buying too)
LIVE_FIGURES = (
    ("Total cost over the horizon", "total_usd", USD, True),
    ("NPV of costs", "npv_usd", USD, True),
    ("Cost per useful accelerator-hour", "cost_per_useful_accelerator_hour_usd", USD_PRICE, True),
    ("Saving by buying, NPV (rent - buy)", "npv_saving_usd", USD, False),
    ("Cheaper by NPV", "winner", "@", False),
    ("Breakeven month", "breakeven_month", COUNT, False),
)


def write_summary(ws: Worksheet, content: ReportContent, comparison: ComparisonLayout) -> None:
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
        ("Recommendation", content.result.recommendation or ""),
    ]
    row = 4
    for label, value in rows:
        put_text(ws.cell(row=row, column=1), label).alignment = WRAP
        cell = put_text(ws.cell(row=row, column=2), value)
        cell.alignment = WRAP
        ws.merge_cells(start_row=row, start_column=2, end_row=row, end_column=8)
        row += 1
    ws.row_dimensions[row - 1].height = 75  # the recommendation is a long sentence

    movers = top_movers(content.tornado)
    if movers:
        section(
            ws,
            row + 1,
            f"Assumptions that move the NPV saving most (each moved "
            f"+/-{content.tornado.step_share:.0%}, against {content.tornado.rent_option})",
        )
        row += 2
        for mover in movers:
            put_text(ws.cell(row=row, column=1), mover.path)
            put_text(ws.cell(row=row, column=2), f"swing {format_usd_cents(mover.swing_usd)}")
            row += 1

    section(ws, row + 1, "Key figures (live)")
    header = row + 2
    sides = [("Buy", "buy_")] + [
        (option.name, rent_name(index, "")) for index, option in enumerate(content.result.rent)
    ]
    header_row(ws, header, ["Figure", *(label for label, _ in sides)], tall=True)
    for offset, (label, figure, number_format, for_buy) in enumerate(LIVE_FIGURES, start=1):
        put_text(ws.cell(row=header + offset, column=1), label)
        for column, (_, prefix) in enumerate(sides, start=2):
            if prefix == "buy_" and not for_buy:
                continue
            put_formula(
                ws.cell(row=header + offset, column=column), f"{prefix}{figure}", number_format
            ).alignment = RIGHT
    ws.add_chart(cumulative_chart(content, comparison), f"A{header + len(LIVE_FIGURES) + CHART_ANCHOR_GAP}")


def cumulative_chart(content: ReportContent, comparison: ComparisonLayout) -> ScatterChart:
    """Native chart of cumulative cost by month, one marker where buying breaks even per option."""
    table = comparison.table
    data = table.ws
    chart = ScatterChart()
    chart.title = "Cumulative cost (USD)"
    chart.style = 13
    chart.height, chart.width = 10, 24
    chart.x_axis.title = "Month"
    chart.y_axis.title = "Cumulative cost (USD)"
    chart.y_axis.numFmt = '"$"#,##0'
    chart.x_axis.delete = chart.y_axis.delete = False
    months = Reference(data, min_col=1, min_row=table.first_row, max_row=table.last_row)
    lines = [("Buy", comparison.buy_cumulative_column)] + [
        (f"Rent: {option.name}", column)
        for option, column in zip(content.result.rent, comparison.rent_cumulative_columns, strict=True)
    ]
    for index, (label, column) in enumerate(lines):
        values = Reference(data, min_col=column, min_row=table.first_row, max_row=table.last_row)
        series = Series(values, months, title=label)
        series.marker.symbol = "none"
        series.smooth = False
        series.graphicalProperties.line.solidFill = LINE_COLOURS[index % len(LINE_COLOURS)]
        series.graphicalProperties.line.width = BUY_LINE_WIDTH if index == 0 else RENT_LINE_WIDTH
        chart.series.append(series)
    month_row = comparison.key_row["breakeven_month"]
    cost_row = comparison.key_row["breakeven_cumulative_usd"]
    for index, (option, column) in enumerate(
        zip(content.result.rent, comparison.rent_key_columns, strict=True)
    ):
        colour = LINE_COLOURS[(index + 1) % len(LINE_COLOURS)]
        point = Series(
            Reference(data, min_col=column, min_row=cost_row),
            Reference(data, min_col=column, min_row=month_row),
            title=f"Breakeven vs {option.name}",
        )
        point.marker.symbol = "diamond"
        point.marker.size = 10
        point.marker.graphicalProperties = GraphicalProperties(solidFill=colour)
        point.marker.graphicalProperties.line.solidFill = colour
        point.graphicalProperties.line.noFill = True
        chart.series.append(point)
    return chart
