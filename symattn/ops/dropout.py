"""Dropout as worked examples print it: the mask drawn (1 keep, 0 drop) and the kept
entries scaled by 1/(1 − p), so the expected activation stays the same (inverted dropout,
PyTorch's ``nn.Dropout(p)`` in training). Declared once (:data:`DROPOUT`) with its common
mistake: the mask applied, the scaling forgotten."""

from __future__ import annotations

from fractions import Fraction

from . import primitives as P
from .operation import declare, Presentation, Search
from ..errors import InputError
from ..numbers import exact
from ..tensor import Tensor


def dropout(x, mask, p=Fraction(1, 10)):
    """x ⊙ mask / (1 − p): ``mask`` (the shape of x) 1 where an entry is kept, 0 where it
    is dropped; ``p`` the drop probability, 0 ≤ p < 1.

    >>> import symattn
    >>> symattn.dropout(symattn.matrix([["0.5", "-0.3"]]), symattn.matrix([[1, 0]]), "0.1").exact()
    Matrix([[5/9, 0]])
    """
    x, mask = P.as_tensor(x), P.as_tensor(mask)
    if not isinstance(p, Tensor) and not hasattr(p, "free_symbols") and not 0 <= exact(p) < 1:
        raise InputError(f"dropout: p = {p} is no drop probability: give 0 ≤ p < 1")
    if x.shape != mask.shape:
        raise InputError(f"dropout: the mask is {mask.shape[0]}×{mask.shape[1]}, x is "
                         f"{x.shape[0]}×{x.shape[1]}: give one 0/1 entry per entry of x")
    return x * mask / (1 - P.scalar(p))


def _mistakes(call, spec) -> list:
    from ..spec import expr as E
    if len(call.args) < 2:
        return []
    return [("the mask applied, the 1/(1 − p) scaling forgotten", E.BinOp("*", call.args[0], call.args[1]))]


DROPOUT = declare("dropout", dropout, latex=Presentation("dropout"), mistakes=_mistakes,
                  search=Search("n d, n d -> n d", params={"p": ("0.1", "0.2", "0.5")},
                                words={"p": ("p", "dropout", "drop_prob", "rate")}, binary=(1,), last=True))
