"""Rows worked one after another alike, the last with a slip.

Notes print a softmax row by row (``the -> [0.4223, …]``, ``cat -> […]``, ``sat -> […]``),
each the same form of its own operand (``softmax(score_the / sqrt(4))``, then of
``score_cat``). The search derives a row only when it reproduces most of it, so the row
with a slip (``0.5762`` for ``0.5761``) stays underived, and unjudged. Here a block no pass
derived, printed in step right after two siblings (its shape, the same spacing of lines)
that one form derives from operands in step (``score_the``, ``score_cat``: the next is the
block as far on again, ``score_sat``), is derived by that form from those operands when it
reproduces at least :data:`~.tried.PARTLY` of its entries: the text's own pattern, no new
freedom; the article check then judges every entry, the slip included.
"""

from __future__ import annotations

import re

from .search import Derivation, Search
from .tried import PARTLY

MAX_SPACING = 6             # lines from one sibling to the next


def alike(search: Search) -> None:
    """Derive, in reading order, each underived block that follows two siblings so."""
    blocks = [b for b in search.blocks if b.parent is None]
    at = {b.index: b for b in blocks}
    for k in range(2, len(blocks)):
        first, second, b = blocks[k - 2], blocks[k - 1], blocks[k]
        if b.index in search.derived or b.index in search.reprints or b.given or b.again >= 0:
            continue
        d1, d2 = search.derived.get(first.index), search.derived.get(second.index)
        if d1 is None or d2 is None or not first.shape == second.shape == b.shape or \
                not 0 < second.line - first.line == b.line - second.line <= MAX_SPACING:
            continue
        operands = _next(d1, d2, at, b)
        template = _template(d2)
        if operands is None or template is None or template != _template(d1):
            continue
        v = search.value(template, operands, slots=True)
        got, err = search.matched(v, b, operands)
        if got and got >= PARTLY * b.floats.size:
            text = re.sub(r"\b_(\d+)\b", lambda m: operands[int(m.group(1))].name, template)
            search.derived[b.index] = Derivation(b, text, operands, got, d2.cost, form="alike", error=err)


def _next(d1: Derivation, d2: Derivation, at: dict, b) -> tuple | None:
    """The operands one step on from ``d2``'s, as ``d2``'s are from ``d1``'s (a block
    both take stays), each of its step's shape and printed before ``b``; else None."""
    if len(d1.operands) != len(d2.operands) or not d2.operands:
        return None
    out = []
    for o1, o2 in zip(d1.operands, d2.operands):
        o3 = o2 if o1.index == o2.index else at.get(2 * o2.index - o1.index)
        if o3 is None or o3.shape != o2.shape or o3.index >= b.index:
            return None
        out.append(o3)
    return tuple(out) if any(o.index != p.index for o, p in zip(out, d2.operands)) else None


def _template(d: Derivation) -> str | None:
    """``d``'s expression with its operands as slots ``_0``, ``_1``… (None when an operand
    is a row of a block, ``X[1]``: no step to take on)."""
    text = d.expr
    for i, o in enumerate(d.operands):
        if o.parent is not None:
            return None
        text, n = re.subn(rf"(?<![\w.]){re.escape(o.name)}(?![\w\[])", f"_{i}", text)
        if n == 0:
            return None
    return text
