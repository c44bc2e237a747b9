"""Which step entry each printed number prints: the claims an article makes.

A printed number is a claim on the entry of a step whose exact value it prints: it rounds
to it at its printed precision (certified), or it is what the article's own printed
numbers carried forward give, or it is a near miss inside a group (a vector, a matrix
row, a table row) whose other numbers print a row, a column or a block of that step in
order. Among candidates of different values the text decides: the labels and step names
written before the number on its line, the steps' ``line`` hints, the order of the steps.
Numbers that print an input are inputs, not claims. A number no rule assigns with
confidence gets no verdict: it is :class:`Unmatched`, with its nearest candidate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from .mentions import mentions, names_in, positions, words
from .operands import operands, selections, written_numbers
from .tokens import Number, fold, numbers_in
from ..claims.printed import parse_number
from ..errors import SymattnError
from ..evaluation.evaluator import Evaluator
from ..spec.load import Spec
from ..tensor import NEG_INF

NEAR = Fraction(1, 4)         # a near miss: within a quarter of the value, or 10 last places


class Cell(NamedTuple):
    """An entry of a step or an input: ``name[i, j]``."""
    name: str
    i: int
    j: int


@dataclass
class Unmatched:
    line: int
    column: int
    text: str
    nearest: dict | None = None      # {step, at, exact}
    where: str = ""                  # the article's file name
    printed: str = ""                # the number as claims write it
    likely: list = field(default_factory=list)       # the nearest entries, nearest first
    unverified: bool = True          # it may print one of them (else it is no claim)

    def to_json(self) -> dict:
        return {"article": self.where, "line": self.line, "column": self.column,
                "text": self.text, "nearest": self.nearest, "likely": self.likely}


@dataclass
class Found:
    """The claims an example makes in an article, and the numbers left unmatched."""
    claims: list = field(default_factory=list)
    unmatched: list = field(default_factory=list)
    ev: object = None                                 # the evaluator the matcher filled
    inputs: list = field(default_factory=list)        # numbers that print an input
    rows: list = field(default_factory=list)          # tentative rows: sets of (line, column)
    pending: dict = field(default_factory=dict)       # tentative: (line, column) -> Number

    @property
    def tentative(self) -> set:
        """(line, column) of the claims kept only if the checker confirms them."""
        return set(self.pending)


class Matcher:
    """Assigns the printed numbers of an article's lines to the entries of one spec."""

    def __init__(self, spec: Spec, ev: Evaluator | None = None):
        self.spec = spec
        self.ev = ev or Evaluator()
        self.order = {n: k for k, n in enumerate(spec.tensors)}
        self.lines: dict | None = None           # article line number -> Line
        self.last_result: int | None = None      # order of the step of the last result placed
        self._selections = selections(spec)      # inputs, and steps that only select from them
        self._written = written_numbers(spec)    # step of numbers only -> its decimals
        self._operands = operands(spec)          # (line, number) such a step is computed from
        self._balls: dict = {}
        self._bounds: dict = {}                  # name -> [[(lower, upper) as floats]]
        self._rounds: dict = {}
        self._probabilities: dict = {}            # step -> does it hold weights or probabilities
        self._memo: dict = {}
        self._parsed: dict = {}
        self.approx = {n: self._approx(n, t) for n, t in spec.tensors.items()}
        self.hints = {s.name: s.article_line for s in spec.steps if s.article_line}
        self._index = sorted((v, c) for c, v in self._cells())
        self._neg_inf = [Cell(n, i, j) for n, t in spec.tensors.items() if self.approx[n] is not None
                         for i, r in enumerate(self._balls[n]) for j, x in enumerate(r) if x is NEG_INF]

    # -- values -------------------------------------------------------------------
    def _approx(self, name, t):
        try:
            rows = self.ev.ball(t, 64)
        except SymattnError:                         # a step that does not evaluate: no candidates
            return None
        self._balls[name] = rows
        self._bounds[name] = [[None if x is NEG_INF or not x.is_finite()
                               else (float(x.lower()), float(x.upper())) for x in r] for r in rows]
        return [[None if x is NEG_INF or not x.is_finite() else float(x.mid()) for x in r]
                for r in rows]

    def _cells(self):
        for name, rows in self.approx.items():
            if rows is None:
                continue
            for i, r in enumerate(rows):
                for j, v in enumerate(r):
                    if v is not None and math.isfinite(v):
                        yield Cell(name, i, j), v

    def rounds_to(self, n: Number, c: Cell, t=None, loose: bool = False) -> bool:
        """Certified: entry ``c`` (of ``t``, by default its step) rounded as ``n`` is
        printed equals ``n``. A printed integer must be the entry's value to six places,
        unless ``loose`` (in a row or matrix of numbers: rounded to the integer); a ``0`` or
        ``1`` of weights or probabilities claims exactly that value, as the check judges it
        (:func:`symattn.claims.check.weight_exactly`)."""
        if n.integer and n.value in (0, 1) and not n.approximate and self._probability(c.name):
            from ..claims.check import weight_exactly
            return weight_exactly(self.ev, self.spec.tensors[c.name] if t is None else t, c.i, c.j, n.value)
        if n.neg_inf:
            return self.ev.ball(self.spec.tensors[c.name] if t is None else t, 64)[c.i][c.j] is NEG_INF
        if t is None:
            key = (id(n), c, loose)
            if key not in self._rounds:
                x = self.approx[c.name][c.i][c.j]     # far away: no certified rounding needed
                far = x is None or abs(x - self.value(n)) > 3 * self.half_unit(n) + 1e-9 * (1 + abs(x))
                sure = None if far else self._inside(n, c, loose)
                self._rounds[key] = False if far else sure if sure is not None else \
                    self._rounds_to(n, c, self.spec.tensors[c.name], loose)
            return self._rounds[key]
        return self._rounds_to(n, c, t, loose)

    def _probability(self, name: str) -> bool:
        if name not in self._probabilities:
            from ..claims.roles import is_probability
            self._probabilities[name] = is_probability(self.spec, name)
        return self._probabilities[name]

    def _inside(self, n: Number, c: Cell, loose: bool) -> bool | None:
        """The 64-bit ball of ``c`` well inside (True) or outside (False) the interval that
        rounds to ``n``; None near its ends (then the certified rounding decides)."""
        b = self._bounds[c.name][c.i][c.j]
        if b is None or "e" in n.printed.lower():
            return None
        h = 0.5e-6 if n.integer and not loose else self.half_unit(n)
        v, margin = self.value(n), 1e-12 * (1 + abs(self.value(n)))
        lo, hi = b
        if lo > v - h + margin and hi < v + h - margin:
            return True
        if hi < v - h - margin or lo > v + h + margin:
            return False
        return None

    def _rounds_to(self, n: Number, c: Cell, t, loose: bool) -> bool:
        p = self._printed(n.printed)
        scale = 100 if p.percent else 1
        sci = "e" in n.printed.lower()
        if sci:
            digits = len(n.printed.split("e")[0].lstrip("-").replace(".", "").lstrip("0")) or 1
            r = self.ev.rounded(t, c.i, c.j, digits=digits, mode=self.spec.rounding, scale=scale)
        else:                        # a printed integer names an integer, not a rounding
            places = p.decimals if not n.integer or loose else 6
            r = self.ev.rounded(t, c.i, c.j, decimals=places, mode=self.spec.rounding,
                                scale=scale)
        return r is not None and r.value == p.value

    def gap(self, n: Number, c: Cell) -> float:
        """|entry − printed value| in floats (inf for −∞ on one side only)."""
        x = self.approx[c.name][c.i][c.j]
        if x is None or n.neg_inf:
            return 0.0 if (x is None) == n.neg_inf else math.inf
        return abs(x - self.value(n))

    def equals(self, n: Number, c: Cell) -> bool:
        """Is the entry the printed value itself (not only rounded to it)? For ranking
        candidates only, never for a verdict."""
        x = self.approx[c.name][c.i][c.j]
        return x is not None and abs(x - self.value(n)) <= 1e-12 * (1 + abs(x))

    def value(self, n: Number) -> float:
        """The printed value as a float in the step's unit (a percent divided by 100)."""
        if n.approx is None:
            v = float(n.value)
            n.approx = v / 100 if n.printed.endswith("%") else v
        return n.approx

    def _printed(self, text: str):
        p = self._parsed.get(text)
        if p is None:
            p = self._parsed[text] = parse_number(text)
        return p

    def half_unit(self, n: Number) -> float:
        """Half a unit of the last printed place, in the step's unit."""
        if n.half is None:
            n.half = self._half_unit(n)
        return n.half

    def _half_unit(self, n: Number) -> float:
        p = self._printed(n.printed)
        if "e" in n.printed.lower():                # significant digits as printed
            digits = len(n.printed.lower().split("e")[0].strip("-").replace(".", "").lstrip("0")) or 1
            return 0.5 * 10.0 ** (math.floor(math.log10(abs(self.value(n)) or 1)) - digits + 1)
        return 0.5 * 10.0 ** -p.decimals / (100 if p.percent else 1)

    def candidates(self, n: Number, slack: float = 1.0) -> list[Cell]:
        """Cells whose value is within ``slack`` half-units of ``n`` (a cheap filter)."""
        import bisect
        if n.neg_inf:
            return list(self._neg_inf)
        v, h = self.value(n), self.half_unit(n) * slack + 1e-12 * (1 + abs(self.value(n)))
        lo = bisect.bisect_left(self._index, (v - h,))
        out = []
        for x, c in self._index[lo:]:
            if x > v + h:
                break
            out.append(c)
        return out

    def shares(self, n: Number, name: str) -> bool:
        """May the words around ``n`` name step ``name`` for it? A percentage names a share: a
        probability or a weight, or the step printed on its line (``≈ 0.1709 (17.09%)``), not
        a norm worked out lines before (``roughly 31% in L2 norm``)."""
        return not n.printed.endswith("%") or self._probability(name) or self.hints.get(name) == n.line

    def correct(self, n: Number, loose: bool = False) -> list[Cell]:
        return [c for c in self.candidates(n, 1.5) if self.rounds_to(n, c, loose=loose)]

    def near(self, n: Number, c: Cell) -> bool:
        x = self.approx[c.name][c.i][c.j]
        if x is None or n.neg_inf:
            return False
        v = self.value(n)
        return abs(x - v) <= max(abs(v) * float(NEAR), 20 * self.half_unit(n))

    def near_miss(self, n: Number, c: Cell) -> bool:
        """A wrong print of entry ``c`` rather than of something else: a number with
        decimals, within 5% or three units of its last place of the entry."""
        x = self.approx[c.name][c.i][c.j]
        if x is None or n.integer or n.neg_inf:
            return False
        v = self.value(n)
        return abs(x - v) <= max(abs(v) * 0.05, 6 * self.half_unit(n))

    def near_print(self, n: Number, c: Cell) -> bool:
        """A wrong print of entry ``c`` inside a block the text places there: within a
        quarter of the printed value or three units of its last place. A whole number
        printed (``1``, a printout's ``1.``) is never near: at no decimals every weight
        would be."""
        if n.integer or n.text.endswith("."):
            return False
        return self.gap(n, c) <= max(abs(self.value(n)) / 4, 3 * self.half_unit(n))

    def near_row(self, n: Number, c: Cell) -> bool:
        """Close enough for a whole row printed wrong to be tried as that step's row (a
        number with decimals, within a quarter of the value or 20 units of its last place);
        the checker decides whether a known mistake reproduces it."""
        return not n.integer and self.gap(n, c) <= max(abs(self.value(n)) * float(NEAR),
                                                       40 * self.half_unit(n))

    # -- context ------------------------------------------------------------------
    def context_score(self, n: Number, c: Cell, text: str) -> int:
        """How strongly the words around ``n`` name cell ``c``: the step's name or its row
        and column labels before it on its line, its table column's header, the lines just
        above a matrix or table."""
        t = self.spec.tensors[c.name]
        score = self._name_score(n, c.name, text)
        for lab in (t.row_label(c.i), t.col_label(c.j)):
            key = (id(n), "label", lab)
            if key not in self._memo:
                self._memo[key] = mentions(self._around(n, text)[0], lab)
            score += self._memo[key]
        return score

    def _name_score(self, n: Number, name: str, text: str) -> int:
        key = (id(n), "name", name)
        if key not in self._memo:
            before, header, above = self._around(n, text)
            self._memo[key] = 3 * names_in(before, name) + 3 * names_in(header, name) + \
                2 * names_in(above, name)
        return self._memo[key]

    def _around(self, n: Number, text: str) -> tuple:
        """The words before ``n`` on its line, its table column's header, and (for a
        number that opens its line) the caption lines above it."""
        key = (id(n), "around")
        if key not in self._memo:
            before = fold(text[:n.start])[-80:]
            header = self.header(n, text)
            bare = not header and not before.strip(" $\\{}[(bmatrix")   # it opens its line
            self._memo[key] = (before, header, self.above(n.line) if bare else "")
        return self._memo[key]

    def header(self, n: Number, text: str) -> str:
        """The header of the table column ``n`` stands in: the first line of the block of
        lines above with as many tabs (or ``|``) as this one."""
        return self.table_place(n, text)[0]

    def table_place(self, n: Number, text: str) -> tuple[str, int | None]:
        """(the header of ``n``'s table column, the 0-based table row ``n``'s line is below
        it), or ("", None) outside a table. The header is the first line of the run of lines
        above with as many tabs (or ``|``) as this one; rules (``|---|``) and blank lines
        are no rows, and a line or two the reader left out (an HTML table's ``</thead>``)
        do not end the run."""
        sep = "\t" if "\t" in text else ("|" if text.count("|") >= 2 else None)
        if sep is None or self.lines is None:
            return "", None
        k, cells = text[:n.start].count(sep), text.count(sep)
        first, rows, gap = None, 0, 0
        for back in range(1, 40):
            ln = self.lines.get(n.line - back)
            if ln is None:
                gap += 1
                if gap > 2:
                    break
                continue
            gap = 0
            if not ln.text.strip() or set(ln.text.strip()) <= set("|-: "):
                continue                             # blank lines, a Markdown rule |---|
            if ln.text.count(sep) != cells:
                break
            if first is not None:
                rows += 1
            first = ln
        if first is None:
            return "", None
        parts = first.text.split(sep)
        return (parts[k] if k < len(parts) else ""), rows

    def above(self, line: int) -> str:
        """The last two lines with words above ``line`` (a matrix's caption)."""
        got = []
        for back in range(1, 6):
            ln = self.lines.get(line - back) if self.lines else None
            if ln is not None and words(ln.text):
                got.append(ln.text)
                if len(got) == 2:
                    break
        return " ".join(got)

    def last_row_named(self, n: Number, c: Cell) -> int:
        """Are ``c``'s row and column the ones whose labels the text named last (this line
        before ``n``, or the 30 lines above)? 0, 1 or 2."""
        t = self.spec.tensors[c.name]
        return (bool(t.rows) and self._named(n.line, n.start, t.rows) == t.rows[c.i]) + \
            (bool(t.cols) and self._named(n.line, n.start, t.cols) == t.cols[c.j])

    def _named(self, line: int, start: int, rows: tuple):
        """The label of ``rows`` the text named last before ``start`` on ``line`` (or on
        the 30 lines above), or None."""
        here = [lab for pos, lab in self._mentions_on(line, rows) if pos < start]
        if here:
            return here[-1]
        for back in range(1, 31):
            got = self._mentions_on(line - back, rows)
            if got:
                return got[-1][1]
        return None

    def _mentions_on(self, line: int, rows: tuple) -> list:
        key = (line, rows)
        if key not in self._memo:
            ln = self.lines.get(line) if self.lines else None
            self._memo[key] = [] if ln is None else sorted(
                (pos, lab) for lab in set(rows) for pos in positions(ln.text, lab))
        return self._memo[key]

    def saw(self, n: Number, c: Cell, result: bool = False):
        """Remember the row the article last printed (the one it is talking about) and, for
        a result (not an operand restated), the order of its step (:attr:`last_result`)."""
        self._last_row = (n.line, self.spec.tensors[c.name].row_label(c.i))
        if result and c.name not in self._selections:
            self.last_result = self.order[c.name]

    def recent_row(self, n: Number, c: Cell) -> bool:
        """Is ``c`` in the row the article printed last, within 40 lines?"""
        last = getattr(self, "_last_row", None)
        return last is not None and 0 <= n.line - last[0] <= 40 and \
            self.spec.tensors[c.name].row_label(c.i) == last[1]

    def writes(self, n: Number, name: str) -> bool:
        """Does ``n``'s line write, before it, the numbers step ``name`` is computed from, a
        step of numbers only (``0.364² = 0.1325`` for the step ``0.364 ** 2``)?"""
        need = self._written.get(name)
        if not need:
            return False
        key = (id(n), "writes")
        if key not in self._memo:
            ln = self.lines.get(n.line) if self.lines else None
            self._memo[key] = set() if ln is None else {x.value for x in numbers_in(ln) if x.end <= n.start}
        return need <= self._memo[key]

    def operand(self, n: Number) -> bool:
        """Is ``n`` a number that a step said to be printed on its line is computed from as
        written (the 1.0 of ``e^{1.0} = 2.718``): that step's operand, no claim?"""
        return (n.line, abs(n.value)) in self._operands

    def here(self, n: Number, name: str) -> bool:
        """Is step ``name`` said (its ``line`` hint) to be printed on ``n``'s line or just
        above it?"""
        hint = self.hints.get(name)
        return hint is not None and 0 <= n.line - hint <= 2

    def line_score(self, n: Number, name: str) -> int:
        hint = self.hints.get(name)
        if hint is None:
            return -10_000
        return -(n.line - hint) if hint <= n.line else -5 * (hint - n.line)
