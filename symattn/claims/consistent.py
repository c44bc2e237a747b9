"""Rounded inputs: a number that the unrounded inputs behind a printout could give.

An input may be declared a printout (``X = { value = [...], rounded = true }``: each entry
rounded at the decimals it is printed with; or ``decimals = 4``). Each entry ``x`` then
stands for an unknown true value inside its rounding interval: ``|x' − x| ≤ ½·10^−d``
(``truncate``: ``x ≤ x' < x + 10^−d`` away from zero). A printed number that is not
correct from the inputs as printed is **consistent** when it is *reached*: there is a
point ``x'`` strictly inside every interval at which the exact value rounds to the printed
number. Such a point is searched along the direction in which the value moves toward the
printed number (floats only choose the point) and then proven: the step is recomputed
from that point's exact rational inputs and rounded with ball arithmetic like every other
verdict. No point found: the verdict stays ``wrong``.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..errors import SymattnError
from ..ops import primitives as P
from ..spec import expr as E
from ..tensor import NEG_INF

MAX_ENTRIES = 400          # input entries moved at once; more: not searched
INSIDE = Fraction(1023, 1024)   # stay strictly inside the rounding intervals
BISECTIONS = 40


def _interval(x: Fraction, d: int, mode: str) -> tuple[Fraction, Fraction]:
    """Offsets (lo, hi) from x of the values that print as x at d decimals, kept inside."""
    u = Fraction(1, 10 ** d)
    if mode == "truncate":
        return (Fraction(0), u * INSIDE) if x >= 0 else (-u * INSIDE, Fraction(0))
    return -u / 2 * INSIDE, u / 2 * INSIDE


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


def _moved(spec, offsets: dict, t: Fraction) -> dict:
    """The rounded inputs moved by t × offsets: name -> const Tensor."""
    out = {}
    for name, cells in offsets.items():
        base = spec.tensors[name]
        rows = [list(r) for r in base.params["entries"]]
        for (i, j), o in cells.items():
            rows[i][j] = rows[i][j] + t * o
        out[name] = P.const(rows, base.rows, base.cols, name=name)
    return out


def _float_at(checker, spec, offsets, t, e) -> float:
    """The entry in float64 at the moved point (an evaluator of its own: nothing is kept)."""
    from ..evaluation.evaluator import Evaluator
    v = _with_inputs(spec, _moved(spec, offsets, t), e.claim.step)
    return float(Evaluator().float(v)[e.i][e.j]) * e.scale


def reached(checker, e) -> bool | None:
    """Is the printed number reached with the rounded inputs inside their intervals? True:
    proven at one point (see the module's docstring); False: proven not, the value over all
    of the intervals (ball arithmetic) misses the printed number's rounding interval; None:
    neither was shown."""
    spec = checker.spec
    cells = _cells_that_matter(checker, e)
    if not cells:
        return False
    if sum(len(c) for c in cells.values()) > MAX_ENTRIES:
        return None
    found = _point(checker, e, cells)
    if found:
        return True
    return False if _excluded(checker, e, cells) else None


def _point(checker, e, cells) -> bool:
    spec = checker.spec
    try:
        target = float(e.number.value)
        f0 = float(checker.ev.float(spec.tensors[e.claim.step])[e.i][e.j]) * e.scale
        toward = 1 if target > f0 else -1
        offsets: dict = {}
        for name, cs in cells.items():
            for (i, j), d in cs.items():
                x = spec.tensors[name].params["entries"][i][j]
                lo, hi = _interval(x, d, spec.rounding)
                one = {name: {(i, j): hi if hi else lo}}
                slope = (_float_at(checker, spec, one, Fraction(1), e) - f0) / float(hi or lo)
                if slope * toward > 0 and hi:
                    offsets.setdefault(name, {})[(i, j)] = hi
                elif slope * toward < 0 and lo:
                    offsets.setdefault(name, {})[(i, j)] = lo
        if not offsets:
            return False
        return _search(checker, spec, offsets, e, f0, target)
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
        for (i, j), d in cs.items():
            lo, hi = _interval(entries[i][j], d, spec.rounding)
            box[(i, j)] = (entries[i][j] + lo / INSIDE, entries[i][j] + hi / INSIDE)
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
    """A closed interval holding every value that prints as the printed number (in the
    printed unit), whatever the rounding mode."""
    from ..evaluation.rounding import floor_log10
    p = e.number.value
    if e.digits:
        u = Fraction(10) ** (floor_log10(p) - e.digits + 1) if p else Fraction(1)
    else:
        u = Fraction(1, 10 ** e.decimals)
    if e.mode != "truncate":
        u = u / 2
    return p - u, p + u


def _search(checker, spec, offsets, e, f0, target) -> bool:
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
        v = _with_inputs(spec, _moved(spec, offsets, t), e.claim.step)
        if checker.matches(v, e):
            return True
    return False


def _cells_that_matter(checker, e) -> dict:
    """name -> {(i, j): decimals} of the rounded input entries the claim's entry depends on."""
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
