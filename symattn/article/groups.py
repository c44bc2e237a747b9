"""How printed numbers stand together: vectors, matrix rows, table rows, lone numbers.

A :class:`Group` is what an article prints as one thing: ``[0.92, 1.24]`` (one row), a
``bmatrix`` or a torch ``tensor([[…], […]])`` or a table (several rows), or a lone number.
Rows keep the printed order; ``None`` stands where a row has an entry that is not a lone
number (``0.212 + 0 + 0.576``, a label), so positions stay those of the print. A number
inside such an expression, or outside any bracket, is a group of its own with a ``role``:
``result`` (right after ``=``, ``≈``, ``→``), ``factor`` (beside ``×``, ``·``, ``/``),
``operand`` (beside ``+``, ``-``, or in the exponent of e) or ``text``.

>>> from .source import Line
>>> gs = groups_of([Line(1, r"\\begin{bmatrix} 1.0 & 0.2 \\\\"), Line(2, r"0.1 & 0.9 \\end{bmatrix} = 3")])
>>> [[[n.printed for n in r] for r in g.rows] for g in gs]
[[['1.0', '0.2'], ['0.1', '0.9']], [['3']]]
>>> gs[1].role
'result'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .source import Line
from .glued import glued_rows, readings
from .tokens import Number, numbers_in, fold

_MATRIX_ENV = re.compile(r"\\(begin|end)\{([bpvBV]?matrix|smallmatrix|array)\*?\}(\{[^}]*\})?")
_OPEN, _CLOSE = "[(", "])"
_OPS = set("+-×·*/÷=") | {"\\cdot", "\\times", "\\div"}
_RESULT_MARK = re.compile(r"(=|≈|\\approx|≒|→|\\to|\\Rightarrow|：|:)\s*(\\left)?\s*$")
_PRINTOUT = re.compile(r"(?<![\w.])(?:tensor|array)\(\s*$")
_TABLE_SEP = re.compile(r"\s*\|\s*|\s{2,}|\t")


@dataclass
class Group:
    rows: list                          # [[Number | None]]
    role: str = "vector"                # vector | matrix | list | result | factor | operand | text | glued
    numbers: list = field(default_factory=list)
    readings: list | None = None        # glued cells: every way they split, fewest first

    def __post_init__(self):
        self.numbers = [n for r in self.rows for n in r if n is not None]

    @property
    def line(self) -> int:
        return self.numbers[0].line


@dataclass
class _Frame:
    kind: str                           # "[", "(", "env"
    rows: list = field(default_factory=lambda: [[]])
    elem: list = field(default_factory=list)       # numbers of the element being read
    ops: bool = False
    children: list = field(default_factory=list)   # closed child frames, in order
    loose: list = field(default_factory=list)      # numbers in expression elements

    def end_elem(self):
        if self.elem and not self.ops:           # [0.4 0.2]: NumPy separates by spaces
            self.rows[-1].extend(self.elem)
        elif self.elem:
            self.rows[-1].append(None)
            self.loose += self.elem
        self.elem, self.ops = [], False

    def end_row(self):
        self.end_elem()
        self.rows.append([])


def groups_of(lines: list[Line]) -> list[Group]:
    """Every printed number of ``lines`` in exactly one group, in reading order."""
    out: list[Group] = []
    stack: list[_Frame] = []
    table: list = []                    # rows of a table being read, over several lines
    glued = glued_rows(lines)
    for line in lines:
        nums = numbers_in(line)
        if line.number in glued and not stack:
            nums = _glued_row(line, nums, glued[line.number], out)
        if nums and not stack and all(n.cell for n in nums):
            out.append(Group([nums], "vector"))      # 成分11成分22…: one table row
            continue
        row = _table_row(line, nums) if not stack else None
        if row is not None:
            table.append(row[0])
            out.extend(Group([[n]], "text") for n in row[1])
            continue
        _flush_table(table, out)
        _scan(line, nums, stack, out)
    _flush_table(table, out)
    while stack:
        _close(stack, out)
    return out


def _glued_row(line: Line, nums: list, span: tuple, out: list) -> list:
    """A row of a flattened table: its glued cells as one group with every reading; the
    numbers after them as usual (returned)."""
    ways = readings(line, span)
    if ways:
        out.append(Group([ways[0]], "glued", readings=ways))
    return [n for n in nums if n.start >= span[1]]


def _table_row(line: Line, nums: list[Number]) -> list | None:
    """A table row: cells split by ``|`` or wide spaces, two or more lone numbers, no
    operator or bracket between them."""
    s = fold(line.text)
    piped = s.strip().startswith("|") and s.count("|") >= 3    # | cat | 0.4011 |
    if len(nums) < (1 if piped else 2) or any(c in s for c in "[]()=×·+*/÷") or "\\cdot" in s:
        return None
    cells = [c.strip() for c in _TABLE_SEP.split(s.strip().strip("|")) if c.strip()]
    row, labels, k, at = [], [], 0, 0
    for c in cells:
        at = s.find(c, at)
        end = at + len(c)
        inside = [n for n in nums[k:] if n.start < end]
        if len(inside) == 1 and s[inside[0].start:inside[0].end].strip() == c:
            row.append(inside[0])
        else:
            labels += inside                     # a label such as 1番目: not an entry
        k += len(inside)
        at = end
    if len(row) < (1 if piped else 2) or k != len(nums):
        return None
    return row, labels


def _flush_table(table: list, out: list):
    if table:
        width = max(len(r) for r in table)
        rows = [[n for n in r if n is not None] for r in table]
        if width and len({len(r) for r in rows}) == 1:
            out.append(Group(rows, "matrix" if len(rows) > 1 else "vector"))
        else:
            out.extend(Group([r], "vector") for r in rows if r)
        table.clear()


def _scan(line: Line, nums: list[Number], stack: list, out: list):
    s = fold(line.text)
    marks = _marks(s)                            # by position; one pass over them (linear)
    k, pos, i = 0, 0, 0
    while True:
        nxt = nums[k].start if k < len(nums) else len(s)
        while i < len(marks) and marks[i][0] < nxt:
            if marks[i][0] >= pos:
                _event(marks[i][1], stack, out)
            i += 1
        if k >= len(nums):
            break
        n = nums[k]
        n.role = _role(s, n)
        if stack:
            stack[-1].elem.append(n)
        elif _listed(s, out, n):
            out[-1] = Group([out[-1].rows[0] + [n]], "list")
        else:
            out.append(Group([[n]], n.role))
        pos, k = n.end, k + 1
        while i < len(marks) and marks[i][0] < pos:  # marks inside the number
            i += 1


def _listed(s: str, out: list, n: Number) -> bool:
    """Does ``n`` continue a list written in the text, ``1、1、2`` or ``0.2, 0.3, 0.5``, of
    numbers on this line with only commas between them?"""
    if not out or not (out[-1].role == "list" or (
            out[-1].role in ("text", "result") and len(out[-1].numbers) == 1)):
        return False
    prev = out[-1].rows[0][-1]
    if prev is None or prev.line != n.line or prev.end > n.start:
        return False
    gap = s[prev.end:n.start]
    return gap.strip() in (",", "、")


def _marks(s: str) -> list:
    """Structure marks of one line, by position: brackets, separators, row ends, operators."""
    marks = []
    for m in _MATRIX_ENV.finditer(s):
        marks.append((m.start(), "begin" if m.group(1) == "begin" else "end"))
    spans = [(m.start(), m.end()) for m in _MATRIX_ENV.finditer(s)]
    i = 0
    while i < len(s):
        if any(a <= i < b for a, b in spans):
            i += 1
            continue
        c = s[i]
        if s.startswith("\\\\", i):
            marks.append((i, "row"))
            i += 2
            continue
        if s.startswith("\\cdot", i) or s.startswith("\\times", i) or s.startswith("\\div", i):
            marks.append((i, "op"))
        elif c in _OPEN or c in _CLOSE or c in ",;&":
            marks.append((i, c))
        elif c in "+×·*/÷=" or (c == "-" and i > 0 and s[i - 1] in " )]}"
                                 and not any(b == i for _, b in spans)):
            marks.append((i, "op"))
        i += 1
    return sorted(marks)


def _event(what: str, stack: list, out: list):
    if what == "begin":
        stack.append(_Frame("env"))
    elif what in _OPEN:
        stack.append(_Frame(what))
    elif not stack:
        return
    elif what == "end" or what in _CLOSE:
        if (what == "end") == (stack[-1].kind == "env"):
            _close(stack, out)
    elif what in ",;" or (what == "&" and stack[-1].kind == "env"):
        stack[-1].end_elem()
    elif what == "row" and stack[-1].kind == "env":
        stack[-1].end_row()
    elif what == "op":
        stack[-1].ops = True


def _close(stack: list, out: list):
    f = stack.pop()
    f.end_elem()
    rows = [r for r in f.rows if r]
    for n in f.loose:
        out.append(Group([[n]], "factor" if n.role == "factor" else "operand"))
    if f.children and not any(n is not None for r in rows for n in r):
        kids = [c for c in f.children if c.numbers and c.role in ("vector", "matrix")]
        if len(kids) > 1 and all(len(c.rows) == 1 for c in kids) \
                and len({len(c.rows[0]) for c in kids}) == 1:
            for c in kids:
                out.remove(c)
            g = Group([c.rows[0] for c in kids], "matrix")
            _attach(stack, out, g)
        return
    if not any(n is not None for r in rows for n in r):
        return
    g = Group(rows, "matrix" if len(rows) > 1 else "vector")
    if f.kind == "(" and len(g.numbers) == 1 and len(rows[0]) == 1:
        n = g.numbers[0]                         # exp(1), f(0.5): an argument; but
        printout = _PRINTOUT.search(fold(n.line_text[:n.start]))   # tensor(48725.8203): a value
        g.role = "result" if printout else "operand"
    _attach(stack, out, g)


def _attach(stack: list, out: list, g: Group):
    out.append(g)
    if stack:
        stack[-1].children.append(g)


_WINDOW = 200                 # what stands this far around a number decides its role


def _role(s: str, n: Number) -> str:
    before, after = s[max(0, n.start - _WINDOW):n.start].rstrip(), s[n.end:n.end + _WINDOW].lstrip()
    if n.exponent:
        return "operand"
    op_after = bool(after) and (after[0] in "+×·*/÷" or after.startswith(("\\cdot", "\\times", "\\div")))
    if _RESULT_MARK.search(before) and not op_after:
        return "result"
    times = ("×", "·", "*", "/", "÷", "\\cdot", "\\times", "\\div")
    if before.endswith(times) or after.startswith(times):
        return "factor"                     # 1×0: a factor of a product, usually an input
    if (before and before[-1] in "+-") or op_after:
        return "operand"
    return "text"
