"""The Strategies sheet: strategies over time as live formulas over the curve's prices.

Mirrors costmodel/strategies.py on the scenario's flat demand (its accelerators every month) and
the curve's prices held flat (the catalog's curves give no forward points): each term's price is
an input cell; buying now is the Buy cash flows sheet's flow, and with the rental market's resale
value (costmodel/market_resale.py) the same with the residual value that curve gives; a locked
term or a rental pays the accelerators held x price x hours each month; renting, then buying the
next generation at month k pays the bridge (with the exit of a contract running past k) and from
month k the engine's cash flows of that purchase, recorded as values (another scenario's buy).
NPVs follow the Comparison sheet's convention; the value of waiting is a difference of two.
"""

from __future__ import annotations

from costmodel.strategies import BUY_NOW
from costmodel.strategies import BUY_NOW_MARKET
from costmodel.strategies import MIX
from costmodel.strategies import NEXT_GENERATION
from costmodel.strategies import ON_DEMAND_KEY
from costmodel.strategies import SPOT_KEY
from costmodel.strategies import StrategyBook
from costmodel.strategies import StrategyInputs
from costmodel.term_structure import ON_DEMAND
from costmodel.term_structure import SPOT
from costmodel.term_structure import term_label
from costmodel.term_structure import term_months
from reports.builders.excel.buy_sheet import NEXT_GENERATION as RESALE_AFTER_NEXT_GENERATION
from reports.builders.excel.cells import COUNT
from reports.builders.excel.cells import NUMBER
from reports.builders.excel.cells import PERCENT
from reports.builders.excel.cells import USD
from reports.builders.excel.cells import USD_PRICE
from reports.builders.excel.cells import absolute
from reports.builders.excel.cells import define_name
from reports.builders.excel.cells import put_number
from reports.builders.excel.cells import put_text
from reports.builders.excel.cells import section
from reports.builders.excel.cells import set_widths
from reports.builders.excel.cells import style_input
from reports.builders.excel.cells import title
from reports.builders.excel.grid import Sheet
from reports.builders.excel.grid import get_column_letter
from reports.builders.excel.monthly import fill_column
from reports.builders.excel.monthly import start_table
from reports.builders.excel.names import Block

SHEET = "Strategies"
H = "ROUND(finance_horizon_months,0)"
HELD = "strategy_accelerators"
NPV = "INDEX({flow},1)+NPV(discount_rate_per_month,{flow}_operating)"
# Each month's discount factor summed over the months after the horizon (market resale).
DISCOUNTED_MONTHS = (
    "IF(finance_discount_rate_per_year=0,strategy_resale_months,"
    "(1+discount_rate_per_month)^-1*(1-(1+discount_rate_per_month)^-strategy_resale_months)"
    "/(1-(1+discount_rate_per_month)^-1))"
)


def price_name(term: str) -> str:
    return f"strategy_price_{term}"


def strategy_name(key: str, what: str) -> str:
    """Name of a strategy's figure: ``strategy_lock_12_npv``."""
    return f"strategy_{key}_{what}"


def _rented(term: str) -> str:
    """A month's cost of renting the accelerators held on a term (spot: the hours used)."""
    hours = "strategy_hours_spot" if term == SPOT else "strategy_hours_held"
    return f"{HELD}*{price_name(term)}*{hours}"


def _value(block: Block, label: str, value: float, *, name: str, unit: str = "", note: str = "",
           number_format: str = NUMBER) -> None:
    """An input the analyst may change, named like a formula of the block."""
    put_text(block.ws.cell(row=block.row, column=block.label_column), label)
    cell = put_number(block.ws.cell(row=block.row, column=block.value_column), value, number_format)
    style_input(cell)
    define_name(block.ws, name, absolute(block.ws, block.row, block.value_column))
    if unit:
        put_text(block.ws.cell(row=block.row, column=block.value_column + 1), unit)
    if note:
        put_text(block.ws.cell(row=block.row, column=block.value_column + 2), note)
    block.row += 1


def write_strategies_sheet(ws: Sheet, inputs: StrategyInputs, currency: str) -> None:
    """Fill the sheet: the inputs, the strategies' monthly costs, totals, NPVs and the verdict."""
    book = StrategyBook(inputs)
    terms = inputs.terms
    title(ws, "Strategies over time",
          "Costs are positive. Formulas over the Assumptions, the Buy cash flows and the curve's prices "
          f"below (held flat; curve of {terms.as_of or 'no date'}).")
    section(ws, 4, "Inputs of the strategies")
    block = Block(ws, 5)
    for price in terms.prices:
        _value(block, f"Price, {term_label(price.term)}", price.price_usd_per_accelerator_hour,
               name=price_name(price.term), unit=f"{currency}/accelerator-hour", note=price.source,
               number_format=USD_PRICE)
    block.formula("Accelerators held every month", "ROUNDUP(workload_accelerators-count_tolerance,0)",
                  name=HELD, number_format=COUNT)
    block.formula("Hours paid a month, on demand and terms (every hour held)", "workload_hours_per_month",
                  name="strategy_hours_held", unit="h")
    _value(block, "Spot interruption overhead", terms.spot_interruption_overhead,
           name="strategy_spot_overhead", number_format=PERCENT)
    block.formula("Hours paid a month, spot (the hours used)",
                  "workload_hours_per_month*workload_utilisation*(1+strategy_spot_overhead)",
                  name="strategy_hours_spot", unit="h")
    if book.next_generation is not None:
        nxt, _, bridge = book.next_generation
        _value(block, f"{nxt.given.name} bought at month", nxt.month, name="strategy_next_month",
               number_format=COUNT, note=nxt.given.source)
        put_text(ws.cell(row=block.row, column=1), "Bridge until then (the cheapest on the curve)")
        put_text(ws.cell(row=block.row, column=2), term_label(bridge))
        block.row += 1
        _value(block, "Months of a bridge contract (0: month by month)", term_months(bridge),
               name="strategy_bridge_months", number_format=COUNT)
        _value(block, "Share of a contract's remaining months paid to leave it", inputs.exit_share,
               name="strategy_exit_share", number_format=PERCENT)
    if book.buy_now_market is not None and inputs.market_resale is not None:
        _value(block, "Useful life of the systems", inputs.market_resale.useful_life_months,
               name="strategy_useful_life", unit="months", number_format=COUNT)
        _value(block, "Share of rental earnings kept for risk", inputs.market_resale.risk_share,
               name="strategy_risk_share", number_format=PERCENT)
        block.formula("Months rented out after the horizon", f"MAX(ROUND(strategy_useful_life,0)-{H},0)",
                      name="strategy_resale_months", number_format=COUNT)
        block.formula("Resale share from the rental market",
                      f"IF(buy_system_price_usd>0,MIN((1-strategy_risk_share)*{price_name(ON_DEMAND)}"
                      f"*workload_hours_per_month*{DISCOUNTED_MONTHS}*buy_accelerators_per_system"
                      "/buy_system_price_usd,1),0)",
                      name="strategy_market_share", number_format=PERCENT)
    columns = _columns(book)
    table = start_table(ws, block.row + 2, [heading for heading, _, _ in columns], book.horizon)
    for column, (_, name, template) in enumerate(columns, start=2):
        if isinstance(template, str):
            fill_column(table, column, template)
        else:
            for month, amount in enumerate(template):
                put_number(ws.cell(row=table.row_of(month), column=column), float(amount), USD)
        table.name_column(name, column)
        define_name(ws, f"{name}_operating", table.column_range(column, from_month=1))
    _verdict(ws, table.last_row + 2, book)
    widths: dict[str, float] = {"A": 52, "B": 18, "C": 22, "D": 40}
    set_widths(ws, widths | {get_column_letter(c): 18 for c in range(5, 2 + len(columns))})


def _columns(book: StrategyBook) -> list[tuple[str, str, str | list[float]]]:
    """(heading, name, monthly formula or recorded values) of each column, strategies in turn."""
    columns: list[tuple[str, str, str | list[float]]] = []
    for key, label in book.labels.items():
        flow = strategy_name(key, "flow")
        if key == BUY_NOW:
            columns.append((label, flow, "INDEX(buy_flow,{m}+1)"))
        elif key == BUY_NOW_MARKET:
            resale = f"capex_systems*strategy_market_share*{RESALE_AFTER_NEXT_GENERATION}"
            columns.append((label, flow, f"INDEX(buy_flow,{{m}}+1)+IF({{m}}={H},residual_value-{resale},0)"))
        elif key.startswith("lock_") or key in (ON_DEMAND_KEY, SPOT_KEY):
            term = {ON_DEMAND_KEY: ON_DEMAND, SPOT_KEY: SPOT}.get(key, key.removeprefix("lock_"))
            columns.append((label, flow, f"IF({{m}}>=1,{_rented(term)},0)"))
        elif key == NEXT_GENERATION and book.next_generation is not None:
            nxt, bought, bridge = book.next_generation
            month = "strategy_next_month"
            paid = _rented(bridge)
            left = (f"IF(AND({{m}}={month},strategy_bridge_months>0),{paid}*(MIN(strategy_bridge_months"
                    f"*ROUNDUP({month}/strategy_bridge_months,0),{H})-{month})*strategy_exit_share,0)")
            bridge_name, buy_name = strategy_name(key, "bridge"), strategy_name(key, "purchase")
            recorded = [0.0] * nxt.month + [float(amount) for amount in bought]
            columns += [
                (f"{label}: rent until month k, with the exit", bridge_name,
                 f"IF(AND({{m}}>=1,{{m}}<={month}),{paid},0)+{left}"),
                (f"{label}: buy {nxt.given.name} (the engine's cash flows, recorded)", buy_name, recorded),
                (f"{label}: total", flow, f"INDEX({bridge_name},{{m}}+1)+INDEX({buy_name},{{m}}+1)"),
            ]
        elif key == MIX and book.mix is not None:
            base = f"ROUNDUP({HELD}*{book.mix.base_share!r}-count_tolerance,0)"
            columns.append((label, flow, f"IF({{m}}>=1,{base}*{price_name(book.mix.term)}*strategy_hours_held"
                                         f"+MAX({HELD}-{base},0)*{price_name(ON_DEMAND)}*strategy_hours_held,0)"))
    return columns


def _verdict(ws: Sheet, row: int, book: StrategyBook) -> None:
    """Each strategy's total and NPV, named; the value of waiting; the strategies not costed."""
    section(ws, row, "Each strategy's cost")
    block = Block(ws, row + 1)
    for key, label in book.labels.items():
        flow = strategy_name(key, "flow")
        block.formula(f"{label}: total", f"SUM({flow})", name=strategy_name(key, "total"), number_format=USD)
        block.formula(f"{label}: NPV of costs", NPV.format(flow=flow), name=strategy_name(key, "npv"),
                      number_format=USD)
    if NEXT_GENERATION in book.labels:
        block.formula("Value of waiting (NPV of buying now less waiting; positive: waiting saves)",
                      f"{strategy_name(BUY_NOW, 'npv')}-{strategy_name(NEXT_GENERATION, 'npv')}",
                      name="strategy_value_of_waiting", number_format=USD)
    for gap in book.unavailable:
        put_text(ws.cell(row=block.row, column=1), f"{gap.label}: not costed")
        put_text(ws.cell(row=block.row, column=2), gap.reason)
        block.row += 1
