"""Argument converters: a value of the spec language to the argument an operation takes.

A spec expression produces Tensors, exact numbers (``Fraction``), label strings and lists;
an operation declares, per parameter, which converter its argument goes through
(:class:`symattn.ops.operation.Param`). Each converter is ``convert(value, what)``.
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import InputError
from ..numbers import shown
from ..tensor import Tensor


def show(v) -> str:
    """A value of an expression as a message shows it."""
    if isinstance(v, Fraction):
        return str(v)
    if isinstance(v, Tensor):
        return f"a {v.shape[0]}×{v.shape[1]} matrix"
    if isinstance(v, list):
        return shown("[" + ", ".join(show(x) for x in v[:10]) + (", ..." if len(v) > 10 else "") + "]")
    if isinstance(v, str):
        return f"the label \"{shown(v)}\""
    return shown(repr(v))


def whole(v, what: str = "the argument") -> int:
    """A whole number (a Fraction n/1, a 1×1 constant, an int)."""
    if isinstance(v, Tensor) and v.op == "const" and v.shape == (1, 1):
        v = v.params["entries"][0][0]
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    raise InputError(f"{what} must be a whole number, got {show(v)}")


def flag(v, what: str = "the flag") -> bool:
    """A yes/no switch written 0 or 1 (True and False pass as they are)."""
    return v if isinstance(v, bool) else bool(whole(v, what))


def flags(v, what: str = "a padding flag") -> list:
    """A list of whole numbers: [1, 1, 0], or a one-row constant."""
    if isinstance(v, list):
        return [whole(x, "a padding flag") for x in v]
    if isinstance(v, Tensor) and v.op == "const" and v.shape[0] == 1:
        return [whole(x, "a padding flag") for x in v.params["entries"][0]]
    raise InputError("padding_mask takes a list of 0/1 flags such as [1, 1, 0]")


def labels(v, what: str = "a token id") -> list:
    """Token ids or labels: one, or a list."""
    items = v if isinstance(v, list) else [v]
    return [x if isinstance(x, str) else whole(x, "a token id") for x in items]


def targets(v, what: str = "a target index"):
    """A target column (index or label) per row: one, or a list."""
    if isinstance(v, list):
        return [x if isinstance(x, str) else whole(x, "a target index") for x in v]
    return v if isinstance(v, str) else whole(v, "a target index")


def axis(v, what: str = "axis") -> int:
    return v if isinstance(v, int) else whole(v, what)
