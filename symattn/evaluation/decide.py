"""Decisions that need certainty: the largest entry of a row."""

from __future__ import annotations

from ..errors import CertificationError, ShapeError
from ..tensor import Tensor, NEG_INF
from .evaluator import Evaluator


def argmax(z: Tensor, evaluator: Evaluator | None = None, row: int = 0) -> int:
    """Index of the unique largest entry of row ``row``, proven by ball arithmetic."""
    ev = evaluator or Evaluator()
    prec = 64
    while prec <= 1 << 14:
        vals = ev.ball(z, prec)[row]
        finite = [(j, x) for j, x in enumerate(vals) if x is not NEG_INF]
        if not finite:
            raise ShapeError("argmax of a row that is entirely −∞")
        for j, x in finite:
            if all(k == j or x > y for k, y in finite):
                return j
        prec *= 4
    raise CertificationError("no unique largest entry (a tie?)",
                             hint="greedy choice needs one largest logit")
