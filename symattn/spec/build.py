"""From an expression tree to engine Tensors: the only interpreter of spec expressions.

Values are Tensors, exact numbers (``Fraction``: arithmetic on plain numbers stays exact
and small), label strings, and lists (for literal matrices and flags).
"""

from __future__ import annotations

import math
import weakref
from fractions import Fraction

from . import expr as E
from .functions import call, check_entries
from ..errors import SpecError, LimitError, DomainError
from .. import numbers
from ..numbers import shown, check_bits
from ..ops import primitives as P
from ..tensor import Tensor, NEG_INF, walk


_CHECKED: "weakref.WeakSet[Tensor]" = weakref.WeakSet()   # nodes within the size limits


def build(node, env: dict):
    """Interpret ``node`` with names from ``env`` (name -> Tensor or number).

    Every matrix of the resulting computation, the intermediate ones of an operation
    included, is checked against ``symattn.ops.primitives.MAX_ENTRIES`` before anything
    is evaluated.
    """
    v = _build(node, env)
    if isinstance(v, Tensor):
        _check_sizes(v)
    return v


def _check_sizes(root: Tensor) -> None:
    seen = list(walk(root, prune=_CHECKED.__contains__))
    for t in seen:
        check_entries(*t.shape)
    _CHECKED.update(seen)


def as_tensor(v) -> Tensor:
    if isinstance(v, Tensor):
        return v
    if isinstance(v, Fraction) or v is NEG_INF:
        return P.scalar(v)
    if isinstance(v, list):
        return _matrix(v)
    if isinstance(v, str):
        raise SpecError(f"the label \"{shown(v)}\" is not a number")
    raise SpecError(f"{shown(repr(v))} is not a matrix")


class _NotNumbers(Exception):
    pass


def _literal(v):
    out = []
    for x in v:
        if isinstance(x, list):
            out.append(_literal(x))
        elif isinstance(x, Fraction) or x is NEG_INF:
            out.append(x)
        elif isinstance(x, Tensor) and x.op == "const" and x.shape == (1, 1):
            out.append(x.params["entries"][0][0])
        else:
            raise _NotNumbers
    return out


def _matrix(v: list) -> Tensor:
    """A literal matrix: of numbers a constant; with expressions (``[[cos(t), -sin(t)],
    [sin(t), cos(t)]]``) each entry a 1×1 value, the rows side by side, one above the other."""
    try:
        return P.const(_literal(v))
    except _NotNumbers:
        pass
    rows = v if v and all(isinstance(r, list) for r in v) else [v]
    out = []
    for r in rows:
        if not isinstance(r, list) or not r:
            raise SpecError("a literal matrix is a list of rows of the same length")
        cells = []
        for x in r:
            if isinstance(x, list):
                raise SpecError("a literal matrix has rows of entries, not deeper lists")
            t = as_tensor(x)
            if t.shape != (1, 1):
                raise SpecError(f"an entry of a literal matrix is one number, not a "
                                f"{t.shape[0]}×{t.shape[1]} matrix",
                                hint="index it (x[0, 1]) or build the matrix with concat/stack")
            cells.append(t)
        out.append(P.hcat(cells))
    if len({r.shape[1] for r in out}) != 1:
        raise SpecError("the rows of a literal matrix differ in length")
    return out[0] if len(out) == 1 else P.vcat(out)


def _build(node, env):
    if isinstance(node, E.Num):
        return node.value
    if isinstance(node, E.Str):
        return node.value
    if isinstance(node, E.Name):
        if node.id in env:
            return env[node.id]
        if node.id == "inf":
            raise SpecError("+∞ has no use in a spec",
                            hint="write -inf for a mask entry, or use causal_mask/padding_mask")
        from ..suggest import with_suggestion
        raise SpecError(f"unknown name '{shown(node.id)}'",
                        hint=with_suggestion(_known(env), node.id, [k for k in env if not k.startswith("_")]))
    if isinstance(node, E.ListLit):
        return [_build(i, env) for i in node.items]
    if isinstance(node, E.Neg):
        if node.operand == E.Name("inf") and "inf" not in env:
            return NEG_INF                       # -inf: the mask value
        v = _build(node.operand, env)
        return -v if isinstance(v, Fraction) else -as_tensor(v)
    if isinstance(node, E.Transpose):
        return as_tensor(_build(node.operand, env)).T
    if isinstance(node, E.BinOp):
        return _binop(node.op, _build(node.left, env), _build(node.right, env))
    if isinstance(node, E.Call):
        args = [_build(a, env) for a in node.args]
        kwargs = {k: _build(v, env) for k, v in node.kwargs}
        return call(node.name, args, kwargs)
    if isinstance(node, E.Index):
        t = as_tensor(_build(node.target, env))
        keys = tuple(slice(None) if k is E.ALL else _slice(k, env) if isinstance(k, E.Slice)
                     else _key(_build(k, env)) for k in node.keys)
        return t[keys[0]] if len(keys) == 1 else t[keys]
    raise SpecError(f"cannot interpret {type(node).__name__}")


def _slice(k: E.Slice, env) -> slice:
    def bound(b):
        if b is None:
            return None
        v = _build(b, env)
        if isinstance(v, Fraction) and v.denominator == 1:
            return int(v)
        raise SpecError(f"a slice runs between whole numbers, not {shown(repr(v))}")
    return slice(bound(k.start), bound(k.stop))


def _key(v):
    if isinstance(v, str):
        return v
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
    raise SpecError(f"an index is a label or a whole number, not {shown(repr(v))}")


def _binop(op, a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        if op == "+": return _sized(a + b)
        if op == "-": return _sized(a - b)
        if op == "*": return _sized(a * b)
        if op == "/":
            if b == 0:
                raise SpecError("division by zero")
            return _sized(a / b)
        if op == "**":
            return _power(a, b)
    if isinstance(a, str) or isinstance(b, str):
        raise SpecError(f"'{op}' between a label and a number")
    if op == "**":
        if isinstance(b, Fraction) or (isinstance(b, Tensor) and b.op == "const" and b.shape == (1, 1)):
            return P.power(as_tensor(a), b)
        return _tensor_power(as_tensor(a), as_tensor(b))
    ta, tb = as_tensor(a), as_tensor(b)
    return {"+": P.add, "-": P.sub, "*": P.mul, "/": P.div, "@": P.matmul}[op](ta, tb)


def _tensor_power(a: Tensor, b: Tensor) -> Tensor:
    """``a ** b`` entry by entry with a matrix exponent (``base ** (-2*i/d)``): each exponent
    an exact rational (computed exactly), a 1×1 side broadcast to the other's shape."""
    shape = b.shape if a.shape == (1, 1) else a.shape
    if b.shape not in ((1, 1), shape):
        raise SpecError(f"** between a {a.shape[0]}×{a.shape[1]} and a {b.shape[0]}×{b.shape[1]} "
                        "matrix: the shapes must agree (or one side be a single number)")
    P.check_entries(*shape)
    ks = b.exact()
    if not all(k.is_Rational for k in ks):
        raise SpecError("** with a matrix exponent needs exponents that are exact rational numbers",
                        hint="the exponent here has irrational entries; write exp(b * log(a))")

    def entry(t, i, j):
        return P.take(t, [0 if t.shape[0] == 1 else i], [0 if t.shape[1] == 1 else j])
    rows = []
    for i in range(shape[0]):
        cells = []
        for j in range(shape[1]):
            k = ks[0 if b.shape[0] == 1 else i, 0 if b.shape[1] == 1 else j]
            cells.append(P.power(entry(a, i, j), Fraction(int(k.p), int(k.q))))
        rows.append(P.hcat(cells))
    out = rows[0] if len(rows) == 1 else P.vcat(rows)
    return out.named(None, b.rows if b.shape == shape else a.rows, b.cols if b.shape == shape else a.cols)


def _bits(a: Fraction) -> int:
    return max(abs(a.numerator).bit_length(), a.denominator.bit_length())


def _sized(a: Fraction) -> Fraction:
    check_bits(a.numerator, a.denominator)
    return a


def _paren(q: Fraction) -> str:
    return shown(q) if q.denominator == 1 and q >= 0 else f"({shown(q)})"


def _power(a: Fraction, b: Fraction):
    if a == 0 and b < 0:
        raise SpecError("0 to a negative power")
    if a < 0 and b.denominator != 1:
        raise DomainError(f"{a} to the power {b}: a negative number to a fractional power "
                          "is not a real number")
    bits = math.ceil(max(_bits(a), 1) * abs(b))       # the size of the integer part of a**b
    if bits > numbers.MAX_NUMBER_BITS:
        raise LimitError(f"{_paren(a)}**{_paren(b)} would have about {bits} bits, more than "
                         f"{numbers.MAX_NUMBER_BITS}", hint="raise symattn.numbers.MAX_NUMBER_BITS on purpose")
    if b.denominator != 1:
        return P.power(P.scalar(a), b)
    return a ** int(b)


def _known(env) -> str:
    names = [k for k in env if not k.startswith("_")]
    return "known names: " + shown(", ".join(names[:30]) + (" ..." if len(names) > 30 else ""), 200)
