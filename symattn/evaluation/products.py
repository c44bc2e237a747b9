"""x·W with W a large constant read at once (a ``Scaled``): the certified context
(:func:`symattn.evaluation.ball.scaled_product`) takes W's integers to FLINT a block of
rows at a time and never holds W as Python numbers or balls, so a weight matrix of a real
model costs its compact form (1 to 8 bytes an entry) and one block. The size estimate (:mod:`symattn.evaluation.size`) counts it the same way.
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
