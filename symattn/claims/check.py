"""Verdicts for printed numbers: correct, carried, consistent, or wrong (with a diagnosis).

For each printed entry the exact value is rounded, with certainty, at the precision as
printed (:func:`precision`). Not equal: the step is recomputed from the article's own
printed numbers that are themselves sound, one level up and then all the way up; equal to
that is ``carried`` (:mod:`symattn.claims.carried`). Reached with inputs declared rounded
printouts somewhere inside their rounding intervals is ``consistent``, tried first
(:mod:`symattn.claims.consistent`). Otherwise ``wrong``: it follows from a wrong printed
number, or the catalogue of common mistakes (:mod:`symattn.claims.diagnosis`) says which
mistakes reproduce it, or nothing does (``None``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .printed import parse_printed, PrintedNumber
from .roles import is_probability
from .. import deadline
from ..errors import SymattnError, SpecError
from ..evaluation.evaluator import Evaluator
from ..evaluation import rounding as R
from ..evaluation.certified import value_of
from ..spec.load import Spec, Claim
from ..tensor import Tensor, NEG_INF

EXACT_DIGITS = 20
VERDICTS = ("correct", "carried", "consistent", "wrong")
FLOAT32 = ("below float32's normal range, where it holds multiples of 2^-149 only: a float32 "
           "program prints this, and the print cannot say more")
UNDECIDED = ("not decided whether the rounded inputs reach it: no point of their rounding "
             "intervals found that gives it, none ruled out")


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
    verdict: str                   # correct | carried | consistent | wrong
    diagnosis: list | None = None  # for wrong: the mistakes that reproduce it (None: none)
    carried_from: list | None = None
    tie: bool = False
    spec: str = ""
    spec_line: int = 0
    exact_short: str = ""          # two more decimals than printed, for the terminal
    column: int | None = None      # column of the article line, when found there
    found: bool = False            # found in the article (not written in the spec)
    used: list | None = None       # carried / follows: the printed cells used {step, at, line}
    root: dict | None = None       # follows from a wrong number: that root {step, at, line, printed}
    follows_from: list | None = None   # the lines of the wrong printed numbers it was computed from
    restates: int | None = None    # found again: the line that printed this wrong number for this entry

    def to_json(self) -> dict:
        d = {"example": self.example, "source": self.source, "line": self.line,
             "step": self.step, "at": self.at, "printed": self.printed, "exact": self.exact,
             "expected": self.expected, "verdict": self.verdict, "diagnosis": self.diagnosis}
        if self.carried_from:
            d["carried_from"] = self.carried_from
        if self.used:
            d["used"] = self.used
        if self.root:
            d["root"] = self.root
        if self.follows_from:
            d["follows_from"] = self.follows_from
        if self.restates:
            d["restates"] = self.restates
        if self.tie:
            d["tie"] = True
        if self.column is not None:
            d["column"] = self.column
        if self.found:
            d["found"] = True
        return d


@dataclass(eq=False)
class Entry:
    """One printed entry resolved to a cell of a step, with the precision it claims:
    ``decimals`` places, or ``digits`` significant digits (scientific notation), or
    exactly its value (``exact``: a weight printed 0 or 1)."""
    claim: Claim
    number: PrintedNumber
    i: int
    j: int
    decimals: int
    mode: str
    siblings: list = field(default_factory=list)   # the other Entries of the same claim row
    digits: int | None = None
    exact: bool = False
    explicit: bool = False                         # the precision is stated by the spec

    @property
    def scale(self) -> int:
        return 100 if self.number.percent else 1

    @property
    def value(self):
        """The printed value in the step's unit (a percent divided by 100)."""
        v = self.number.value
        return v if v is NEG_INF or not self.number.percent else v / 100


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
    for (i, j), num in zip(cells, printed.entries):
        dec = num.decimals if default_dec is None else max(default_dec, num.decimals)
        digits = num.digits if default_dec is None else None
        entries.append(Entry(claim, num, i, j, dec, mode, digits=digits,
                             explicit=default_dec is not None))
    for e in entries:
        e.siblings = entries
    return entries


def precision(spec: Spec, entries: list[Entry]) -> None:
    """The precision as printed, for entries a spec does not state one for: a whole number
    printed beside numbers with decimals (same step, row and article line) is judged at
    their decimals; a weight or probability printed ``0`` or ``1`` (or a printout's ``0.``,
    ``1.``) claims exactly 0 or 1
    (unless printed after ``≈``). A fraction (``1/3``) always claims exactly its value."""
    places: dict = {}
    for e in entries:
        if e.number.point and e.number.digits is None and e.number.value is not NEG_INF:
            key = (e.claim.step, e.claim.line, e.i)
            places[key] = max(places.get(key, 0), e.decimals)
    prob: dict = {}
    for e in entries:
        if e.explicit or not (e.number.integer or _bare_point(e.number)):
            continue
        e.decimals = max(e.decimals, places.get((e.claim.step, e.claim.line, e.i), 0))
        if e.claim.step not in prob:
            prob[e.claim.step] = is_probability(spec, e.claim.step)
        if prob[e.claim.step] and e.number.value in (0, 1) and not e.number.approximate:
            e.exact = True                     # ≈ [1, 0] says rounded: at its 0 decimals


def _bare_point(number) -> bool:
    """A whole float as torch and NumPy print it (``1.``, ``0.``): the whole number, as
    precise as ``1``."""
    return number.point and number.text.endswith(".") and not number.percent and number.digits is None


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


def certified_sign(ev: Evaluator, t: Tensor, i: int, j: int) -> int | None:
    """The sign of an entry, certified; None when no precision up to 4096 bits tells."""
    prec = 64
    while prec <= 4096:
        x = ev.ball(t, prec)[i][j]
        if x is NEG_INF or x < 0:
            return -1
        if x > 0:
            return 1
        if x.is_zero() or ev.proven_zero(t, i, j, prec):
            return 0
        prec *= 4
    return None


def weight_exactly(ev: Evaluator, t: Tensor, i: int, j: int, c) -> bool:
    """Is entry (i, j) of a row of weights ``c`` (0 or 1), exactly or as every float
    computation gives it? 0: exactly 0, or below the smallest positive double (a weight
    masked by an additive −1e4 … −1e30); 1: the other weights of the row are 0 so."""
    if c == 0:
        return _float_zero(ev, t, i, j)
    x = ev.ball(t, 64)[i][j]
    if x is NEG_INF or not x.contains(int(c)):
        return False
    return all(_float_zero(ev, t, i, k) for k in range(t.shape[1]) if k != j)


def _float_zero(ev: Evaluator, t: Tensor, i: int, j: int) -> bool:
    from flint import arb
    x = ev.ball(t, 64)[i][j]
    if x is not NEG_INF and x.is_finite() and abs(x) < arb(2) ** -1074:
        return True
    return certified_sign(ev, t, i, j) == 0


class Checker:
    """Checks every claim of one spec; evaluations are shared across claims."""

    def __init__(self, spec: Spec, diagnose: bool = True, ev: Evaluator | None = None):
        from .carried import Carrier
        self.spec = spec
        self.ev = ev or Evaluator()
        self.diagnose = diagnose
        self.entries = [resolve(spec, c) for c in spec.claims]
        precision(spec, [e for es in self.entries for e in es])
        self.printed = self._index_printed()
        self.carrier = Carrier(self)
        self._records: dict = {}
        self.reach_memo: dict = {}             # (step, line) -> the entries reached there
        self.last_line = max((c.line for c in spec.claims), default=0)

    def _index_printed(self) -> dict:
        """step -> (i, j) -> [Entry] of the printed numbers of each cell."""
        idx: dict = {}
        for es in self.entries:
            for e in es:
                idx.setdefault(e.claim.step, {}).setdefault((e.i, e.j), []).append(e)
        return idx

    def run(self) -> list[Record]:
        order = {s.name: k for k, s in enumerate(self.spec.steps)}
        flat = [e for es in self.entries for e in es]
        for e in sorted(flat, key=lambda e: (order.get(e.claim.step, -1), e.claim.line)):
            self.verdict(e)                     # the steps a number is carried from come first
        return [self.verdict(e) for e in flat]

    def verdict(self, e: Entry) -> Record:
        rec = self._records.get(id(e))
        if rec is None:
            rec = self._records[id(e)] = self._verdict(e)
        return rec

    # -- one entry -----------------------------------------------------------------
    def _verdict(self, e: Entry) -> Record:
        spec, c = self.spec, e.claim
        deadline.check(spec.where(c.spec_line))
        t = spec.tensors[c.step]
        rec = Record(spec.id, spec.source, c.line, c.step, [t.row_label(e.i), t.col_label(e.j)],
                     e.number.text, "", "", "", spec=spec.path, spec_line=c.spec_line)
        if c.columns:                      # found in the article: where this entry stands
            rec.column, rec.found = c.columns[e.siblings.index(e)], c.found
        try:
            if e.number.value is NEG_INF:
                return self._neg_inf(rec, t, e)
            r = self.expected(t, e)
            if r is None:
                rec.exact = rec.expected = rec.exact_short = "-inf"
                rec.verdict, rec.diagnosis = "wrong", ["a masked (−∞) score printed as a number"]
                return rec
            rec.expected, rec.tie = str(r), r.tie
            rec.exact = self._exact_text(t, e)
            rec.exact_short = str(self.ev.rounded(
                t, e.i, e.j, mode="half-even", scale=e.scale,
                **({"digits": e.digits + 2} if e.digits else {"decimals": e.decimals + 2})))
            if self.matches(t, e):
                rec.verdict = "correct"
                return rec
            if e.exact and value_of(r) == e.number.value:
                rec.expected = rec.exact_short = str(self.ev.rounded(
                    t, e.i, e.j, digits=4, mode=e.mode, scale=e.scale))
            return self._not_correct(rec, e, r)
        except SymattnError as err:
            raise err.located(spec.where(c.spec_line)) from None

    def _not_correct(self, rec: Record, e: Entry, r: R.Rounded) -> Record:
        from .carried import describe
        from .printed import float32_underflow
        if e.claim.found and e.number.value is not NEG_INF and \
                float32_underflow(Fraction(e.value), self.ev.ball(self.spec.tensors[e.claim.step], 128)[e.i][e.j]):
            rec.verdict, rec.diagnosis = "consistent", [FLOAT32]
            return rec
        note = None
        if self.spec_rounded():                  # a machine's printout: before carrying
            from .consistent import reached
            got, note = reached(self, e)
            if got:
                rec.verdict = "consistent"
                return rec
            note = note or (UNDECIDED if got is None else None)
        used = self.carried_match(e, sound=True)
        if used:
            rec.verdict, rec.carried_from = "carried", describe(used, self.spec.tensors)
            rec.used = self._used_json(used)
            return rec
        rec.verdict = "wrong"
        used = self.carried_match(e, sound=False)
        wrong = [u for u in used or [] if self.verdict(u.entry).verdict == "wrong"]
        if wrong:
            self._follows(rec, used, wrong)
        elif self.diagnose:
            from .diagnosis import diagnose
            rec.diagnosis = diagnose(self, e, r) or None
        if note:
            rec.diagnosis = [note] + (rec.diagnosis or [])
        return rec

    def _follows(self, rec: Record, used: list, wrong: list):
        from .carried import describe
        roots = []
        for u in wrong:
            ru = self.verdict(u.entry)
            root = ru.root or {"step": u.step, "at": ru.at, "line": u.line, "printed": ru.printed}
            if root not in roots:
                roots.append(root)
        roots.sort(key=lambda x: x["line"])
        lines = sorted({x["line"] for x in roots})
        rec.root = roots[0]
        rec.follows_from = sorted({u.line for u in wrong})
        rec.used = self._used_json(used)
        rec.carried_from = describe(used, self.spec.tensors)
        rec.diagnosis = [f"follows from the wrong number printed at line {lines[0]}" if len(lines) == 1
                         else "follows from the wrong numbers printed at lines "
                         + ", ".join(map(str, lines))]

    def _used_json(self, used: list) -> list:
        ts = self.spec.tensors
        return [{"step": u.step, "at": [ts[u.step].row_label(u.i), ts[u.step].col_label(u.j)],
                 "line": u.line} for u in used]

    def spec_rounded(self) -> bool:
        return bool(getattr(self.spec, "rounded", None))

    def _neg_inf(self, rec, t, e) -> Record:
        v = self.ev.ball(t, 64)[e.i][e.j]
        rec.exact_short = rec.exact = "-inf" if v is NEG_INF else "finite"
        rec.expected = "-inf" if v is NEG_INF else rec.exact
        rec.verdict = "correct" if v is NEG_INF else "wrong"
        if v is not NEG_INF:
            r = self.ev.rounded(t, e.i, e.j, digits=EXACT_DIGITS, mode="half-even")
            rec.exact = rec.expected = rec.exact_short = str(r)
        return rec

    def _exact_text(self, t, e) -> str:
        r = self.ev.rounded(t, e.i, e.j, digits=EXACT_DIGITS, mode="half-even", scale=e.scale)
        return "-inf" if r is None else str(r)

    # -- the precision as printed ---------------------------------------------------
    def expected(self, t: Tensor, e: Entry, mode: str | None = None) -> R.Rounded | None:
        """Entry (e.i, e.j) of ``t`` rounded as the printed number is (None for −∞)."""
        if e.digits:
            return self.ev.rounded(t, e.i, e.j, digits=e.digits, mode=mode or e.mode, scale=e.scale)
        return self.ev.rounded(t, e.i, e.j, decimals=e.decimals, mode=mode or e.mode, scale=e.scale)

    def matches(self, t: Tensor, e: Entry, mode: str | None = None) -> bool:
        """Does entry (e.i, e.j) of ``t`` print as the printed number (certified)?"""
        if e.number.value is NEG_INF:
            return self.ev.ball(t, 64)[e.i][e.j] is NEG_INF
        if e.exact:
            return self.exactly(t, e.i, e.j, e.value)
        if e.number.fraction:
            return self.ev.equals(t, e.i, e.j, e.value)
        r = self.expected(t, e, mode)
        if r is None or value_of(r) != e.number.value:
            return False
        if e.number.negative and e.number.value == 0:          # -0.0: the sign is printed too
            return self._sign(t, e.i, e.j) != 1
        return True

    rounds_to_printed = matches

    def _sign(self, t: Tensor, i: int, j: int) -> int | None:
        return certified_sign(self.ev, t, i, j)

    def exactly(self, t: Tensor, i: int, j: int, c) -> bool:
        return weight_exactly(self.ev, t, i, j, c)

    # -- carried -------------------------------------------------------------------
    def carried_match(self, e: Entry, sound: bool, mode: str | None = None) -> list | None:
        """The printed cells that, carried forward (one level, then all the way), give the
        printed number; None if none do. The prints up to the claim's line are tried first,
        then every print (a number worked out from a table the article prints later)."""
        later = self.last_line
        lines = (e.claim.line,) if later <= e.claim.line else (e.claim.line, later)
        for line, deep in ((line, deep) for line in lines for deep in (False, True)):
            deadline.check()
            t = self.carrier.tensor(e.claim.step, line, deep, sound)
            if t is self.spec.tensors[e.claim.step]:
                continue
            if self.matches(t, e, mode):
                used = self.carrier.used(t, e.i, e.j)
                if used:
                    return used
        return None


@dataclass
class Summary:
    examples: int = 0
    claims: int = 0
    correct: int = 0
    carried: int = 0
    consistent: int = 0
    wrong: int = 0
    unverified: int = 0            # found in an article, near an entry, no verdict
    restated: int = 0              # wrong numbers printed again for the same entry (one mistake)

    def add(self, r: Record):
        self.claims += 1
        kind = "restated" if r.restates else r.verdict
        setattr(self, kind, getattr(self, kind) + 1)

    def to_json(self) -> dict:
        return {"examples": self.examples, "claims": self.claims, "correct": self.correct,
                "carried": self.carried, "consistent": self.consistent, "wrong": self.wrong,
                "unverified": self.unverified, "restated": self.restated}


def check_spec(spec: Spec, diagnose: bool = True, ev: Evaluator | None = None) -> list[Record]:
    """Every claim of ``spec`` checked (``ev``: an evaluator whose values can be reused)."""
    return Checker(spec, diagnose, ev).run()
