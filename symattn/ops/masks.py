"""Masks: 0 where a key may be seen, −∞ where it may not, added to the scores before
softmax; declared with their common mistake (a 0 written for −∞)."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from . import primitives as P
from .operation import declare, Presentation, Search
from ..errors import ShapeError, InputError
from ..numbers import exact
from ..tensor import Tensor, NEG_INF

BIG_MASK = -10_000           # an additive mask entry at or below this is a mask (−1e4 … −1e30)


def causal_mask(n: int, fill=None) -> Tensor:
    """n×n: 0 on and below the diagonal, −∞ above (row i may see keys 0..i).

    ``fill`` replaces −∞ (``fill=0`` is the common mistake of a 0 mask).
    """
    n = _count(n)
    P.check_entries(n, n)             # before the rows are built
    zero = Fraction(0)                # one shared object: a T = 4096 mask is 16.7M entries
    f = NEG_INF if fill is None else exact(fill)
    return P.const([[zero] * (i + 1) + [f] * (n - i - 1) for i in range(n)], name="causal_mask")


def padding_mask(valid: Sequence, n_queries: int = 1, fill=None) -> Tensor:
    """n_queries×len(valid): 0 for a real key position (1 in ``valid``), −∞ for padding (0)."""
    keep = [_flag(v) for v in valid]
    if not keep:
        raise ShapeError("padding_mask of no positions")
    f = NEG_INF if fill is None else fill
    n = _count(n_queries)
    P.check_entries(n, len(keep))     # before the rows are built
    return P.const([[0 if k else f for k in keep] for _ in range(n)], name="padding_mask")


def _flag(v) -> bool:
    if isinstance(v, Tensor):
        raise InputError("padding_mask takes a list of 0/1 flags")
    if v in (0, 1) and not isinstance(v, float):
        return bool(v)
    raise InputError(f"padding_mask flag {v!r}: use 1 for a token and 0 for padding")


def _count(n) -> int:
    if isinstance(n, Tensor) and n.op == "const" and n.shape == (1, 1):
        n = n.params["entries"][0][0]
    if isinstance(n, Fraction) and n.denominator == 1:
        n = int(n)
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise InputError(f"{n!r} is not a positive whole number of positions")
    return n


def is_mask(node, spec, additive: bool = False) -> bool:
    """A mask of 0 and −∞ in a spec tree: a mask call, or an input holding −∞ entries;
    ``additive``: also an input of 0 and large negative entries (PyTorch's
    masked_fill(−1e9) convention)."""
    from ..spec import expr as E
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


def _mistakes(call, spec) -> list:
    from ..spec import calls as C
    if C.has_kw(call, "fill"):
        return []
    return [("0 instead of −∞ in the mask", C.with_kw(call, "fill", C.ZERO))]


CAUSAL_MASK = declare("causal_mask", causal_mask, convert={"n": "whole"}, mistakes=_mistakes,
                      latex=Presentation("CausalMask"), groups=frozenset({"mask"}),
                      # a table of its own, added to scores: masked = scores + causal_mask(n)
                      search=Search(" -> n n", sizes={"n": "rows"}))
PADDING_MASK = declare("padding_mask", padding_mask, convert={"valid": "flags", "n_queries": "whole"},
                       mistakes=_mistakes, latex=Presentation("PaddingMask"),
                       groups=frozenset({"mask"}))
MASK_CALLS = (CAUSAL_MASK.name, PADDING_MASK.name)
