"""Embeddings and positional encodings."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from . import primitives as P
from .elementwise import sin, cos, sqrt
from ..errors import DomainError, InputError
from ..tensor import Tensor


def embed(E, ids: Sequence, scale: bool = False) -> Tensor:
    """Rows of the embedding table E (vocab×d_model) for token ids or labels;
    ``scale=True`` multiplies by √d_model as the original Transformer does."""
    E = P.as_tensor(E)
    rows = [E.row_index(i) for i in ids]
    x = P.take(E, rows)
    return x * sqrt(P.scalar(E.shape[1])) if scale else x


def positional_encoding(n: int, d: int, base=10000, *, pair: str = "2i") -> Tensor:
    """Sinusoidal encoding, n×d: PE[pos, 2i] = sin(pos / base^(2i/d)),
    PE[pos, 2i+1] = cos(pos / base^(2i/d)).

    ``pair="i"`` (the exponent i/d instead of 2i/d) is a common mistake, kept for diagnosis.
    """
    if not (isinstance(n, int) and isinstance(d, int)) or n < 1 or d < 1:
        raise InputError("positional_encoding(n, d) takes positive whole numbers")
    if pair not in ("2i", "i"):
        raise InputError("pair must be '2i' or 'i'")
    _check_base(base)
    pos = P.const([[p] for p in range(n)])
    inv = [P.power(P.scalar(base), -Fraction(2 * (j // 2) if pair == "2i" else j // 2, d))
           for j in range(d)]
    angles = pos @ P.hcat(inv)
    s, c = sin(angles), cos(angles)
    even = P.take(s, None, list(range(0, d, 2)))
    odd = P.take(c, None, list(range(1, d, 2)))
    both = P.hcat([even, odd]) if d > 1 else even
    order = [j // 2 if j % 2 == 0 else (d + 1) // 2 + j // 2 for j in range(d)]
    return P.take(both, None, order)


def _check_base(base) -> None:
    """A base known here (a number) must be > 1: base^(2i/d) then grows with i."""
    from ..numbers import exact
    from ..tensor import NEG_INF
    if isinstance(base, Tensor):
        if base.op != "const" or base.shape != (1, 1):
            return                         # computed: the power's own domain checks apply
        base = base.params["entries"][0][0]
    b = exact(base)
    if b is NEG_INF or not b > 1:
        raise DomainError(f"positional_encoding: base = {'-inf' if b is NEG_INF else b} must be > 1",
                          hint="the Transformer uses base = 10000")


def learned_positional_encoding(P_table, n: int) -> Tensor:
    """The first n rows of a learned position table."""
    return P.take(P.as_tensor(P_table), list(range(n)))
