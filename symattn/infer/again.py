"""A block printed again: the same numbers, or a second route to them.

An article may print the same numbers twice: a restatement (a summary table, a result
shown again), or a second computation that gives the same result on purpose (the
causal mask applied after the softmax and renormalised, then as −∞ before it: "the same as
above"). The block is kept (``Block.again``: the earlier block it repeats) and searched for
a derivation whose operands are all printed after that earlier block and that reproduces
every entry: a restatement has none (nothing printed since computes it), a second route
has one. Without one the block is
dropped, as every repeat was: the article check assigns its numbers to the earlier block's
step like any number printed again.
"""

from __future__ import annotations


def derive_again(search, block):
    """The block's derivation from blocks printed after the one it repeats, or None. It must
    reproduce every entry: being a restatement reproduces them all (a coarse restated table
    is near many sums of small numbers printed since)."""
    if not any(block.again < b.index < block.index for b in search.blocks):
        return None
    d = search.derive(block, after=block.again)
    return d if d is not None and d.matched == block.floats.size else None


def settle(search, block, derivation) -> bool:
    """Keep a block printed again when derived anew; else drop it from the search's (and
    the article's) blocks. True when kept."""
    if derivation is not None:
        return True
    search.blocks.remove(block)
    first = next((b for b in search.blocks if b.index == block.again), None)
    if first is not None:                 # an input shown again after its use: its first print's
        first.echoes += ((block.path, block.printed),)
    return False
