"""Mistakes in the computation: a step's expression rewritten the way authors get it wrong.

Each mistake is a variant of one node of a step's tree, named by the role of the operation
it changes (:mod:`symattn.claims.roles`). The engine's operations (``weights``,
``attention``, ``layer_norm``, ``positional_encoding`` …) and the same math written out
by hand (``softmax(S + M)``, ``x / sqrt(var(x) + eps)``) get the same catalogue.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Callable, Iterator

from ..roles import sqrt_mistakes, divided_by_sqrt, is_statistic, _calls
from ...ops import OPERATIONS
from ...spec import expr as E
from ...tensor import NEG_INF

ONE, ZERO = E.Num(Fraction(1)), E.Num(Fraction(0))
ATTENTION_CALLS = ("scores", "weights", "attention")
MASK_CALLS = ("causal_mask", "padding_mask")


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


def _get(call: E.Call, key: str):
    return next((v for k, v in call.kwargs if k == key), None)


def _has_kw(call: E.Call, key: str) -> bool:
    return any(k == key for k, _ in call.kwargs)


BIG_MASK = -10_000           # an additive mask entry at or below this is a mask (−1e4 … −1e30)


def is_mask(node, spec, additive: bool = False) -> bool:
    """A mask of 0 and −∞: a mask call, or an input holding −∞ entries; ``additive``: also an
    input of 0 and large negative entries (PyTorch's masked_fill(−1e9) convention)."""
    if isinstance(node, E.Call) and node.name in MASK_CALLS:
        return True
    if isinstance(node, E.Name):
        t = spec.tensors.get(node.id)
        if t is None or t.op != "const":
            return False
        vals = [v for row in t.params["entries"] for v in row]
        if any(v is NEG_INF for v in vals):
            return True
        return additive and all(isinstance(v, Fraction) and (v == 0 or v <= BIG_MASK) for v in vals) \
            and any(v != 0 for v in vals)
    return False


def _is_eps(node) -> bool:
    if isinstance(node, E.Name):
        return "eps" in node.id.lower()
    return isinstance(node, E.Num) and 0 < node.value < Fraction(1, 100)


def _softmax_mistakes(scores, mask, kwargs, spec) -> list:
    """softmax(scores + mask) done wrong: over columns, masked afterwards, 0 for −∞."""
    z = scores if mask is None else E.BinOp("+", scores, mask)
    out = [("softmax over columns instead of rows", E.Call("softmax", (z,), kwargs + (("axis", ZERO),)))]
    if mask is not None and is_mask(mask, spec):
        out.append(("mask applied after softmax (weights zeroed, not renormalised)",
                    E.BinOp("*", E.Call("softmax", (scores,), kwargs), E.Call("keep_mask", (mask,), ()))))
        if not isinstance(mask, E.Call):
            out.append(("0 instead of −∞ in the mask", E.Call("softmax", (scores,), kwargs)))
    return out


def _attention_mistakes(node: E.Call, spec) -> list:
    out = []
    K = node.args[1] if len(node.args) > 1 else None
    if not _has_kw(node, "scale"):
        out.append(("scaling 1/√d_k missing", _kw(node, "scale", ONE)))
        if K is not None:
            out.append(("scaled by 1/d_k instead of 1/√d_k (1/√d_k applied twice)",
                        _kw(node, "scale", E.BinOp("/", ONE, E.Call("width", (K,), ())))))
    if node.name in ("weights", "attention") and len(node.args) >= 2:
        s_kw = tuple((k, v) for k, v in node.kwargs if k == "scale")
        scores = E.Call("scores", node.args[:2], s_kw)
        mask = _get(node, "mask")
        for desc, w in _softmax_mistakes(scores, mask, (), spec):
            if node.name == "weights":
                out.append((desc, w))
            elif len(node.args) == 3:
                out.append((desc, E.BinOp("@", w, node.args[2])))
    return out


def _variance_mistakes(node: E.Call) -> list:
    ddof = _get(node, "ddof")
    if ddof is None or ddof == ZERO:
        return [("unbiased variance (÷(d−1)) instead of the biased one (÷d)",
                 _kw(node, "ddof", ONE))]
    return [("biased variance (÷d) instead of the unbiased one (÷(d−1))", _kw(node, "ddof", ZERO))]


def _hand_variance(node: E.Call) -> list:
    """mean((x − mean(x))²) written by hand: the sample variance Σ/(d−1) instead."""
    sq = node.args[0]
    if not (isinstance(sq, E.BinOp) and sq.op == "**" and isinstance(sq.left, E.BinOp)
            and sq.left.op == "-" and sq.right == E.Num(Fraction(2))):
        return []
    d = E.Call("width", (sq,), ())
    return [("unbiased variance (÷(d−1)) instead of the biased one (÷d)",
             E.BinOp("/", E.Call("sum", (sq,), ()), E.BinOp("-", d, ONE)))]


def _pe_mistakes(node: E.Call) -> list:
    out = []
    if _get(node, "base") is None:
        out.append(("positional encoding with base 1000 instead of 10000",
                    _kw(node, "base", E.Num(Fraction(1000)))))
        flat = _pe_without_decay(node)
        if flat is not None:
            out.append(("positional encoding without frequency decay (sin(pos), cos(pos) in "
                        "every dimension)", flat))
    if _get(node, "pair") is None:
        out.append(("positional encoding with exponent i/d instead of 2i/d", _kw(node, "pair", E.Str("i"))))
    return out


MAX_PE_ENTRIES = 4096


def _pe_without_decay(node: E.Call):
    """sin(pos) in the even and cos(pos) in the odd dimensions, written out as a tree;
    None unless n and d are plain numbers."""
    if len(node.args) < 2 or not all(isinstance(a, E.Num) and a.value.denominator == 1
                                      and a.value > 0 for a in node.args[:2]):
        return None
    n, d = int(node.args[0].value), int(node.args[1].value)
    if n * d > MAX_PE_ENTRIES:
        return None

    def row(values):
        return E.ListLit(tuple(E.Num(Fraction(v)) for v in values))
    pos = E.ListLit(tuple(row([p] * d) for p in range(n)))
    even = E.ListLit((row([1 - j % 2 for j in range(d)]),))
    odd = E.ListLit((row([j % 2 for j in range(d)]),))
    return E.BinOp("+", E.BinOp("*", E.Call("sin", (pos,), ()), even),
                   E.BinOp("*", E.Call("cos", (pos,), ()), odd))


def computation_mistakes(spec) -> Callable:
    """The mutation function for one spec (it needs the inputs' shapes)."""

    def mutate(node):
        out = []
        if divided_by_sqrt(node, spec) is not None:
            out += sqrt_mistakes(node, spec)
        if isinstance(node, E.BinOp) and node.op == "+" and is_mask(node.right, spec, additive=True) \
                and not isinstance(node.right, E.Call):
            out.append(("0 instead of −∞ in the mask", node.left))
        if isinstance(node, E.Call) and node.name == "sum" and len(node.args) == 1 \
                and "exp" in _calls(node.args[0], spec):          # exp(S) / sum(exp(S)), by hand
            out.append(("softmax over columns instead of rows",
                        E.Transpose(E.Call("sum", (E.Transpose(node.args[0]),), ()))))
        if isinstance(node, E.Call) and node.name == "mean" and len(node.args) == 1:
            out += _hand_variance(node)
        if isinstance(node, E.Call) and node.name in ATTENTION_CALLS:
            out += _attention_mistakes(node, spec)
        if isinstance(node, E.BinOp) and node.op == "@" and isinstance(node.right, E.Name):
            w = spec.inputs.get(node.right.id)
            if w is not None and w.shape[0] == w.shape[1] and w.shape[0] > 1:
                out.append((f"{node.right.id} transposed", E.BinOp("@", node.left, E.Transpose(node.right))))
        if isinstance(node, E.Call) and node.name == "softmax" and not _has_kw(node, "axis") and node.args:
            arg = node.args[0]
            if isinstance(arg, E.BinOp) and arg.op == "+" and is_mask(arg.right, spec):
                out += _softmax_mistakes(arg.left, arg.right, node.kwargs, spec)
            else:
                out += _softmax_mistakes(arg, None, node.kwargs, spec)
        if isinstance(node, E.Call) and node.name in MASK_CALLS and not _has_kw(node, "fill"):
            out.append(("0 instead of −∞ in the mask", _kw(node, "fill", ZERO)))
        op = OPERATIONS.get(node.name) if isinstance(node, E.Call) else None
        if op is not None and op.mistakes is not None:     # declared beside the operation
            out += op.mistakes(node, spec)
        if isinstance(node, E.Call) and node.name == "var":
            out += _variance_mistakes(node)
        if isinstance(node, E.Call) and node.name == "sqrt" and len(node.args) == 1:
            a = node.args[0]
            if isinstance(a, E.BinOp) and a.op == "+" and _is_eps(a.right):
                norm = is_statistic(a.left, spec)
                out.append(("LayerNorm without eps" if norm else "eps left out of the square root",
                            E.Call("sqrt", (a.left,), ())))
                out.append(("LayerNorm with eps outside the square root" if norm
                            else "eps added outside the square root",
                            E.BinOp("+", E.Call("sqrt", (a.left,), ()), a.right)))
        if isinstance(node, E.Call) and node.name == "positional_encoding":
            out += _pe_mistakes(node)
        return out

    return mutate
