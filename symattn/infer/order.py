"""Which printed blocks a block's derivation may take as operands (the search's pool).

The nearest earlier blocks are the operands, at most :data:`MAX_OPERANDS` of them and the
rows of the nearest :data:`MAX_ROW_BLOCKS` of several rows. Per-token vectors an article
prints in its prose (:mod:`.vectors`: one row each, often a row of a block printed whole
elsewhere, or a piece of a hand computation) would crowd the blocks out of that pool: they
are counted apart, the nearest :data:`MAX_PROSE` of them joining it.
"""

from __future__ import annotations

from .blocks import Block, rows_of

MAX_OPERANDS = 16           # nearest earlier blocks tried as each operand
MAX_PROSE = 4               # nearest earlier per-token vectors of the prose tried as well
MAX_ROW_BLOCKS = 6          # nearest earlier blocks of several rows whose rows are operands


def is_prose(b: Block) -> bool:
    """A vector read from prose or a display line (not a block the article reading finds)."""
    return b.printed.form == "prose"


def operands(blocks: list[Block], target: Block) -> tuple[list[Block], list[Block]]:
    """(the blocks tried as operands of ``target``'s derivation, nearest first; the rows
    tried where a form takes or gives a row)."""
    before = sorted((b for b in blocks if b.index < target.index), key=lambda b: -b.index)
    whole = [b for b in before if not is_prose(b)][:MAX_OPERANDS]
    prose = [b for b in before if is_prose(b)][:MAX_PROSE]
    earlier = sorted(whole + prose, key=lambda b: -b.index)
    rows = [r for b in [b for b in whole if b.shape[0] > 1][:MAX_ROW_BLOCKS] for r in rows_of(b)]
    return earlier, rows
