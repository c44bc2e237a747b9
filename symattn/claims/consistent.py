"""Rounded inputs: a number that the unrounded inputs behind a printout could give.

An input may be declared a printout (``X = { value = [...], rounded = true }``: each entry
rounded at the decimals it is printed with; or ``decimals = 4``). Each entry ``x`` then
stands for an unknown true value inside its rounding interval, by the claims' one rule
(:func:`~symattn.claims.printed.rounding_interval`): ``|x' − x| ≤ ½`` of the last printed
place (``1.5e3``: ±50; ``truncate``: ``x ≤ x' < x + 10^−d`` away from zero), and a zero
printed with its sign (``-0.0000``) only on its side of 0. A printed number that is not
correct from the inputs as printed is **consistent** when it is *reached*: there is one
point ``x'`` strictly inside every interval at which the exact values round to every
number of its claim (a printed row, or all a printed step shows) at once. Such a point is
searched along the direction in which the value moves toward the printed number, then
for the whole claim by bounded least squares on the float Jacobian (floats only choose the
point), and then proven: the step is recomputed from that point's exact rational inputs
and rounded with ball arithmetic like every other verdict. No point found: the verdict
stays ``wrong`` (with a note when it is not decided).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

from .printed import rounding_interval
from ..errors import SymattnError
from ..ops import primitives as P
from ..spec import expr as E
from ..tensor import NEG_INF

MAX_ENTRIES = 400          # input entries moved at once; more: not searched
INSIDE = Fraction(1023, 1024)   # stay strictly inside the rounding intervals
BISECTIONS = 40
JOINT_STEPS = 4            # linearised steps toward one point that gives a whole printed row
NOT_TOGETHER = ("not decided whether one point of the rounding intervals gives the whole printed "
                "row: each of its numbers is reached alone, no one point found that gives them all")
NOT_SUM_1 = ("reached alone, but not together with the rest of its printed row: a row of weights "
             "sums to exactly 1 and no numbers printing as that row do")


def _interval(num, mode: str) -> tuple[Fraction, Fraction]:
    """Offsets (lo, hi) from an input entry printed as ``num`` of the values that print as
    it (:func:`~symattn.claims.printed.rounding_interval`), kept strictly inside."""
    lo, hi = rounding_interval(num, mode)
    return (lo - num.value) * INSIDE, (hi - num.value) * INSIDE


def _with_inputs(spec, new: dict, target: str):
    from ..spec.load import build_step
    env = dict(spec.tensors)
    env.update(new)
    dirty = set(new)
    for s in spec.steps:
        if E.names(s.tree) & dirty:
            env[s.name] = build_step(spec, s, env)
            dirty.add(s.name)
        if s.name == target:
            break
    return env[target]


def _moved(spec, offsets: dict, t: Fraction = Fraction(1)) -> dict:
    """The rounded inputs moved by t × offsets: name -> const Tensor."""
    out = {}
    for name, cells in offsets.items():
        base = spec.tensors[name]
        rows = [list(r) for r in base.params["entries"]]
        for (i, j), o in cells.items():
            rows[i][j] = rows[i][j] + t * o
        out[name] = P.const(rows, base.rows, base.cols, name=name)
    return out


def _floats_at(spec, offsets, t, step: str):
    """The step in float64 at the moved point (an evaluator of its own: nothing is kept)."""
    from ..evaluation.evaluator import Evaluator
    return Evaluator().float(_with_inputs(spec, _moved(spec, offsets, t), step))


def _float_at(checker, spec, offsets, t, e) -> float:
    return float(_floats_at(spec, offsets, t, e.claim.step)[e.i][e.j]) * e.scale


def reached(checker, e) -> tuple[bool | None, str | None]:
    """Is the printed number reached with the rounded inputs inside their intervals, at one
    point that gives every number the step shows at that article line together? ``(True,
    None)``: proven at such a point (see the module's docstring); ``(False, note)``: proven
    not, the value over all of the intervals (ball arithmetic) misses the printed number's
    rounding interval, or a row of weights cannot sum to 1; ``(None, note)``: neither shown.
    Decided once for everything the step shows at the claim's article line."""
    key = (e.claim.step, e.claim.line)
    memo = checker.reach_memo.get(key)
    if memo is None:
        shown = [x for prints in checker.printed.get(e.claim.step, {}).values() for x in prints
                 if x.claim.line == e.claim.line]
        memo = checker.reach_memo[key] = _reach_claim(checker, shown or [e])
    return memo.get(id(e), (False, None))


def _reach_claim(checker, entries) -> dict:
    spec = checker.spec
    t = spec.tensors[entries[0].claim.step]
    status, points, cells = {}, {}, {}
    for s in entries:
        if s.number.value is NEG_INF:              # a masked score: no interval moves it
            status[id(s)] = "masked" if checker.matches(t, s) else False
            continue
        if checker.matches(t, s):
            status[id(s)] = "correct"
            continue
        cs = _cells_that_matter(checker, s)
        if not cs:
            status[id(s)] = False
        elif sum(len(c) for c in cs.values()) > MAX_ENTRIES:
            status[id(s)] = None
        else:
            points[id(s)] = _point(checker, s, cs)
            status[id(s)] = True if points[id(s)] else (False if _excluded(checker, s, cs) else None)
        for name, c in cs.items():
            cells.setdefault(name, {}).update(c)
    group = [s for s in entries if status[id(s)] in ("correct", True)]
    alone = [s for s in group if status[id(s)] is True]
    out = {id(s): (status[id(s)], None) for s in entries if status[id(s)] in (True, False, None)}
    if len(group) < 2 or not alone:
        return out
    if any(_all_print(checker, group, p) for p in points.values() if p) \
            or _joint(checker, group, cells):
        return out
    proven = _cannot_sum_to_one(checker, group, entries)
    for s in alone:
        out[id(s)] = (False, NOT_SUM_1) if s.i in proven else (None, NOT_TOGETHER)
    return out


def _all_print(checker, group, moved: dict) -> bool:
    """Do all the entries of ``group`` print as printed at the point ``moved`` (certified)?"""
    try:
        v = _with_inputs(checker.spec, moved, group[0].claim.step)
        return all(checker.matches(v, s) for s in group)
    except (SymattnError, ArithmeticError, ValueError):
        return False


def _cannot_sum_to_one(checker, group, shown) -> set:
    """Rows of ``group`` in a step of weights whose printed numbers (``shown``: every column
    printed) cannot sum to 1: the sum of their rounding intervals misses 1."""
    from .roles import is_probability
    step = group[0].claim.step
    n = checker.spec.tensors[step].shape[1]
    if not is_probability(checker.spec, step):
        return set()
    out = set()
    for i in {s.i for s in group}:
        row = [s for s in shown if s.i == i and s.number.value is not NEG_INF]
        if len({s.j for s in row}) != n or len(row) != n:
            continue
        ivs = [_printed_interval(s) for s in row]
        if sum(lo for lo, _ in ivs) / row[0].scale > 1 or sum(hi for _, hi in ivs) / row[0].scale < 1:
            out.add(i)
    return out


def _point(checker, e, cells) -> dict | None:
    """A point (name -> moved input) at which e prints as printed, proven; None if none found."""
    spec = checker.spec
    try:
        target = float(e.number.value)
        f0 = float(checker.ev.float(spec.tensors[e.claim.step])[e.i][e.j]) * e.scale
        toward = 1 if target > f0 else -1
        offsets: dict = {}
        for name, cs in cells.items():
            for (i, j), num in cs.items():
                lo, hi = _interval(num, spec.rounding)
                one = {name: {(i, j): hi if hi else lo}}
                slope = (_float_at(checker, spec, one, Fraction(1), e) - f0) / float(hi or lo)
                if slope * toward > 0 and hi:
                    offsets.setdefault(name, {})[(i, j)] = hi
                elif slope * toward < 0 and lo:
                    offsets.setdefault(name, {})[(i, j)] = lo
        if not offsets:
            return None
        return _search(checker, spec, offsets, e, f0, target)
    except (SymattnError, ArithmeticError, ValueError, OverflowError):
        return None


def _joint(checker, group, cells) -> bool:
    """One point for the whole group: bounded linear least squares on the float Jacobian
    (the floats only choose the point; each candidate is proven like every other verdict)."""
    import numpy as np
    from scipy.optimize import lsq_linear
    spec = checker.spec
    step = group[0].claim.step
    full, group = group, [s for s in group if not s.exact] or group   # exact 0/1: verified only
    flat = [(name, ij, *_interval(num, spec.rounding)) for name, cs in cells.items()
            for ij, num in cs.items()]
    flat = [c for c in flat if c[2] != c[3]]
    try:
        f0 = _floats_at(spec, {}, Fraction(1), step)
        pick = lambda f: np.array([float(f[s.i][s.j]) for s in group])
        y0 = pick(f0)
        cols = []
        for name, ij, lo, hi in flat:
            h = hi or lo
            cols.append((pick(_floats_at(spec, {name: {ij: h}}, Fraction(1), step)) - y0) / float(h))
        J = np.array(cols).T
        ivs = [_printed_interval(s) for s in group]
        centre = np.array([float((lo + hi) / 2) / s.scale for s, (lo, hi) in zip(group, ivs)])
        width = np.array([max(float(hi - lo) / s.scale, 1e-300) for s, (lo, hi) in zip(group, ivs)])
        bounds = (np.array([float(c[2]) for c in flat]), np.array([float(c[3]) for c in flat]))
        if not np.all(np.isfinite(J)) or not np.all(np.isfinite(y0)):
            return False
        delta, y = np.zeros(len(flat)), y0
        for _ in range(JOINT_STEPS):
            res = lsq_linear(J / width[:, None], (centre - y + J @ delta) / width, bounds=bounds)
            delta = np.clip(res.x, *bounds)
            offsets: dict = {}
            for (name, ij, lo, hi), d in zip(flat, delta):
                offsets.setdefault(name, {})[ij] = min(max(Fraction(float(d)).limit_denominator(10 ** 15), lo), hi)
            if _all_print(checker, full, _moved(spec, offsets)):
                return True
            y = pick(_floats_at(spec, offsets, Fraction(1), step))
            if not np.all(np.isfinite(y)):
                return False
        return False
    except (SymattnError, ArithmeticError, ValueError, OverflowError):
        return False


def _excluded(checker, e, cells, prec: int = 128) -> bool:
    """Proven: no point of the intervals gives a value that prints as the printed number.
    The step is evaluated with each rounded entry as a ball covering its whole interval."""
    from ..evaluation.ball import BallContext, precision, fraction_to_arb
    from ..evaluation.base import run
    from ..evaluation.evaluator import ball_bounds
    spec = checker.spec
    boxes, patched = {}, {}
    for name, cs in cells.items():
        entries = spec.tensors[name].params["entries"]
        p = P.patch(spec.tensors[name], [(i, j, entries[i][j]) for (i, j) in cs])
        box = {}
        for (i, j), num in cs.items():
            box[(i, j)] = rounding_interval(num, spec.rounding)
        patched[name], boxes[id(p)] = p, box

    class Box(BallContext):
        def op_patch(self, node, a):
            box = boxes.get(id(node))
            if box is None:
                return super().op_patch(node, a)
            out = [list(r) for r in a]
            for (i, j), (lo, hi) in box.items():
                out[i][j] = fraction_to_arb(lo).union(fraction_to_arb(hi))
            return out
    try:
        t = _with_inputs(spec, patched, e.claim.step)
        with precision(prec):
            x = run(Box(prec), t, {})[e.i][e.j]
            if x is NEG_INF:
                return True
            lo, hi = ball_bounds(x)
    except (SymattnError, ArithmeticError, ValueError):
        return False
    plo, phi = _printed_interval(e)
    return hi * e.scale < plo or lo * e.scale > phi


def _printed_interval(e) -> tuple[Fraction, Fraction]:
    """A closed interval holding every value that prints as the claim's printed number (in
    the printed unit), at the precision the entry claims."""
    if e.exact:
        return e.number.value, e.number.value
    num = dataclasses.replace(e.number, decimals=e.decimals, digits=e.digits)
    return rounding_interval(num, e.mode)


def _search(checker, spec, offsets, e, f0, target) -> dict | None:
    """Bisect t in (0, 1] for f(x0 + t·o) ≈ printed, then prove the point found."""
    f1 = _float_at(checker, spec, offsets, Fraction(1), e)
    if not math.isfinite(f1) or (f1 - target) * (f0 - target) > 0:
        candidates = [Fraction(1)]            # short of the printed value: the corner may still round to it
    else:
        lo, hi = Fraction(0), Fraction(1)
        for _ in range(BISECTIONS):
            mid = (lo + hi) / 2
            fm = _float_at(checker, spec, offsets, mid, e)
            if (fm - target) * (f0 - target) > 0:
                lo = mid
            else:
                hi = mid
            if hi - lo < Fraction(1, 1 << 20):
                break
        candidates = [hi, (lo + hi) / 2, Fraction(1)]
    for t in candidates:
        moved = _moved(spec, offsets, t)
        if checker.matches(_with_inputs(spec, moved, e.claim.step), e):
            return moved
    return None


def _cells_that_matter(checker, e) -> dict:
    """name -> {(i, j): PrintedNumber} of the rounded input entries the claim's entry depends on."""
    from .carried import Dependencies
    from ..evaluation.base import run
    spec = checker.spec
    patched, tags = {}, {}
    for name, decs in spec.rounded.items():
        cells = [(i, j, spec.tensors[name].params["entries"][i][j])
                 for i, r in enumerate(decs) for j, d in enumerate(r) if d is not None]
        if cells:
            p = P.patch(spec.tensors[name], cells)
            patched[name], tags[id(p)] = p, name
    if not patched:
        return {}
    t = _with_inputs(spec, patched, e.claim.step)
    deps = run(Dependencies(), t)[e.i][e.j]
    if deps is NEG_INF:
        return {}
    out: dict = {}
    for k, i, j in deps:
        if k in tags:
            name = tags[k]
            out.setdefault(name, {})[(i, j)] = spec.rounded[name][i][j]
    return out
