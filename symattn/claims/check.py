"""Verdicts for printed numbers: correct, carried, or wrong (with a diagnosis).

For each printed entry the exact value is rounded, with certainty, at the printed
precision in the example's rounding mode. Not equal: the same step is recomputed from the
article's own printed (rounded) numbers, one level up and then all the way up; equal to
that is ``carried``. Otherwise ``wrong``, and the catalogue of common mistakes
(:mod:`symattn.claims.diagnosis`) says which mistakes reproduce the printed number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .printed import parse_printed, Printed, PrintedNumber
from ..errors import SymattnError, SpecError, ShapeError
from ..evaluation.evaluator import Evaluator
from ..evaluation import rounding as R
from ..ops import primitives as P
from ..spec import expr as E
from ..spec.load import Spec, Claim, build_step
from ..tensor import Tensor, NEG_INF

EXACT_DIGITS = 20


@dataclass
class Record:
    """One printed number and its verdict (one JSON record)."""
    example: str
    source: str
    line: int
    step: str
    at: list
    printed: str
    exact: str
    expected: str
    verdict: str                   # correct | carried | wrong
    diagnosis: list | None = None  # for wrong: the mistakes that reproduce it (None: none)
    carried_from: list | None = None
    tie: bool = False
    spec: str = ""
    spec_line: int = 0
    exact_short: str = ""          # two more decimals than printed, for the terminal
    column: int | None = None      # column of the article line, when found there
    found: bool = False            # found in the article (not written in the spec)

    def to_json(self) -> dict:
        d = {"example": self.example, "source": self.source, "line": self.line,
             "step": self.step, "at": self.at, "printed": self.printed, "exact": self.exact,
             "expected": self.expected, "verdict": self.verdict, "diagnosis": self.diagnosis}
        if self.carried_from:
            d["carried_from"] = self.carried_from
        if self.tie:
            d["tie"] = True
        if self.column is not None:
            d["column"] = self.column
        if self.found:
            d["found"] = True
        return d


@dataclass
class Entry:
    """One printed entry resolved to a cell of a step."""
    claim: Claim
    number: PrintedNumber
    i: int
    j: int
    decimals: int
    mode: str
    siblings: list = field(default_factory=list)   # the other Entries of the same claim row
    k: int = 0                                     # position in the claim's printed entries


def resolve(spec: Spec, claim: Claim) -> list[Entry]:
    """The cells a claim prints, with its printed numbers; raises SpecError if they do not fit."""
    where = spec.where(claim.spec_line)
    t = spec.tensors[claim.step]
    try:
        printed = parse_printed(claim.printed)
        rows, cols = _cells(t, claim.at)
    except SymattnError as e:
        raise SpecError(f"claim on '{claim.step}': {e.message}", where=where, hint=e.hint) from None
    cells = [(i, j) for i in rows for j in cols]
    pm, pn = printed.shape
    shape_ok = (len(rows), len(cols)) == (pm, pn) or (
        (pm == 1 or pn == 1) and (len(rows) == 1 or len(cols) == 1) and len(cells) == pm * pn)
    if not shape_ok:
        raise SpecError(f"claim on '{claim.step}'{_at_text(claim.at)}: printed has {pm}×{pn} "
                        f"entries but the step there is {len(rows)}×{len(cols)}", where=where,
                        hint="check 'at' and the printed text")
    step = spec.step(claim.step)
    default_dec = claim.decimals if claim.decimals is not None else (step.decimals if step else None)
    mode = claim.rounding or spec.rounding
    entries = []
    for k, ((i, j), num) in enumerate(zip(cells, printed.entries)):
        dec = num.decimals if default_dec is None else max(default_dec, num.decimals)
        entries.append(Entry(claim, num, i, j, dec, mode, k=k))
    for e in entries:
        e.siblings = entries
    return entries


def _at_text(at) -> str:
    return "" if at is None else f" at {at!r}"


def _cells(t: Tensor, at):
    m, n = t.shape
    if at is None:
        return list(range(m)), list(range(n))
    if isinstance(at, list):
        r, c = at
        rows = list(range(m)) if r == ":" else [t.row_index(r)]
        cols = list(range(n)) if c == ":" else [t.col_index(c)]
        return rows, cols
    return [t.row_index(at)], list(range(n))


class Checker:
    """Checks every claim of one spec; evaluations are shared across claims."""

    def __init__(self, spec: Spec, diagnose: bool = True):
        self.spec = spec
        self.ev = Evaluator()
        self.diagnose = diagnose
        self.entries = [resolve(spec, c) for c in spec.claims]
        self._printed = self._index_printed()
        self._carried: dict = {}

    def _index_printed(self) -> dict:
        """step -> (i, j) -> [(article line, claim index, value)] of printed numbers."""
        idx: dict = {}
        for es in self.entries:
            for e in es:
                v = e.number.value
                if v is not NEG_INF and e.number.percent:
                    v = v / 100
                idx.setdefault(e.claim.step, {}).setdefault((e.i, e.j), []).append(
                    (e.claim.line, e.claim.index, v))
        return idx

    def run(self) -> list[Record]:
        out = []
        for es in self.entries:
            for e in es:
                out.append(self.verdict(e))
        return out

    # -- one entry -----------------------------------------------------------------
    def verdict(self, e: Entry) -> Record:
        spec, c = self.spec, e.claim
        t = spec.tensors[c.step]
        scale = 100 if e.number.percent else 1
        rec = Record(spec.id, spec.source, c.line, c.step, [t.row_label(e.i), t.col_label(e.j)],
                     e.number.text, "", "", "", spec=spec.path, spec_line=c.spec_line)
        if c.columns:
            rec.column, rec.found = c.columns[e.k], c.found
        try:
            if e.number.value is NEG_INF:
                return self._neg_inf(rec, t, e)
            r = self.ev.rounded(t, e.i, e.j, decimals=e.decimals, mode=e.mode, scale=scale)
            if r is None:
                rec.exact = rec.expected = rec.exact_short = "-inf"
                rec.verdict, rec.diagnosis = "wrong", ["a masked (−∞) score printed as a number"]
                return rec
            rec.expected, rec.tie = str(r), r.tie
            rec.exact = self._exact_text(t, e, scale)
            rec.exact_short = str(self.ev.rounded(t, e.i, e.j, decimals=e.decimals + 2,
                                                  mode="half-even", scale=scale))
            if r.value == e.number.value:
                rec.verdict = "correct"
                return rec
            carried = self._carried_match(e)
            if carried:
                rec.verdict, rec.carried_from = "carried", carried
                return rec
            rec.verdict = "wrong"
            if self.diagnose:
                from .diagnosis import diagnose
                found = diagnose(self, e, r)
                rec.diagnosis = found or None
            return rec
        except SymattnError as err:
            raise err.located(spec.where(c.spec_line)) from None

    def _neg_inf(self, rec, t, e) -> Record:
        v = self.ev.ball(t, 64)[e.i][e.j]
        rec.exact_short = rec.exact = "-inf" if v is NEG_INF else "finite"
        rec.expected = "-inf" if v is NEG_INF else rec.exact
        rec.verdict = "correct" if v is NEG_INF else "wrong"
        if v is not NEG_INF:
            r = self.ev.rounded(t, e.i, e.j, digits=EXACT_DIGITS, mode="half-even")
            rec.exact = rec.expected = rec.exact_short = str(r)
        return rec

    def _exact_text(self, t, e, scale) -> str:
        r = self.ev.rounded(t, e.i, e.j, digits=EXACT_DIGITS, mode="half-even", scale=scale)
        return "-inf" if r is None else str(r)

    def rounds_to_printed(self, t: Tensor, e: Entry, mode: str | None = None) -> bool:
        """Does entry (e.i, e.j) of ``t`` round to the printed number?"""
        scale = 100 if e.number.percent else 1
        r = self.ev.rounded(t, e.i, e.j, decimals=e.decimals, mode=mode or e.mode, scale=scale)
        return r is not None and r.value == e.number.value

    # -- carried -------------------------------------------------------------------
    def _carried_match(self, e: Entry) -> list | None:
        for deep in (False, True):
            t, used = self.carried(e.claim.step, e.claim.line, deep)
            if used and self.rounds_to_printed(t, e):
                return used
        return None

    def carried(self, name: str, line: int, deep: bool) -> tuple[Tensor, list]:
        """Step ``name`` recomputed from the printed numbers of the steps it uses (as
        printed up to article line ``line``); ``deep``: those steps carried as well."""
        key = (name, line, deep)
        if key in self._carried:
            return self._carried[key]
        step = self.spec.step(name)
        if step is None:                             # an input: stipulated, nothing to carry
            res = (self.spec.tensors[name], [])
            self._carried[key] = res
            return res
        env = dict(self.spec.tensors)
        used: list = []
        for ref in sorted(E.names(step.tree)):
            if self.spec.step(ref) is None:
                continue
            base, sub = self.carried(ref, line, True) if deep else (self.spec.tensors[ref], [])
            cells, lines = self.printed_cells(ref, line)
            if cells:
                env[ref] = P.patch(base, cells)
                used.append(f"{ref} (printed at line{'s' if len(lines) > 1 else ''} "
                            f"{', '.join(str(x) for x in sorted(lines))})")
            elif sub:
                env[ref] = base
            used.extend(u for u in sub if u not in used)
        t = build_step(self.spec, step, env) if used else self.spec.tensors[name]
        res = (t, used)
        self._carried[key] = res
        return res

    def printed_cells(self, name: str, line: int):
        """The latest printed value of each cell of ``name`` up to article line ``line``."""
        cells, lines = [], set()
        for (i, j), prints in self._printed.get(name, {}).items():
            before = [p for p in prints if p[0] <= line]
            if before:
                ln, _, v = max(before, key=lambda p: (p[0], p[1]))
                cells.append((i, j, v))
                lines.add(ln)
        return cells, lines


@dataclass
class Summary:
    examples: int = 0
    claims: int = 0
    correct: int = 0
    carried: int = 0
    wrong: int = 0

    def add(self, r: Record):
        self.claims += 1
        setattr(self, r.verdict, getattr(self, r.verdict) + 1)

    def to_json(self) -> dict:
        return {"examples": self.examples, "claims": self.claims, "correct": self.correct,
                "carried": self.carried, "wrong": self.wrong}


def check_spec(spec: Spec, diagnose: bool = True) -> list[Record]:
    return Checker(spec, diagnose).run()
