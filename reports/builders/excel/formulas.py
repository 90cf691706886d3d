"""Compute the workbook's formulas in Python, so the file carries each formula's value.

A small spreadsheet interpreter for the formulas the sheet writers use (arithmetic,
comparisons, names and ranges, and the functions in ``FUNCTIONS``), with the spreadsheet's
rules: an empty cell is 0 in arithmetic, COUNT/MIN/NPV skip text and empty cells, IF and
IFERROR evaluate only the branch they return, errors (#DIV/0!, #N/A) travel through formulas.
IRR follows LibreOffice's Newton iteration (20 steps, 1e-7) from the formula's own guess.
The LibreOffice recalculation test compares every value computed here with LibreOffice's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from reports.builders.excel.grid import Book
from reports.builders.excel.grid import Cell
from reports.builders.excel.grid import Sheet
from reports.builders.excel.grid import column_index
from reports.builders.excel.grid import coordinate

IRR_STEPS = 20
IRR_EPSILON = 1e-7


@dataclass(frozen=True)
class XlError:
    """A spreadsheet error value, such as #DIV/0! or #N/A."""

    code: str


DIV0, NA, NUM, VALUE, REF = (XlError(code) for code in ("#DIV/0!", "#N/A", "#NUM!", "#VALUE!", "#REF!"))


class Failed(Exception):
    """Raised inside a formula to return an error value from it."""

    def __init__(self, error: XlError) -> None:
        super().__init__(error.code)
        self.error = error


@dataclass(frozen=True)
class Area:
    """A rectangle of cells on one sheet, 1-based and inclusive."""

    sheet: Sheet
    first_row: int
    first_column: int
    last_row: int
    last_column: int

    @property
    def rows(self) -> int:
        return self.last_row - self.first_row + 1

    @property
    def columns(self) -> int:
        return self.last_column - self.first_column + 1


_TOKEN = re.compile(
    r"""\s*(?:
      (?P<string>"(?:[^"]|"")*")
     |(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
     |(?P<range>\$?[A-Z]{1,3}(?:\$?\d+|\{-?\d+\}):\$?[A-Z]{1,3}(?:\$?\d+|\{-?\d+\}))
     |(?P<ref>\$?[A-Z]{1,3}(?:\$?\d+|\{-?\d+\}))(?![A-Za-z0-9_(])
     |(?P<name>[A-Za-z_][A-Za-z0-9_.]*)
     |(?P<op><>|<=|>=|[-+*/^&=<>(),])
    )""",
    re.VERBOSE,
)
# A reference to a row without $ is relative to the formula's row: formulas filled down a
# column differ in those rows only, and are parsed once in the form A{-1} (the row above).
_RELATIVE_ROW = re.compile(r"(?<![A-Za-z0-9_$])(\$?[A-Z]{1,3})(\d+)(?![A-Za-z0-9_(])")
_RELATIVE_CELL = re.compile(r"^(\$?)([A-Z]{1,3})\{(-?\d+)\}$")
_REFERENCE = re.compile(r"^(?:'((?:[^']|'')+)'|([^!]+))!(.+)$")
COMPARISONS = ("=", "<>", "<", ">", "<=", ">=")

Node = Callable[["Evaluator", Sheet], Any]


def tokenize(formula: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    formula = formula.rstrip()
    while position < len(formula):
        match = _TOKEN.match(formula, position)
        if match is None or match.end() == position:
            raise ValueError(f"cannot read formula {formula!r} at {position}")
        kind = match.lastgroup
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


class Parser:
    """Recursive descent over the spreadsheet's precedence: comparison < & < + - < * / < ^ < unary."""

    def __init__(self, formula: str) -> None:
        self.tokens = tokenize(formula)
        self.position = 0

    def parse(self) -> Node:
        node = self.comparison()
        if self.position != len(self.tokens):
            raise ValueError(f"unexpected {self.tokens[self.position][1]!r}")
        return node

    def peek(self) -> str | None:
        return self.tokens[self.position][1] if self.position < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.tokens[self.position]
        self.position += 1
        return token

    def expect(self, text: str) -> None:
        if self.take()[1] != text:
            raise ValueError(f"expected {text!r}")

    def _binary(self, operators: tuple[str, ...], operand: Callable[[], Node]) -> Node:
        node = operand()
        while self.peek() in operators and self.tokens[self.position][0] == "op":
            operator = self.take()[1]
            node = _operation(operator, node, operand())
        return node

    def comparison(self) -> Node:
        return self._binary(COMPARISONS, self.concatenation)

    def concatenation(self) -> Node:
        return self._binary(("&",), self.additive)

    def additive(self) -> Node:
        return self._binary(("+", "-"), self.term)

    def term(self) -> Node:
        return self._binary(("*", "/"), self.power)

    def power(self) -> Node:
        return self._binary(("^",), self.unary)

    def unary(self) -> Node:
        if self.peek() in ("-", "+"):
            sign = self.take()[1]
            operand = self.unary()
            if sign == "+":
                return operand
            return lambda ev, sheet: _arithmetic(
                lambda a: -a, _numeric(ev.array_or_value(operand(ev, sheet)))
            )
        return self.primary()

    def primary(self) -> Node:
        kind, text = self.take()
        if kind == "number":
            number = float(text)
            return lambda ev, sheet: number
        if kind == "string":
            string = text[1:-1].replace('""', '"')
            return lambda ev, sheet: string
        if kind == "ref":
            place = _place(text)
            return lambda ev, sheet: ev.value(sheet, *place(ev.row))
        if kind == "range":
            first, last = (_place(part) for part in text.split(":"))
            return lambda ev, sheet: Area(sheet, *first(ev.row), *last(ev.row))
        if kind == "op" and text == "(":
            node = self.comparison()
            self.expect(")")
            return node
        if kind == "name":
            if self.peek() == "(":
                return self.call(text.upper())
            if text.upper() in ("TRUE", "FALSE"):
                truth = text.upper() == "TRUE"
                return lambda ev, sheet: truth
            return lambda ev, sheet: ev.name(text)
        raise ValueError(f"unexpected {text!r}")

    def call(self, function: str) -> Node:
        self.expect("(")
        arguments: list[Node] = []
        if self.peek() != ")":
            arguments.append(self.comparison())
            while self.peek() == ",":
                self.take()
                arguments.append(self.comparison())
        self.expect(")")
        if function == "IF":
            return _if(arguments)
        if function == "IFERROR":
            return _iferror(arguments)
        implementation = FUNCTIONS.get(function)
        if implementation is None:
            raise ValueError(f"no implementation of {function}()")

        def node(ev: Evaluator, sheet: Sheet) -> Any:
            return implementation(ev, *(argument(ev, sheet) for argument in arguments))

        return node


def _place(reference: str) -> Callable[[int], tuple[int, int]]:
    """(row, column) of a reference, given the row of the formula that holds it."""
    relative = _RELATIVE_CELL.match(reference)
    if relative is None:
        fixed = coordinate(reference)
        return lambda row: fixed
    column, offset = column_index(relative.group(2)), int(relative.group(3))
    return lambda row: (row + offset, column)


def relative_form(formula: str, row: int) -> str:
    """The formula with its relative rows written as offsets from ``row``: A12 in row 13 -> A{-1}."""
    return _RELATIVE_ROW.sub(lambda match: f"{match.group(1)}{{{int(match.group(2)) - row}}}", formula)


# ---- values ---------------------------------------------------------------------------------


def _scalar(value: Any) -> Any:
    if isinstance(value, XlError):
        raise Failed(value)
    return value


def _number(value: Any) -> float:
    """A value in arithmetic: empty is 0, TRUE is 1, text that is no number is #VALUE!."""
    value = _scalar(value)
    if value is None:
        return 0.0
    if isinstance(value, bool | int | float | np.floating):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise Failed(VALUE) from None
    raise Failed(VALUE)


def _numeric(value: Any) -> float | np.ndarray:
    if isinstance(value, np.ndarray):
        return value.astype(float)
    return _number(value)


def _truth(value: Any) -> bool:
    value = _scalar(value)
    if isinstance(value, str):
        raise Failed(VALUE)
    return bool(_number(value))


def _arithmetic(function: Callable, *operands: Any) -> Any:
    with np.errstate(all="ignore"):
        result = function(*operands)
    if isinstance(result, np.ndarray):
        return result
    if isinstance(result, complex) or not math.isfinite(result):
        raise Failed(NUM)
    return float(result)


def _divide(a, b):
    if not isinstance(b, np.ndarray) and b == 0:
        raise Failed(DIV0)
    return a / b


def _power(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.power(a, b)
    if a == 0 and b < 0:
        raise Failed(DIV0)
    try:
        return math.pow(a, b)
    except (ValueError, OverflowError):
        raise Failed(NUM) from None


ARITHMETIC = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": _divide,
    "^": _power,
}


def _rank(value: Any) -> tuple[int, Any]:
    """Order of values of different types in a comparison: numbers < text < booleans."""
    if isinstance(value, bool):
        return 2, value
    if isinstance(value, str):
        return 1, value.lower()
    return 0, value


def _compare(operator: str, a: Any, b: Any) -> Any:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = _numeric(a), _numeric(b)
        return {"=": np.equal, "<>": np.not_equal, "<": np.less, ">": np.greater,
                "<=": np.less_equal, ">=": np.greater_equal}[operator](a, b)
    a, b = _scalar(a), _scalar(b)
    if a is None:
        a = "" if isinstance(b, str) else 0.0
    if b is None:
        b = "" if isinstance(a, str) else 0.0
    left, right = _rank(a), _rank(b)
    if left[0] == 0:
        left = (0, float(a))
    if right[0] == 0:
        right = (0, float(b))
    return {"=": left == right, "<>": left != right, "<": left < right, ">": left > right,
            "<=": left <= right, ">=": left >= right}[operator]


def _operation(operator: str, left: Node, right: Node) -> Node:
    if operator in COMPARISONS:
        return lambda ev, sheet: _compare(
            operator, ev.array_or_value(left(ev, sheet)), ev.array_or_value(right(ev, sheet))
        )
    if operator == "&":
        return lambda ev, sheet: _text(left(ev, sheet)) + _text(right(ev, sheet))
    function = ARITHMETIC[operator]

    def node(ev: Evaluator, sheet: Sheet) -> Any:
        a = _numeric(ev.array_or_value(left(ev, sheet)))
        b = _numeric(ev.array_or_value(right(ev, sheet)))
        return _arithmetic(function, a, b)

    return node


def _text(value: Any) -> str:
    value = _scalar(value)
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _if(arguments: list[Node]) -> Node:
    condition, then = arguments[0], arguments[1]
    otherwise = arguments[2] if len(arguments) > 2 else (lambda ev, sheet: False)

    def node(ev: Evaluator, sheet: Sheet) -> Any:
        chosen = then if _truth(ev.scalar(condition(ev, sheet))) else otherwise
        return chosen(ev, sheet)

    return node


def _iferror(arguments: list[Node]) -> Node:
    attempt, fallback = arguments

    def node(ev: Evaluator, sheet: Sheet) -> Any:
        try:
            value = ev.scalar(attempt(ev, sheet))
        except Failed:
            return fallback(ev, sheet)
        return fallback(ev, sheet) if isinstance(value, XlError) else value

    return node


# ---- functions ------------------------------------------------------------------------------


def _numbers(ev: Evaluator, arguments: tuple) -> list[float]:
    """Numbers among the arguments: ranges give their numbers only (no text, no empty cells)."""
    numbers: list[float] = []
    for argument in arguments:
        if isinstance(argument, Area):
            for value in ev.area_values(argument):
                if isinstance(value, XlError):
                    raise Failed(value)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    numbers.append(float(value))
        elif isinstance(argument, np.ndarray):
            numbers.extend(float(value) for value in argument.ravel())
        else:
            numbers.append(_number(argument))
    return numbers


def _count(ev: Evaluator, *arguments: Any) -> float:
    total = 0
    for argument in arguments:
        if isinstance(argument, Area):
            total += sum(
                isinstance(value, int | float) and not isinstance(value, bool)
                for value in ev.area_values(argument)
            )
        else:
            total += isinstance(argument, int | float) and not isinstance(argument, bool)
    return float(total)


def _round(value: float, digits: float, away: bool) -> float:
    scale = 10.0 ** int(digits)
    size = abs(value) * scale
    rounded = math.ceil(size) if away else math.floor(size + 0.5)
    return math.copysign(rounded / scale, value) if rounded else 0.0


def _elementwise(function: Callable[[float], float], value: Any) -> Any:
    value = _numeric(value)
    if isinstance(value, np.ndarray):
        return np.vectorize(function, otypes=[float])(value)
    return _arithmetic(function, value)


def _index(ev: Evaluator, area: Any, row: Any, column: Any = None) -> Any:
    if not isinstance(area, Area):
        raise Failed(VALUE)
    row_number = int(_number(row))
    column_number = 1 if column is None else int(_number(column))
    if column is None and area.rows == 1:
        row_number, column_number = 1, row_number
    if not (1 <= row_number <= area.rows and 1 <= column_number <= area.columns):
        raise Failed(REF)
    return ev.value(area.sheet, area.first_row + row_number - 1, area.first_column + column_number - 1)


def _match(ev: Evaluator, wanted: Any, area: Area, kind: Any = 1.0) -> float:
    """MATCH with type 1: the position of the largest value not above ``wanted`` (ascending data)."""
    wanted = _number(wanted)
    if _number(kind) != 1:
        raise NotImplementedError("MATCH is written with match type 1 only")
    position = None
    for index, value in enumerate(ev.area_values(area), start=1):
        if isinstance(value, int | float) and not isinstance(value, bool):
            if value > wanted:
                break
            position = index
    if position is None:
        raise Failed(NA)
    return float(position)


def _npv(ev: Evaluator, rate: Any, *values: Any) -> float:
    rate = _number(rate)
    if rate == -1:
        raise Failed(DIV0)
    return sum(value / (1 + rate) ** period for period, value in enumerate(_numbers(ev, values), start=1))


def _pmt(ev: Evaluator, rate: Any, periods: Any, present: Any, future: Any = 0.0, due: Any = 0.0) -> float:
    rate, periods, present, future = (_number(v) for v in (rate, periods, present, future))
    if periods == 0:
        raise Failed(NUM)
    if rate == 0:
        return -(present + future) / periods
    growth = (1 + rate) ** periods
    payment = -(rate * (future + present * growth)) / (growth - 1)
    return payment / (1 + rate) if _number(due) else payment


def _irr(ev: Evaluator, values: Any, guess: Any = 0.1) -> float:
    """LibreOffice's IRR: Newton's method from the guess, flows discounted from period 0."""
    flows = np.array(_numbers(ev, (values,)))
    periods = np.arange(len(flows), dtype=float)
    rate, step = _number(guess), 1.0
    with np.errstate(all="ignore"):
        for _ in range(IRR_STEPS):
            if step <= IRR_EPSILON:
                break
            value = float(np.sum(flows / (1 + rate) ** periods))
            slope = float(np.sum(-periods * flows / (1 + rate) ** (periods + 1)))
            if slope == 0 or not math.isfinite(value / slope):
                raise Failed(NUM)
            new_rate = rate - value / slope
            step, rate = abs(new_rate - rate), new_rate
    if step > IRR_EPSILON or not math.isfinite(rate):
        raise Failed(NUM)
    return rate


def _sumproduct(ev: Evaluator, *arrays: Any) -> float:
    factors = []
    for array in arrays:
        if isinstance(array, Area):
            array = np.array(
                [v if isinstance(v, int | float) and not isinstance(v, bool) else 0.0
                 for v in ev.area_values(array)],
                dtype=float,
            )
        factors.append(np.asarray(_numeric(array), dtype=float))
    return float(np.sum(np.prod(np.broadcast_arrays(*factors), axis=0)))


def _rank_of(ev: Evaluator, value: Any, area: Area, ascending: Any = 0.0) -> float:
    """RANK: 1 + how many numbers of the area are above (ascending: below) the value."""
    value, numbers = _number(value), _numbers(ev, (area,))
    if value not in numbers:
        raise Failed(NA)
    beaten = [n for n in numbers if (n < value if _number(ascending) else n > value)]
    return float(1 + len(beaten))


def _sqrt(ev: Evaluator, value: Any) -> float:
    value = _number(value)
    if value < 0:
        raise Failed(NUM)
    return math.sqrt(value)


def _mod(ev: Evaluator, a: Any, b: Any) -> float:
    a, b = _number(a), _number(b)
    if b == 0:
        raise Failed(DIV0)
    return a - b * math.floor(a / b)


def _not_empty(numbers: list[float]) -> list[float]:
    return numbers or [0.0]


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "AND": lambda ev, *args: all(_truth(ev.scalar(arg)) for arg in args),
    "OR": lambda ev, *args: any(_truth(ev.scalar(arg)) for arg in args),
    "ISNUMBER": lambda ev, value: isinstance(value, int | float) and not isinstance(value, bool),
    "INT": lambda ev, value: _elementwise(math.floor, value),
    "ABS": lambda ev, value: _elementwise(abs, ev.array_or_value(value)),
    "ROUND": lambda ev, value, digits=0.0: _round(_number(value), _number(digits), away=False),
    "ROUNDUP": lambda ev, value, digits=0.0: _round(_number(value), _number(digits), away=True),
    "MIN": lambda ev, *args: min(_not_empty(_numbers(ev, args))),
    "MAX": lambda ev, *args: max(_not_empty(_numbers(ev, args))),
    "SUM": lambda ev, *args: float(sum(_numbers(ev, args))),
    "SUMPRODUCT": _sumproduct,
    "COUNT": _count,
    "INDEX": _index,
    "MATCH": _match,
    "ROWS": lambda ev, area: float(area.rows),
    "NPV": _npv,
    "PMT": _pmt,
    "IRR": _irr,
    "SQRT": _sqrt,
    "RANK": _rank_of,
    "MOD": _mod,
    "NA": lambda ev: NA,
}


# ---- the evaluator --------------------------------------------------------------------------


class Evaluator:
    """Values of a book's formulas, each computed once, following names across sheets."""

    def __init__(self, book: Book) -> None:
        self.book = book
        self.sheets = {sheet.title: sheet for sheet in book.worksheets}
        self.areas: dict[str, Area] = {}
        self.computed: dict[tuple[str, int, int], Any] = {}
        self.parsed: dict[str, Node] = {}
        self.row = 0  # row of the formula being evaluated, for its relative references

    def area_of(self, name: str) -> Area:
        area = self.areas.get(name)
        if area is None:
            match = _REFERENCE.match(self.book.defined_names[name])
            title = (match.group(1) or "").replace("''", "'") or match.group(2)
            first, _, last = match.group(3).partition(":")
            (r1, c1), (r2, c2) = coordinate(first), coordinate(last or first)
            area = self.areas[name] = Area(self.sheets[title], r1, c1, r2, c2)
        return area

    def name(self, name: str) -> Any:
        """A name's value: a single cell's value, or the area of a range."""
        area = self.area_of(name)
        if area.rows == area.columns == 1:
            return self.value(area.sheet, area.first_row, area.first_column)
        return area

    def value(self, sheet: Sheet, row: int, column: int) -> Any:
        cell = sheet.cells.get((row, column))
        if cell is None:
            return None
        if cell.formula is None:
            return float(cell.value) if isinstance(cell.value, int) and not isinstance(cell.value, bool) \
                else cell.value
        key = (sheet.title, row, column)
        if key not in self.computed:
            self.computed[key] = self.evaluate(sheet, cell)
        return self.computed[key]

    def area_values(self, area: Area) -> list[Any]:
        return [
            self.value(area.sheet, row, column)
            for row in range(area.first_row, area.last_row + 1)
            for column in range(area.first_column, area.last_column + 1)
        ]

    def array_or_value(self, value: Any) -> Any:
        """An area in arithmetic or a comparison: its values as an array (one cell: its value)."""
        if not isinstance(value, Area):
            return value
        values = self.area_values(value)
        if len(values) == 1:
            return values[0]
        return np.array([_number(v) if not isinstance(v, str) else math.nan for v in values], dtype=float)

    def scalar(self, value: Any) -> Any:
        value = self.array_or_value(value)
        if isinstance(value, np.ndarray):
            raise Failed(VALUE)
        return value

    def evaluate(self, sheet: Sheet, cell: Cell) -> Any:
        form = relative_form(cell.formula, cell.row)
        node = self.parsed.get(form)
        if node is None:
            node = self.parsed[form] = Parser(form).parse()
        outer, self.row = self.row, cell.row
        try:
            value = self.scalar(node(self, sheet))
        except Failed as failure:
            return failure.error
        finally:
            self.row = outer
        if value is None:
            return 0.0
        return float(value) if isinstance(value, np.floating) else value


def compute(book: Book) -> None:
    """Put every formula's value in its cell's ``value`` (an error as its code, '#N/A')."""
    evaluator = Evaluator(book)
    for sheet in book.worksheets:
        for (row, column), cell in sorted(sheet.cells.items()):
            if cell.formula is not None:
                value = evaluator.value(sheet, row, column)
                cell.value = value.code if isinstance(value, XlError) else value
