"""Blocks printed one after another, then side by side: their concatenation.

A multi-head example prints each head's output (``z^{(1)} = [0.893, 0.930, 0.818]``, then
heads 2 and 3) and then them concatenated (``z_concat = [0.893, …, 0.580]``, often wrapped
over the lines of an aligned display). The generic search tries a concatenation of two
blocks only (:data:`symattn.ops.concatenation.CONCAT`'s declaration); here a run of two to
:data:`MAX_PARTS` prints in a row, with as many rows as the block and widths that add up to
its width, is tried as ``concat(…)`` of it, the nearest runs first. The run is fixed by the
article's order (no choice of operands beyond where it ends), and the derivation is
accepted as any other (:meth:`~.search.Search._accepts`).

A print of an earlier block's numbers again (head 1's output, worked out in the
self-attention section, restated before heads 2 and 3; no block of its own:
:func:`.blocks.blocks`) is that block in the run, or its row: the concatenation takes the
head's exact output, as the text means it.
"""

from __future__ import annotations

from .blocks import Block, rows_of
from .search import Derivation

MAX_PARTS = 8               # heads of one concatenation (a toy example's few; 8 as the paper's)
MAX_ENDS = 12               # where a run may end: the nearest earlier prints
MIN_WIDTH = 4               # a concatenation of two vectors of two at least


def concat_runs(search) -> None:
    """Derive each block nothing derives yet that a run of earlier prints, side by side,
    reproduces (in place, on ``search.derived``)."""
    prints = _in_reading_order(search.blocks)
    for k, (target, again) in enumerate(prints):
        if again or target.index in search.derived or target.parent is not None or \
                target.shape[1] < MIN_WIDTH:
            continue
        for end in range(k - 1, max(-1, k - 1 - MAX_ENDS), -1):
            run = _run(prints, end, target)
            d = _derivation(search, target, run) if run else None
            if d is not None:
                search.derived[target.index] = d
                break


def _in_reading_order(blocks: list) -> list:
    """(block, printed again) for every print of a block, in the article's order: the block
    itself, and each print of its numbers again (the block, or the row it prints)."""
    at = {p: k for k, p in enumerate(dict.fromkeys(b.path for b in blocks))}
    out = [((at[b.path], b.line, b.index), b, False) for b in blocks]
    for b in blocks:
        for path, p in b.echoes:
            part = b if len(p.values) == b.shape[0] else \
                next((r for r in rows_of(b) if r.printed.values[0] == p.values[0]), None)
            if part is not None:
                out.append(((at.get(path, len(at)), p.line, b.index), part, True))
    return [(b, again) for _, b, again in sorted(out, key=lambda x: x[0])]


def _run(prints: list, end: int, target: Block) -> tuple | None:
    """The blocks printed at ``…, prints[end]`` of ``target``'s rows, all earlier blocks,
    whose widths add up to its width (two or more), or None."""
    rows, width = target.shape
    run, total = [], 0
    for b, _ in reversed(prints[max(0, end - MAX_PARTS + 1):end + 1]):
        if b.shape[0] != rows or (b.parent or b).index >= target.index:
            return None
        run.insert(0, b)
        total += b.shape[1]
        if total >= width:
            break
    return tuple(run) if total == width and len(run) >= 2 else None


def _derivation(search, target, run: tuple) -> Derivation | None:
    form = "concat(" + ", ".join(f"{{{i}}}" for i in range(len(run))) + ")"
    slots = form.format(*(f"_{i}" for i in range(len(run))))
    m, err = search.matched(search.value(slots, run, slots=True), target, run)
    d = Derivation(target, form.format(*(b.name for b in run)), run, m, 1, form=form, error=err)
    return d if search._accepts(d, target.floats.size) else None
