"""Which printed blocks a block's derivation may take as operands (the search's pool).

The nearest earlier blocks are the operands, at most :data:`MAX_OPERANDS` of them and the
rows of the nearest :data:`MAX_ROW_BLOCKS` of several rows. Per-token vectors an article
prints in its prose (:mod:`.vectors`: one row each, often a row of a block printed whole
elsewhere, or a piece of a hand computation) would crowd the blocks out of that pool: they
are counted apart, the nearest :data:`MAX_PROSE` of them joining it (those a stack of
:mod:`.stacks` holds: through it).
"""

from __future__ import annotations

from .blocks import Block, rows_of

MAX_OPERANDS = 16           # nearest earlier blocks tried as each operand
MAX_PROSE = 4               # nearest earlier per-token vectors of the prose tried as well
MAX_ROW_BLOCKS = 6          # nearest earlier blocks of several rows whose rows are operands


def is_prose(b: Block) -> bool:
    """A vector read from prose or a display line (not a block the article reading finds)."""
    return b.printed.form == "prose"


def ends_text(b: Block) -> bool:
    """Does the block end the text of an example before it? (Not a vector of the prose nor
    a stack of them: pieces of the text.)"""
    return b.printed.form not in ("prose", "stack")


def operands(blocks: list[Block], target: Block) -> tuple[list[Block], list[Block]]:
    """(the blocks tried as operands of ``target``'s derivation, nearest first; the rows
    tried where a form takes or gives a row)."""
    before = sorted((b for b in blocks if b.index < target.index), key=lambda b: -b.index)
    whole = [b for b in before if not is_prose(b)][:MAX_OPERANDS]
    stacked = {id(r) for b in before for r in getattr(b, "parts", ())}   # represented by their stack
    prose = [b for b in before if is_prose(b) and id(b) not in stacked][:MAX_PROSE]
    earlier = sorted(whole + prose, key=lambda b: -b.index)
    rows = [r for b in [b for b in whole if b.shape[0] > 1][:MAX_ROW_BLOCKS] for r in rows_of(b)]
    return earlier, rows


def rows_again(search) -> None:
    """A vector computed from printed intermediates (``[0.422, 0.155, 0.422]`` as the exp row
    over its sum) that is, within both prints' rounding, a row of a matrix some other
    derivation computes whole (the weights ``softmax(S)``, printed before or after it) is that
    row printed again: its own derivation is dropped for the matrix's (``search.derived`` and
    ``search.reprints`` changed in place). The matrix's is the one from fewer rounded prints."""
    import numpy as np
    whole = [d for d in search.derived.values() if d.block.shape[0] > 1]
    for i, d in list(search.derived.items()):
        b = d.block
        if b.shape[0] != 1 or any(o.index == i for w in whole for o in w.operands):
            continue
        for w in whole:
            c = w.block
            if c.shape[1] == b.shape[1] and np.any(np.all(
                    np.abs(c.floats - b.floats) <= c.half + b.half + 1e-9, axis=1)):
                if not any(o.index == c.index for o in d.operands):
                    del search.derived[i]
                    search.reprints[i] = c.index
                    break
