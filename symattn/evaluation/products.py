"""x·W with W a large constant read at once (a ``Scaled``): the certified context takes W's
integers to FLINT a block of rows at a time and never holds W as Python numbers or balls,
so a weight matrix of a real model costs its compact form (1 to 8 bytes an entry) and one
block. The size estimate (:mod:`symattn.evaluation.size`) counts it the same way.
"""

from __future__ import annotations

from ..scaled import Scaled
from ..tensor import Tensor

SCALED_MIN = 1 << 16          # entries from which a constant operand is read block by block
BLOCK = 1 << 21               # entries of W converted at once


def scaled_operand(node: Tensor) -> bool:
    """``node`` is a product whose right operand is a large constant with one exponent."""
    if node.op != "matmul":
        return False
    w = node.args[1]
    e = w.params.get("entries") if w.op == "const" else None
    return type(e) is Scaled and e.common and e.num.size >= SCALED_MIN


def block_rows(n: int) -> int:
    """Rows of an n-column W converted at once."""
    return max(1, BLOCK // n)


def scaled_product(ctx, node: Tensor, memo: dict):
    """``node``'s value (x·W, W a large ``Scaled``) block by block, or None when it is not
    such a product or x holds −∞ (the general path refuses that with its message)."""
    if not scaled_operand(node):
        return None
    from flint import arb_mat, fmpq, fmpq_mat, fmpz_mat
    from .base import run
    from .ball import _all_rational, _has_neg_inf, _any_tall
    a = run(ctx, node.args[0], memo)
    if _has_neg_inf(a):
        return None
    w = node.args[1].params["entries"]
    rational = _all_rational(a)
    step, acc = block_rows(w.shape[1]), None
    for k in range(0, w.shape[0], step):
        z = fmpz_mat(w.num[k:k + step].tolist())
        part = [r[k:k + step] for r in a]
        p = fmpq_mat(part) * z if rational else arb_mat(part) * arb_mat(z)
        acc = p if acc is None else acc + p
    f, d = w.scale()
    out = (acc * fmpq(f, d)).tolist()
    return arb_mat(out).tolist() if rational and _any_tall(out) else out
