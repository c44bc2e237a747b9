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
leaves every other printed entry of the same row (this print and earlier ones) that is
correct as printed: a mistake that would change a correct neighbour is ruled out. When
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


def rebuild(spec, changes: dict, target: str):
    """The target step when the steps in ``changes`` (name -> tree) are rewritten."""
    env = dict(spec.tensors)
    dirty = set(changes)
    for s in spec.steps:
        if s.name in changes:
            env[s.name] = build_step(spec, s, env, changes[s.name])
        elif E.names(s.tree) & dirty:
            env[s.name] = build_step(spec, s, env)
            dirty.add(s.name)
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
    """The other printed entries that a mistake must leave as printed: those of e's row
    (this print and earlier) and those of its step printed earlier, that are correct."""

    def __init__(self, checker, e):
        self.checker = checker
        t = checker.spec.tensors[e.claim.step]
        line = e.claim.line
        self.others = [o for (i, j), prints in checker.printed.get(e.claim.step, {}).items()
                       for o in prints
                       if o is not e and (o.claim.line < line or (i == e.i and o.claim.line == line))
                       and o.value is not NEG_INF and checker.matches(t, o)]

    def ok(self, t, mode=None) -> bool:
        return all(self.checker.matches(t, o, mode) for o in self.others)


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
                v = rebuild(spec, {name: tree}, e.claim.step)
                if not _close(checker, v, e):
                    continue
                if checker.matches(v, e) and row.ok(v):
                    add(label)
                    continue
                for m in other_modes:
                    if checker.matches(v, e, m) and row.ok(v, m):
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
                v = rebuild(spec, changes, e.claim.step)
                if _close(checker, v, e) and checker.matches(v, e) and row.ok(v):
                    yield f"{l1} and {l2}"
            except SymattnError:
                continue
