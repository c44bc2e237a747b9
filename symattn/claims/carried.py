"""Carrying an article's printed numbers forward: a step recomputed from the printed
(rounded) values of the steps it uses, and exactly which printed cells an entry used.

A printed cell is carried forward only if ``sound`` allows it: with ``sound=True`` only
numbers that are themselves correct, carried or consistent; with ``sound=False`` every
latest print (to find a number that follows from a wrong one). Each cell takes its latest
print up to the claim's article line, so the set used is one state of the article.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..evaluation.base import ListContext, run
from ..ops import primitives as P
from ..spec import expr as E
from ..spec.load import build_step
from ..tensor import Tensor, NEG_INF

_NONE: frozenset = frozenset()


class Dependencies(ListContext):
    """Which patched (printed) cells each entry depends on: scalars are sets of cells, every
    operation unites the sets of its operands. Structural, so no value decides it."""

    name = "dependencies"
    zero = one = _NONE

    def scalar(self, x): return _NONE
    def is_exact_zero(self, x) -> bool: return False
    def s_sign(self, x): return 1
    def s_add(self, x, y): return x | y
    s_sub = s_mul = s_div = s_add
    def s_neg(self, x): return x

    def resolve(self, p):                # every declared function keeps its operand's cells
        return (lambda: _NONE) if p.arity == 0 else self.s_neg

    def s_pow(self, x, k): return x
    def s_max(self, xs): return _NONE.union(*xs)
    s_sum = s_max

    def op_patch(self, node, a):
        out = [list(r) for r in a]
        for i, j, _ in node.params["cells"]:
            out[i][j] = frozenset({(id(node), i, j)})
        return out


@dataclass(frozen=True)
class Used:
    """One printed cell carried forward."""
    step: str
    i: int
    j: int
    line: int
    entry: object          # the claims.check.Entry that printed it


class Carrier:
    """Carried versions of a spec's steps, remembered per (step, line, deep, sound)."""

    def __init__(self, checker):
        self.checker = checker
        self.spec = checker.spec
        self._memo: dict = {}
        self._tags: dict = {}             # id(patch node) -> {(i, j): Used}
        self._deps: dict = {}

    def tensor(self, name: str, line: int, deep: bool, sound: bool) -> Tensor:
        """Step ``name`` with the printed cells of the steps it uses (up to ``line``) in
        place of their exact values; ``deep``: those steps carried the same way."""
        key = (name, line, deep, sound)
        if key in self._memo:
            return self._memo[key]
        spec = self.spec
        step = spec.step(name)
        if step is None:
            return spec.tensors[name]
        env, changed = dict(spec.tensors), False
        for ref in sorted(E.names(step.tree)):
            if spec.step(ref) is None:
                continue
            base = self.tensor(ref, line, True, sound) if deep else spec.tensors[ref]
            cells = self.cells(ref, line, sound)
            if cells:
                p = P.patch(base, [(u.i, u.j, u.entry.value) for u in cells])
                self._tags[id(p)] = ({(u.i, u.j): u for u in cells}, p)
                env[ref], changed = p, True
            elif base is not spec.tensors[ref]:
                env[ref], changed = base, True
        t = build_step(spec, step, env) if changed else spec.tensors[name]
        self._memo[key] = t
        return t

    def cells(self, name: str, line: int, sound: bool) -> list[Used]:
        """The latest print of each printed cell of ``name`` up to article ``line``."""
        out = []
        for (i, j), prints in self.checker.printed.get(name, {}).items():
            before = [e for e in prints if e.claim.line <= line]
            if not before:
                continue
            e = max(before, key=lambda x: (x.claim.line, x.claim.index))
            if sound and self.checker.verdict(e).verdict == "wrong":
                continue
            if self._as_is(name, e):
                continue                       # printed as it is (V = [[2, 1, 1], …]): carries nothing
            out.append(Used(name, i, j, e.claim.line, e))
        return out

    def _as_is(self, name: str, e) -> bool:
        """Does the whole number ``e`` prints equal its cell's exact value?"""
        if not e.number.integer or e.value is NEG_INF:
            return False
        x = self.checker.ev.exact(self.spec.tensors[name])[e.i][e.j]
        return bool(getattr(x, "is_Rational", False)) and x == e.value

    def used(self, t: Tensor, i: int, j: int) -> list[Used]:
        """The printed cells entry (i, j) of a carried tensor depends on."""
        v = run(Dependencies(), t, self._deps)[i][j]
        if v is NEG_INF:
            return []
        out = [self._tags[k][0][(a, b)] for k, a, b in v if k in self._tags]
        return sorted(out, key=lambda u: (u.line, u.step, u.i, u.j))


def describe(used: list[Used], tensors: dict) -> list[str]:
    """One text per step: the cells used and the lines they were printed at."""
    by_step: dict = {}
    for u in used:
        by_step.setdefault(u.step, []).append(u)
    out = []
    for step, us in by_step.items():
        t = tensors[step]
        lines = sorted({u.line for u in us})
        rows = {u.i for u in us}
        if len(rows) == 1 and len(us) == t.shape[1] > 1:
            shown = f"row {t.row_label(us[0].i)}"
        else:
            cells = [f"[{t.row_label(u.i)}, {t.col_label(u.j)}]" for u in us]
            shown = ", ".join(cells) if len(cells) <= 6 else f"{len(cells)} cells"
        s = "s" if len(lines) > 1 else ""
        out.append(f"{step} {shown} (printed at line{s} {', '.join(map(str, lines))})")
    return out
