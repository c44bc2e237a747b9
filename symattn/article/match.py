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

from .groups import Group, groups_of
from .source import Line
from .tokens import Number, fold
from ..claims.printed import parse_number
from ..evaluation.evaluator import Evaluator
from ..spec.load import Spec, Claim
from ..tensor import NEG_INF

NEAR = Fraction(1, 4)         # a near miss: within a quarter of the value, or 10 last places


@dataclass(frozen=True, order=True)
class Cell:
    name: str                 # the step or input
    i: int
    j: int


@dataclass
class Unmatched:
    line: int
    column: int
    text: str
    nearest: dict | None = None      # {step, at, exact}
    where: str = ""

    def to_json(self) -> dict:
        return {"line": self.line, "column": self.column, "text": self.text,
                "nearest": self.nearest}


@dataclass
class Found:
    """The claims an example makes in an article, and the numbers left unmatched."""
    claims: list = field(default_factory=list)
    unmatched: list = field(default_factory=list)
    inputs: list = field(default_factory=list)        # numbers that print an input
    tentative: set = field(default_factory=set)       # (line, column) kept only if carried
    pending: dict = field(default_factory=dict)       # (line, column) -> Number


class Matcher:
    """Assigns the printed numbers of an article's lines to the entries of one spec."""

    def __init__(self, spec: Spec, ev: Evaluator | None = None):
        self.spec = spec
        self.ev = ev or Evaluator()
        self.order = {n: k for k, n in enumerate(spec.tensors)}
        self._balls: dict = {}
        self.approx = {n: self._approx(t) for n, t in spec.tensors.items()}
        self.hints = {s.name: s.article_line for s in spec.steps if s.article_line}
        self._index = sorted((v, c) for c, v in self._cells())
        self._neg_inf = [Cell(n, i, j) for n, t in spec.tensors.items() if self.approx[n] is not None
                         for i, r in enumerate(self._balls[n]) for j, x in enumerate(r) if x is NEG_INF]

    # -- values -------------------------------------------------------------------
    def _approx(self, t):
        try:
            rows = self.ev.ball(t, 64)
        except Exception:                            # noqa: BLE001 - a step that does not evaluate
            return None
        self._balls[t.name] = rows
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

    def rounds_to(self, n: Number, c: Cell, t=None) -> bool:
        """Certified: entry ``c`` (of ``t``, by default its step) rounded as ``n`` is
        printed equals ``n``."""
        if n.neg_inf:
            return self.ev.ball(self.spec.tensors[c.name] if t is None else t, 64)[c.i][c.j] is NEG_INF
        p = parse_number(n.printed)
        t = self.spec.tensors[c.name] if t is None else t
        scale = 100 if p.percent else 1
        sci = "e" in n.printed.lower()
        if sci:
            digits = len(n.printed.split("e")[0].lstrip("-").replace(".", "").lstrip("0")) or 1
            r = self.ev.rounded(t, c.i, c.j, digits=digits, mode=self.spec.rounding, scale=scale)
        else:                        # a printed integer names an integer, not a rounding
            places = p.decimals if not n.integer else 6
            r = self.ev.rounded(t, c.i, c.j, decimals=places, mode=self.spec.rounding,
                                scale=scale)
        return r is not None and r.value == p.value

    def value(self, n: Number) -> float:
        v = float(n.value)
        return v / 100 if n.printed.endswith("%") else v

    def half_unit(self, n: Number) -> float:
        p = parse_number(n.printed)
        if "e" in n.printed.lower():
            return 0.5 * 10 ** (math.floor(math.log10(abs(self.value(n)) or 1)) - 6)
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

    def correct(self, n: Number) -> list[Cell]:
        return [c for c in self.candidates(n, 1.5) if self.rounds_to(n, c)]

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

    # -- context ------------------------------------------------------------------
    def context_score(self, n: Number, c: Cell, text: str) -> int:
        """How strongly the words before ``n`` on its line name cell ``c``."""
        t = self.spec.tensors[c.name]
        before = fold(text[:n.start])[-80:]
        score = 0
        if _names(before, c.name):
            score += 3
        for lab in (t.row_label(c.i), t.col_label(c.j)):
            if lab and not lab.isdigit() and lab in before:
                score += 1
        return score

    def line_score(self, n: Number, name: str) -> int:
        hint = self.hints.get(name)
        if hint is None:
            return -10_000
        return -(n.line - hint) if hint <= n.line else -5 * (hint - n.line)


def _names(text: str, name: str) -> bool:
    """Is step or input ``name`` written in ``text`` (as ``Q``, ``Q_{…}``, ``W_Q``)?"""
    import re
    base = name.split("_")[0]
    pat = re.escape(name) if len(name) > 1 else re.escape(base)
    return re.search(r"(?<![A-Za-z])" + pat + r"(?![A-Za-z])", text) is not None


def find_claims(spec: Spec, lines: list[Line]) -> Found:
    """The claims ``spec``'s example makes in ``lines`` (an article, read by a reader)."""
    from .assign import assign
    inside = [ln for ln in lines if _in_range(spec, ln.number)]
    return assign(Matcher(spec), groups_of(inside), {ln.number: ln for ln in inside})


def _in_range(spec: Spec, line: int) -> bool:
    return spec.lines is None or any(a <= line <= b for a, b in spec.lines)
