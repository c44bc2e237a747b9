"""Elementwise functions and row statistics, each a primitive or a short composition.

The elementwise functions (exp, log, sqrt, sin, cos, abs_, relu, erf, tanh, sigmoid,
floor, trunc, round_, ...) and
constants (pi) are made from their declarations in :mod:`symattn.primitives`: a new one
needs no line here.
"""

from __future__ import annotations

from . import primitives as P
from ..tensor import Tensor

globals().update(P.BUILDERS)
__all__ = [*P.BUILDERS, "row_sum", "mean", "var", "row_max"]


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
