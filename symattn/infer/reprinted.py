"""Operands printed again near the block they compute, as their first print.

A worked example in several sections shows a table of results first and the weights that
make it just after ("how were Q, K, V computed? the weights below"), the weights being the
numbers of a matrix printed sections before::

    W_K=\\begin{bmatrix}1 & 0 \\\\ 0.5 & 1\\end{bmatrix}        (section 1)
    ...
    | X | Q | K | V |  ...                                  (section 3: the table)
    $W_K$  \\begin{bmatrix}1 & 0 \\\\ 0.5 & 1\\end{bmatrix}     (section 3: after it)

The search takes operands among the nearest earlier blocks (:func:`.order.operands`), and
the first print is far before. A block printed again (``Block.again``, :func:`.blocks.blocks`)
among the few blocks just after the target points at that first print, which *is* earlier:
it joins the target's operands. Nothing new is computed; the operand is an earlier block.
"""

from __future__ import annotations

MAX_AFTER = 4               # blocks just after the target (not prose vectors) looked at
MIN_WIDTH = 4               # a vector printed again, as wide as a layer's bias (1×2 ones repeat by chance)


def shown_again(blocks: list, target) -> list:
    """The first prints (earlier than ``target``) of the blocks of two or more rows printed
    again among the :data:`MAX_AFTER` blocks just after ``target``, nearest first."""
    by_index = {b.index: b for b in blocks}
    after = sorted((b for b in blocks if b.index > target.index and b.printed.form != "prose"),
                   key=lambda b: b.index)[:MAX_AFTER]
    out = []
    for b in after:
        first = by_index.get(b.again)
        if (first is not None and b.shape[0] > 1 and first.index < target.index
                and first.parent is None and first not in out):
            out.append(first)
    return out


def shown_before(before: list, target, nearest: list) -> list:
    """(block, the line of its latest print there) for the first prints of the blocks of two or more rows printed again (and dropped as a
    repeat: :func:`.again.settle`) between the farthest of the ``nearest`` earlier blocks and
    ``target``: a new example that takes the same numbers (Q = K = I, as a chapter before)
    prints its operands there, far from their first print."""
    low = min((b.line for b in nearest if b.path == target.path), default=0)
    out = []
    for b in before:
        lines = [p.line for path, p in b.echoes
                 if path == target.path and low <= p.line <= target.line and p.shape == b.shape]
        if b.parent is None and b.shape[0] > 1 and lines:
            out.append((b, max(lines)))
    return out


def reprinted(lines, found: list) -> list:
    """The LaTeX matrices of two or more rows in the prose that ``found`` (the reading's
    blocks) leaves out, in line order. The article reading
    (:func:`symattn.spec.latex_import.read_matrices`) leaves out an unnamed matrix that
    repeats an earlier one's numbers (as a spec's input it is not a new one); here it is a
    block printed again, read by the same reader, each environment on its own."""
    from ..article.cells import Printed
    from ..article.matrices import _blob, _one_by_one
    rest = [ln for ln in lines if ln.kind not in ("code", "output")]
    text, numbers = _blob(rest)
    if "\\begin" not in text:
        return []
    have = {(p.line, p.values) for p in found}
    out = []
    for m, off in _one_by_one(text):
        k = m.line - 1 + off
        if k >= len(numbers) or (m.shape[0] < 2 and m.shape[1] < MIN_WIDTH) or (numbers[k], m.values) in have:
            continue
        have.add((numbers[k], m.values))
        out.append(Printed("", numbers[k], m.values, m.texts))
    return out
