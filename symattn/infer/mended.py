"""Blocks computed from the right values behind a wrong print.

An author who slips while copying a result (``K[cat, 1]`` printed 0.0 where ``X W_K`` gives
1.0) goes on from the right value: the scores printed next are ``Q Kᵀ`` of the right keys.
The search evaluates every form on the operands' prints, so no form reproduces those scores
and they would stay an input, and the slip would hide what follows. After the search, a block
no form derives is tried again with each derived block whose print it does not reproduce in
full taken at its derivation's value (its operands' prints through its expression, exactly as
the check will compute it). A derivation found so that reproduces every entry (all but one of
four or more) is the block's:
the step is written over the same names, and the check then judges the slipped print wrong and
the block computed from the right values right.
"""

from __future__ import annotations

from .search import Search


def mended(search: Search) -> None:
    """Derive, in reading order, the blocks still underived from the derived blocks printed
    with a slip (a derivation reproducing most of a block, not all of it), taken at their
    derivations' values."""
    from .. import deadline
    slipped = [d for d in search.derived.values()
               if d.matched < d.block.floats.size and not d.mistake and not d.steps and not d.after]
    if not slipped:
        return
    first = min(d.block.index for d in slipped)
    for b in list(search.blocks):
        if b.index <= first or b.index in search.derived or b.index in search.reprints \
                or b.again >= 0 or b.given:
            continue
        deadline.check(f"{b.path}:{b.line}")
        d = _derive(search, [d for d in slipped if d.block.index < b.index], b)
        if d is not None:
            search.derived[b.index] = d


def _derive(search: Search, slipped: list, b):
    """``b``'s derivation with the ``slipped`` blocks at their derivations' values, when it
    reproduces every entry of ``b`` (all but one of four or more: a slip of its own) and takes
    one of them; else None."""
    names = {d.block.name for d in slipped}
    values = {d.block.name: search.derived_value(d) for d in slipped}
    if any(v is None for v in values.values()):
        return None
    try:
        search.taking(values)
        got = search.derive(b)
    finally:
        search.taking(dict.fromkeys(names))
    if got is None or got.mistake or got.matched < b.floats.size - (b.floats.size >= 4) or \
            not any(o.name in names or (o.parent is not None and o.parent.name in names)
                    for o in got.operands):
        return None
    return got
