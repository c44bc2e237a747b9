"""The catalogue of common mistakes, tried on a printed number that is wrong.

Two kinds of mistake, single or in bounded pairs:
- in the computation (:mod:`.computation`): a step's expression rewritten (a missing
  1/√d_k, a transposed weight, softmax over columns, a 0 instead of −∞ mask, masking after
  softmax, LayerNorm or a variance with the other divisor, without eps or with eps outside
  the root, a positional encoding base slip or without frequency decay …), the claim's step
  recomputed and rounded at the printed precision;
- in the printing (:mod:`.printing`): another rounding mode, a dropped minus, a digit slip
  or swap, a neighbouring cell, a row of weights adjusted to sum to 1, a stale number.
Pairs: a computation mistake or carried numbers then rounded another way; two computation
mistakes (at most ``MAX_PAIRS`` tried).

A mistake is offered only if it reproduces the printed number exactly (certified) and
leaves every other printed number of the step (up to its line, whatever the layout) and of
the steps it changes (printed before) that is correct as printed: a mistake that would
change a correct number is ruled out. When
nothing reproduces the number the diagnosis is None. Nothing is guessed.
"""

from __future__ import annotations

from fractions import Fraction

from .computation import computation_mistakes, variants
from .printing import printing_mistakes
from ... import deadline
from ...errors import SymattnError
from ...evaluation import rounding as R
from ...spec import expr as E
from ...spec.load import build_step
from ...tensor import NEG_INF

MAX_PAIRS = 64          # two computation mistakes: variant trees rebuilt at most


def _ancestors(spec, name: str) -> list[str]:
    """``name`` and every step it depends on, nearest first."""
    order, seen, stack = [], set(), [name]
    while stack:
        n = stack.pop(0)
        if n in seen or spec.step(n) is None:
            continue
        seen.add(n)
        order.append(n)
        stack.extend(sorted(E.names(spec.step(n).tree)))
    return order


def rebuild(spec, changes: dict, target: str, out: dict | None = None):
    """The target step when the steps in ``changes`` (name -> tree) are rewritten; ``out``
    receives every step that changes with them (name -> tensor)."""
    env = dict(spec.tensors)
    dirty = set(changes)
    for s in spec.steps:
        if s.name in changes:
            env[s.name] = build_step(spec, s, env, changes[s.name])
        elif E.names(s.tree) & dirty:
            env[s.name] = build_step(spec, s, env)
            dirty.add(s.name)
        if out is not None and s.name in dirty:
            out[s.name] = env[s.name]
        if s.name == target:
            return env[s.name]
    return env[target]


def _close(checker, t, e) -> bool:
    """Cheap screen (a 64-bit ball) before the certified comparison at the printed precision."""
    from ...evaluation.evaluator import ball_bounds
    try:
        x = checker.ev.ball(t, 64)[e.i][e.j]
        if x is NEG_INF or not x.is_finite():
            return x is not NEG_INF
        lo, hi = ball_bounds(x)
    except SymattnError:
        return False
    v = e.number.value
    slack = abs(v) / 100 if e.digits else Fraction(1, 10 ** e.decimals)
    return lo * e.scale - slack <= v <= hi * e.scale + slack


class _Row:
    """The other printed numbers that a mistake must leave as printed, those that are
    correct: every print of e's step up to e's line (whatever the layout: a column on one
    line or one row per line) and, for a mistake that changes steps before it, every
    earlier print of those steps (a mistake must reproduce every printed step it changes)."""

    def __init__(self, checker, e):
        self.checker, self.e = checker, e
        self.others = self._correct(e.claim.step)

    def _correct(self, step: str) -> list:
        t = self.checker.spec.tensors[step]
        return [o for prints in self.checker.printed.get(step, {}).values() for o in prints
                if o is not self.e and o.claim.line <= self.e.claim.line
                and o.value is not NEG_INF and self.checker.matches(t, o)]

    def ok(self, t, mode=None, changed: dict | None = None) -> bool:
        if not all(self.checker.matches(t, o, mode) for o in self.others):
            return False
        for step, v in (changed or {}).items():
            if step != self.e.claim.step and not all(
                    self.checker.matches(v, o) or (mode and self.checker.matches(v, o, mode))
                    for o in self._correct(step)):
                return False
        return True


def _mode_text(mode: str, was: str) -> str:
    return "then truncated" if mode == "truncate" else f"then rounded {mode} instead of {was}"


def diagnose(checker, e, expected: R.Rounded) -> list[str]:
    spec = checker.spec
    row = _Row(checker, e)
    found: list[str] = printing_mistakes(checker, e, expected, row.ok)

    def add(label):
        if label not in found:
            found.append(label)

    other_modes = [m for m in R.MODES if m != e.mode]
    for m in other_modes:                                   # carried, then rounded another way
        used = checker.carried_match(e, sound=False, mode=m)
        if used:
            from ..carried import describe
            wrong = [u for u in used if checker.verdict(u.entry).verdict == "wrong"]
            head = (f"follows from the wrong number printed at line {wrong[0].line}" if wrong
                    else "carried from " + "; ".join(describe(used, spec.tensors)))
            add(f"{head}, {_mode_text(m, e.mode)}")
    mutate = computation_mistakes(spec)
    singles = []
    for name in _ancestors(spec, e.claim.step):
        for desc, tree in variants(spec.step(name).tree, mutate):
            deadline.check()
            label = desc if name == e.claim.step else f"{desc} (in step '{name}')"
            singles.append((label, name, tree))
            try:
                changed: dict = {}
                v = rebuild(spec, {name: tree}, e.claim.step, changed)
                if not _close(checker, v, e):
                    continue
                if checker.matches(v, e) and row.ok(v, changed=changed):
                    add(label)
                    continue
                for m in other_modes:
                    if checker.matches(v, e, m) and row.ok(v, m, changed):
                        add(f"{label}, {_mode_text(m, e.mode)}")
            except SymattnError:
                continue
    if not found:
        for label in _pairs(checker, e, singles, mutate, row):
            add(label)
    return found


def _pairs(checker, e, singles, mutate, row):
    """Two computation mistakes at once (in one step or in two), at most MAX_PAIRS tried."""
    spec, tried = checker.spec, 0
    for k, (l1, n1, t1) in enumerate(singles):
        seconds = [(f"{d} (in step '{n1}')" if n1 != e.claim.step else d, n1, t)
                   for d, t in variants(t1, mutate)]
        seconds += [(l2, n2, t2) for l2, n2, t2 in singles[k + 1:] if n2 != n1]
        for l2, n2, t2 in seconds:
            if l2 == l1:
                continue
            tried += 1
            if tried > MAX_PAIRS:
                return
            deadline.check()
            changes = {n1: t2} if n2 == n1 else {n1: t1, n2: t2}
            try:
                changed = {}
                v = rebuild(spec, changes, e.claim.step, changed)
                if _close(checker, v, e) and checker.matches(v, e) and row.ok(v, changed=changed):
                    yield f"{l1} and {l2}"
            except SymattnError:
                continue
