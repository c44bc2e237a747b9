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
from .labels import label_text, parse
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
    ordinals: tuple | None = None       # stacked results: the 1-based rows their lines name

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
    prev = None
    for line in lines:
        if stack and prev is not None and (line.number != prev.number + 1 or (
                line.kind == "text" and not line.text.strip())):
            _left_open(stack, out)      # a bracket left open ends with its cell or paragraph
        prev = line
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
    return _row_lines(_stacked(_terms(out)), lines)


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
        elif c in "+×·*/÷=≈≃≒" or (c == "-" and i > 0 and s[i - 1] in " )]}"
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


def _left_open(stack: list, out: list):
    """Empty ``stack`` at a cell's or a paragraph's end: the numbers of brackets never closed
    (``(such as 0.1 or 0.2``) are lone numbers, in order, no row of a block."""
    nums: list = []
    while stack:
        f = stack.pop()
        nums = [n for r in f.rows for n in r if n is not None] + f.loose + f.elem + nums
    out.extend(Group([[n]], n.role) for n in sorted(nums, key=lambda n: (n.line, n.start)))


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


# -- equations stacked on consecutive lines -------------------------------------------------
_ORDINAL = re.compile(r"^\W*?(\d+)\s*[:.)]\s")
_SKELETON = re.compile(r"\d+(?:\.\d*)?(?:e[-+]?\d+)?")
_ENDS_EQUATION = re.compile(r"=\s*[\[(]\s*$")
_COMMENT = re.compile(r"(?<=\S)\s+#\s.*$")                # a trailing comment


def _stacked(out: list) -> list:
    """``out`` with the results of parallel equations on consecutive lines as one block:
    ``1: 0.0 * [1, 2, 3] = [0.0, 0.0, 0.0]`` over ``2: 0.5 * [2, 8, 0] = [1.0, 4.0, 0.0]``
    print rows 1 and 2 of one matrix (the lines read alike but for their numbers, each ends
    with a bracketed result after ``=``, and no name on the left labels it). Ordinals that
    open the lines (``1:``, ``2:`` …) name the rows and print nothing themselves."""
    runs, run = [], []
    for k, g in enumerate(out):
        key = _equation_result(g)
        if key is None:
            continue
        if run and key[1:] == run[-1][1][1:] and key[0] == run[-1][1][0] + 1:
            run.append((k, key))
            continue
        if len(run) > 1:
            runs.append(run)
        run = [(k, key)]
    if len(run) > 1:
        runs.append(run)
    drop, merged = set(), {}
    for run in runs:
        rows = [out[k] for k, _ in run]
        ordinals = tuple(_ordinal(g) for g in rows)
        named = None not in ordinals and list(ordinals) == list(range(ordinals[0], ordinals[0] + len(rows)))
        block = Group([g.rows[0] for g in rows], "matrix", ordinals=ordinals if named else None)
        drop.update(k for k, _ in run[:-1])
        merged[run[-1][0]] = block
        if named:
            lines = {g.line for g in rows}
            drop.update(k for k, g in enumerate(out) if len(g.numbers) == 1 and g.line in lines
                        and _is_ordinal(g.numbers[0]))
    return [merged.get(k, g) for k, g in enumerate(out) if k not in drop]


def _row_lines(out: list, lines: list[Line]) -> list:
    """``out`` with the rows of a matrix printed one a line (``[ 1.0  0.5 ]`` under ``Q =``,
    several matrices side by side) as one block each (:func:`.rows.row_runs` finds
    them), so a wrong entry is a miss of that block rather than a row that fits nowhere."""
    from .rows import row_runs
    runs = row_runs(lines)
    if not runs:
        return out
    at: dict = {}
    for k, g in enumerate(out):
        at.setdefault(g.line, []).append(k) if g.numbers else None
    drop, merged = set(), {}
    for first, run in runs:
        numbers = [lines[first + j].number for j in range(len(run))]
        widths = [len(s[2]) for s in run[0]]
        ks = [at.get(n, []) for n in numbers]
        if any([len(out[k].rows[0]) if len(out[k].rows) == 1 and None not in out[k].rows[0]
                else -1 for k in row] != widths for row in ks):
            continue
        for j in range(len(widths)):
            merged[ks[0][j]] = Group([out[row[j]].rows[0] for row in ks], "matrix")
            drop.update(row[j] for row in ks[1:])
    return [merged.get(k, g) for k, g in enumerate(out) if k not in drop]


def _equation_result(g: Group):
    """(line, skeleton, width) for a one-row bracketed result that ends its line's
    equation, whose left side names nothing (its text, numbers as ``#``); else None."""
    if g.role != "vector" or len(g.rows) != 1 or len(g.numbers) < 2 or None in g.rows[0]:
        return None
    first, last = g.numbers[0], g.numbers[-1]
    text = fold(first.line_text)
    if any(n.line != first.line for n in g.numbers) or not _ENDS_EQUATION.search(text[:first.start]):
        return None
    if re.search(r"[\w=+*/×·]", _COMMENT.sub("", text[last.end:]).strip(" \t])},;")):
        return None                                  # something is computed from it after it
    lhs = label_text(first.line_text, first.start)
    if lhs is not None and parse(lhs) is not None:
        return None                                  # q_1 = […]: its label places it
    skeleton = " ".join(_SKELETON.sub("#", _COMMENT.sub("", text)).split())
    return first.line, skeleton, len(g.numbers)


def _ordinal(g: Group) -> int | None:
    hit = _ORDINAL.match(fold(g.numbers[0].line_text))
    return int(hit.group(1)) if hit else None


def _is_ordinal(n: Number) -> bool:
    hit = _ORDINAL.match(fold(n.line_text))
    return hit is not None and hit.start(1) == n.start


# -- the terms of a sum written out between two = ------------------------------------------
_PLUS = re.compile(r"^(?:\s|\\[,;: ])*\+(?:\s|\\[,;: ])*$")
_EQ_BEFORE = re.compile(r"=(?:\s|\\[,;: ])*$")
_EQ_AFTER = re.compile(r"^(?:\s|\\[,;: ])*=")
MIN_TERMS = 3


def _terms(out: list) -> list:
    """``out`` with the terms of a sum written out between two ``=`` as one row: ``… =
    0.5 + 1 + 1.5 + 2 = 5`` prints four entries (the products summed, a step's entries),
    read together as a block is; three terms or more, lone numbers only, ``+`` alone
    between them."""
    res, k = [], 0
    while k < len(out):
        run = [out[k]]
        while k + len(run) < len(out) and _next_term(run[-1], out[k + len(run)]):
            run.append(out[k + len(run)])
        nums = [g.numbers[0] for g in run]
        if len(run) >= MIN_TERMS and _lone(run[0]) and \
                _EQ_BEFORE.search(fold(nums[0].line_text[:nums[0].start])) and \
                _EQ_AFTER.match(fold(nums[-1].line_text[nums[-1].end:])):
            res.append(Group([nums], "vector"))
            k += len(run)
            continue
        res.append(out[k])
        k += 1
    return res


def _lone(g: Group) -> bool:
    return len(g.rows) == 1 and len(g.rows[0]) == 1 and bool(g.numbers) and not g.readings \
        and g.role != "factor"


def _next_term(a: Group, b: Group) -> bool:
    if not (_lone(a) and _lone(b)):
        return False
    x, y = a.numbers[0], b.numbers[0]
    return x.line == y.line and x.end <= y.start and bool(_PLUS.match(fold(x.line_text[x.end:y.start])))
