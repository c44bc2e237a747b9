"""Elementwise functions and row statistics, each a primitive or a short composition."""

from __future__ import annotations

from . import primitives as P
from ..tensor import Tensor


def exp(x) -> Tensor: return P.unary("exp", x)
def sqrt(x) -> Tensor: return P.unary("sqrt", x)
def sin(x) -> Tensor: return P.unary("sin", x)
def cos(x) -> Tensor: return P.unary("cos", x)
def abs_(x) -> Tensor: return P.unary("abs", x)


def log(x) -> Tensor:
    """Natural logarithm, elementwise."""
    return P.unary("log", x)


def relu(x) -> Tensor:
    """max(0, x) elementwise; the sign of an exact value is decided with certainty."""
    return P.unary("relu", x)


def row_sum(x) -> Tensor:
    """Row sums, m×1."""
    return P.row_sum(x)


def mean(x) -> Tensor:
    """Row means, m×1."""
    x = P.as_tensor(x)
    return P.row_sum(x) / x.shape[1]


def var(x, ddof: int = 0) -> Tensor:
    """Row variances, m×1: the biased (population) variance for ddof=0, as LayerNorm uses."""
    x = P.as_tensor(x)
    n = x.shape[1]
    if not 0 <= ddof < n:                    # n - ddof ≤ 0: a zero or negative "variance"
        from ..errors import DomainError
        raise DomainError(f"var: ddof = {ddof} must be ≥ 0 and smaller than the number of "
                          f"entries in a row ({n})")
    d = x - mean(x)
    return P.row_sum(d * d) / (n - ddof)


def row_max(x) -> Tensor:
    """Row maxima, m×1."""
    return P.row_max(x)
