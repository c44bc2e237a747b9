"""Softmax over rows, with temperature: the one definition every context evaluates."""

from __future__ import annotations

from fractions import Fraction

from . import primitives as P
from .elementwise import exp
from ..errors import DomainError, InputError
from ..numbers import exact
from ..tensor import Tensor


def softmax(x, T=1, axis: int = -1) -> Tensor:
    """``exp(x_ij / T) / Σ_k exp(x_ik / T)`` for each row (``axis=0``: each column).

    A −∞ entry (a mask) gets exactly 0 weight; a row that is entirely −∞ is an error.
    T must be > 0 (a symbol is allowed for exact work).

    >>> import symattn
    >>> symattn.softmax(symattn.matrix([[0, 0]])).exact()
    Matrix([[1/2, 1/2]])
    """
    x = P.as_tensor(x)
    if axis in (0, -2):
        return P.transpose(softmax(P.transpose(x), T))
    if axis not in (1, -1):
        raise InputError(f"softmax axis={axis}: a matrix has axis 0 (columns) or 1 (rows)")
    z = x if _is_one(T) else x / _temperature(T)
    e = exp(P.stabilize(z))
    return _divide(e, P.row_sum(e), "softmax: every entry of a row is masked (−∞); "
                   "nothing is left to attend to")


def _divide(a, b, message: str) -> Tensor:
    t = P.div(a, b)
    t.params["zero"] = message
    return t


def _is_one(T) -> bool:
    return not isinstance(T, Tensor) and not hasattr(T, "free_symbols") and exact(T) == 1


def _temperature(T) -> Tensor:
    if isinstance(T, Tensor):
        return T
    v = exact(T)
    if isinstance(v, Fraction) and v <= 0:
        raise DomainError(f"temperature T = {v} must be > 0",
                          hint="T → 0⁺ is greedy choice (argmax); use a small positive T")
    return P.scalar(v)
