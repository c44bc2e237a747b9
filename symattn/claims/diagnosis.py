"""The catalogue of common mistakes, tried on a printed number that is wrong.

Two kinds of mistake:
- in the computation: the spec's steps are rewritten (a missing 1/√d_k, a transposed
  weight, softmax over columns, a 0 instead of −∞ mask, masking after softmax, LayerNorm
  with the unbiased variance, without eps or with eps outside the root, a positional
  encoding base or frequency slip), the claim's step is recomputed and rounded at the
  printed precision;
- in the printing: another rounding mode, a dropped minus sign, a digit slip (one digit
  changed, two adjacent digits swapped), a neighbouring cell's value, a last entry adjusted
  so a printed row of weights sums to exactly 1.

Each mistake that reproduces the printed number exactly (certified) is reported; when
none does the diagnosis is None. Nothing is guessed.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Callable, Iterator

from ..errors import SymattnError
from ..evaluation import rounding as R
from ..spec import expr as E
from ..spec.load import build_step
from ..tensor import NEG_INF

# -- rewriting trees ---------------------------------------------------------------------


def _children(node):
    if isinstance(node, (E.BinOp, E.Neg, E.Transpose, E.Call, E.Index, E.ListLit)):
        return [f.name for f in dataclasses.fields(node)]
    return []


def variants(tree, mutate: Callable) -> Iterator[tuple[str, object]]:
    """Every tree with exactly one node replaced by one of ``mutate(node)``'s alternatives."""
    for desc, alt in mutate(tree):
        yield desc, alt
    for fname in _children(tree):
        val = getattr(tree, fname)
        if isinstance(val, tuple):
            for k, item in enumerate(val):
                if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
                    for desc, alt in variants(item[1], mutate):       # a keyword argument
                        new = val[:k] + ((item[0], alt),) + val[k + 1:]
                        yield desc, dataclasses.replace(tree, **{fname: new})
                elif item is not E.ALL and not isinstance(item, str):
                    for desc, alt in variants(item, mutate):
                        new = val[:k] + (alt,) + val[k + 1:]
                        yield desc, dataclasses.replace(tree, **{fname: new})
        elif val is not None and not isinstance(val, (str, Fraction)):
            for desc, alt in variants(val, mutate):
                yield desc, dataclasses.replace(tree, **{fname: alt})


def _kw(call: E.Call, key: str, value) -> E.Call:
    kwargs = tuple((k, v) for k, v in call.kwargs if k != key) + ((key, value),)
    return dataclasses.replace(call, kwargs=kwargs)


def _has_kw(call: E.Call, key: str) -> bool:
    return any(k == key for k, _ in call.kwargs)


ATTENTION_CALLS = ("scores", "weights", "attention")
ONE, ZERO = E.Num(Fraction(1)), E.Num(Fraction(0))


def computation_mistakes(spec) -> Callable:
    """The mutation function for one spec (it needs the inputs' shapes)."""

    def mutate(node):
        out = []
        if isinstance(node, E.BinOp) and node.op == "/" and isinstance(node.right, E.Call) \
                and node.right.name == "sqrt" and len(node.right.args) == 1:
            out.append(("scaling 1/√d_k missing", node.left))
            out.append(("scaled by 1/d_k instead of 1/√d_k (1/√d_k applied twice)",
                        E.BinOp("/", node.left, node.right.args[0])))
        if isinstance(node, E.Call) and node.name in ATTENTION_CALLS and not _has_kw(node, "scale"):
            K = node.args[1] if len(node.args) > 1 else None
            out.append(("scaling 1/√d_k missing", _kw(node, "scale", ONE)))
            if K is not None:
                out.append(("scaled by 1/d_k instead of 1/√d_k (1/√d_k applied twice)",
                            _kw(node, "scale", E.BinOp("/", ONE, E.Call("width", (K,), ())))))
        if isinstance(node, E.BinOp) and node.op == "@" and isinstance(node.right, E.Name):
            w = spec.inputs.get(node.right.id)
            if w is not None and w.shape[0] == w.shape[1] and w.shape[0] > 1:
                out.append((f"{node.right.id} transposed", E.BinOp("@", node.left, E.Transpose(node.right))))
        if isinstance(node, E.Call) and node.name == "softmax" and not _has_kw(node, "axis"):
            out.append(("softmax over columns instead of rows", _kw(node, "axis", ZERO)))
            arg = node.args[0] if node.args else None
            if isinstance(arg, E.BinOp) and arg.op == "+" and _is_mask(arg.right, spec):
                out.append(("mask applied after softmax (weights zeroed, not renormalised)",
                            E.BinOp("*", E.Call("softmax", (arg.left,), node.kwargs),
                                    E.Call("keep_mask", (arg.right,), ()))))
        if isinstance(node, E.Call) and node.name in ("causal_mask", "padding_mask") \
                and not _has_kw(node, "fill"):
            out.append(("0 instead of −∞ in the mask", _kw(node, "fill", ZERO)))
        if isinstance(node, E.Call) and node.name == "layer_norm":
            out.append(("LayerNorm with the unbiased variance (÷(d−1))",
                        _kw(node, "variance", E.Str("unbiased"))))
            out.append(("LayerNorm without eps", _kw(node, "eps", ZERO)))
            out.append(("LayerNorm with eps outside the square root",
                        _kw(node, "eps_inside", ZERO)))
        if isinstance(node, E.Call) and node.name == "var" and not _has_kw(node, "ddof"):
            out.append(("unbiased variance (÷(d−1)) instead of the biased one (÷d)",
                        _kw(node, "ddof", ONE)))
        if isinstance(node, E.Call) and node.name == "sqrt" and len(node.args) == 1:
            a = node.args[0]
            if isinstance(a, E.BinOp) and a.op == "+" and _is_eps(a.right):
                out.append(("eps left out of the square root", E.Call("sqrt", (a.left,), ())))
                out.append(("eps added outside the square root",
                            E.BinOp("+", E.Call("sqrt", (a.left,), ()), a.right)))
        if isinstance(node, E.Call) and node.name == "positional_encoding":
            out.append(("positional encoding with base 1000 instead of 10000",
                        _kw(node, "base", E.Num(Fraction(1000)))))
            out.append(("positional encoding with exponent i/d instead of 2i/d",
                        _kw(node, "pair", E.Str("i"))))
        return out

    return mutate


def _is_mask(node, spec) -> bool:
    if isinstance(node, E.Call) and node.name in ("causal_mask", "padding_mask"):
        return True
    if isinstance(node, E.Name):
        t = spec.tensors.get(node.id)
        return t is not None and t.op == "const" and any(
            v is NEG_INF for row in t.params["entries"] for v in row)
    return False


def _is_eps(node) -> bool:
    if isinstance(node, E.Name):
        return "eps" in node.id.lower()
    return isinstance(node, E.Num) and 0 < node.value < Fraction(1, 100)


# -- the search ----------------------------------------------------------------------------


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


def _rebuild(spec, changed: str, tree, target: str):
    """The target step when step ``changed`` has the tree ``tree`` (downstream rebuilt)."""
    env = dict(spec.tensors)
    dirty = {changed}
    for s in spec.steps:
        if s.name == changed:
            env[s.name] = build_step(spec, s, env, tree)
        elif E.names(s.tree) & dirty:
            env[s.name] = build_step(spec, s, env)
            dirty.add(s.name)
        if s.name == target:
            return env[s.name]
    return env[target]


def _close(checker, t, e) -> bool:
    """Cheap screen (a 64-bit ball) before the certified comparison at the printed precision."""
    from ..evaluation.evaluator import ball_bounds
    try:
        x = checker.ev.ball(t, 64)[e.i][e.j]
        if x is NEG_INF or not x.is_finite():
            return x is not NEG_INF
        lo, hi = ball_bounds(x)
    except SymattnError:
        return False
    scale = 100 if e.number.percent else 1
    slack = Fraction(1, 10 ** e.decimals)
    return lo * scale - slack <= e.number.value <= hi * scale + slack


def diagnose(checker, e, expected: R.Rounded) -> list[str]:
    spec = checker.spec
    found: list[str] = []
    printed = e.number.value
    # printing mistakes
    t = spec.tensors[e.claim.step]
    for mode in R.MODES:
        if mode != e.mode and checker.rounds_to_printed(t, e, mode):
            found.append(f"rounded with {mode} instead of {e.mode}")
    if printed == -expected.value and printed != 0:
        found.append("minus sign dropped" if printed > 0 else "minus sign added")
    slip = _digit_slip(str(expected), e.number, e.decimals)
    if slip:
        found.append(slip)
    found += _neighbour(checker, e, t)
    found += _sum_to_one(checker, e, t)
    found += _restated(checker, e)
    # computation mistakes
    mutate = computation_mistakes(spec)
    for name in _ancestors(spec, e.claim.step):
        step = spec.step(name)
        for desc, tree in variants(step.tree, mutate):
            try:
                v = _rebuild(spec, name, tree, e.claim.step)
                if _close(checker, v, e) and checker.rounds_to_printed(v, e):
                    label = desc if name == e.claim.step else f"{desc} (in step '{name}')"
                    if label not in found:
                        found.append(label)
            except SymattnError:
                continue
    return found


def _digits_of(x: Fraction, decimals: int) -> str:
    return R.format_units(R.round_units(x, decimals, "half-up"), decimals)


def _digit_slip(expected: str, number, decimals: int) -> str | None:
    got = _digits_of(number.value, decimals) if number.value is not NEG_INF else ""
    a, b = expected.lstrip("-"), got.lstrip("-")
    if len(a) != len(b) or a == b or expected.startswith("-") != got.startswith("-"):
        return None
    diff = [k for k in range(len(a)) if a[k] != b[k]]
    last_place = abs(int(a.replace(".", "")) - int(b.replace(".", ""))) == 1
    if len(diff) == 1 and a[diff[0]].isdigit() and not last_place:
        return f"digit slip: {got} for {expected}"
    if len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]:
        return f"adjacent digits swapped: {got} for {expected}"
    return None


def _neighbour(checker, e, t) -> list[str]:
    out = []
    m, n = t.shape
    for di, dj in ((0, -1), (0, 1), (-1, 0), (1, 0)):
        i, j = e.i + di, e.j + dj
        if 0 <= i < m and 0 <= j < n:
            scale = 100 if e.number.percent else 1
            r = checker.ev.rounded(t, i, j, decimals=e.decimals, mode=e.mode, scale=scale)
            if r is not None and r.value == e.number.value:
                out.append(f"the value of the neighbouring cell [{t.row_label(i)}, {t.col_label(j)}]")
    return out


def _sum_to_one(checker, e, t) -> list[str]:
    """The printed row (this number and the latest printed others of its row) sums to
    exactly 1 while the correctly rounded entries do not: the last one was adjusted."""
    if e.number.value is NEG_INF or e.j != t.shape[1] - 1 or t.shape[1] < 2:
        return []
    unit = 100 if e.number.percent else 1
    others = {}
    for (i, j), prints in checker._printed.get(e.claim.step, {}).items():
        if i == e.i and j != e.j:
            before = [p for p in prints if p[0] <= e.claim.line]
            if before:
                others[j] = max(before, key=lambda p: (p[0], p[1]))[2]
    if len(others) != t.shape[1] - 1 or any(v is NEG_INF for v in others.values()):
        return []
    if sum(others.values(), Fraction(0)) * unit + e.number.value == unit:
        return ["last entry adjusted so the printed row sums to exactly 1"]
    return []


def _restated(checker, e) -> list[str]:
    """The same number was printed for the same cell earlier: this one copies it."""
    earlier = [ln for ln, idx, v in checker._printed.get(e.claim.step, {}).get((e.i, e.j), [])
               if ln < e.claim.line and v == (e.number.value / 100 if e.number.percent else e.number.value)]
    return [f"restates the number printed at line {max(earlier)}"] if earlier else []
