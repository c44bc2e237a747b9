"""Mistakes in the computation: a step's expression rewritten the way authors get it wrong.

Each mistake is a variant of one node of a step's tree. A call of a declared operation
(``weights``, ``attention``, ``layer_norm``, ``positional_encoding`` …) gets the mistakes
its declaration lists (:attr:`symattn.ops.operation.Operation.mistakes`, beside the
operation); here are those of the same math written out by hand (``exp(S) / sum(exp(S))``,
``x / sqrt(var(x) + eps)``, a mask added, a weight transposed), named by the role of what
they change (:mod:`symattn.claims.roles`); a step used by name may be skipped (its numerator
in its place), which leaves a correct print of that step standing.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Callable, Iterator

from ..roles import sqrt_mistakes, divided_by_sqrt, is_statistic, norm_name, _calls
from ...ops import OPERATIONS
from ...ops.masks import is_mask
from ...spec import expr as E

ONE, ZERO = E.Num(Fraction(1)), E.Num(Fraction(0))


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


def _is_eps(node) -> bool:
    if isinstance(node, E.Name):
        return "eps" in node.id.lower()
    return isinstance(node, E.Num) and 0 < node.value < Fraction(1, 100)


def _hand_variance(node: E.Call) -> list:
    """mean((x − mean(x))²) written by hand: the sample variance Σ/(d−1) instead."""
    sq = node.args[0]
    if not (isinstance(sq, E.BinOp) and sq.op == "**" and isinstance(sq.left, E.BinOp)
            and sq.left.op == "-" and sq.right == E.Num(Fraction(2))):
        return []
    d = E.Call("width", (sq,), ())
    return [("unbiased variance (÷(d−1)) instead of the biased one (÷d)",
             E.BinOp("/", E.Call("sum", (sq,), ()), E.BinOp("-", d, ONE)))]


def _skipped(node: E.Name, spec) -> list:
    """A step of a division by a root used by name, skipped: its numerator in its place
    (``softmax(s)`` for ``softmax(scaled)``). The skipped step itself is unchanged, so a
    correct print of it does not refute the mistake."""
    tree = spec.step(node.id).tree
    if divided_by_sqrt(tree, spec) is None:
        return []
    left = divided_by_sqrt(tree, spec)[0]
    label = sqrt_mistakes(tree, spec)[0][0]
    return [(f"{label} (step '{node.id}' skipped: {E.unparse(left)} used in its place)", left)]


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
        if isinstance(node, E.BinOp) and node.op == "@" and isinstance(node.right, E.Name):
            w = spec.inputs.get(node.right.id)
            if w is not None and w.shape[0] == w.shape[1] and w.shape[0] > 1:
                out.append((f"{node.right.id} transposed", E.BinOp("@", node.left, E.Transpose(node.right))))
        if isinstance(node, E.Name) and spec.step(node.id) is not None:
            out += _skipped(node, spec)
        op = OPERATIONS.get(node.name) if isinstance(node, E.Call) else None
        if op is not None and op.mistakes is not None:     # declared beside the operation
            out += op.mistakes(node, spec)
        if isinstance(node, E.Call) and node.name == "sqrt" and len(node.args) == 1:
            a = node.args[0]
            if isinstance(a, E.BinOp) and a.op == "+" and _is_eps(a.right):
                norm = norm_name(a.left, spec) if is_statistic(a.left, spec) else None
                out.append((f"{norm} without eps" if norm else "eps left out of the square root",
                            E.Call("sqrt", (a.left,), ())))
                out.append((f"{norm} with eps outside the square root" if norm
                            else "eps added outside the square root",
                            E.BinOp("+", E.Call("sqrt", (a.left,), ()), a.right)))
        return out

    return mutate
