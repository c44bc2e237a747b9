"""Which printed blocks a block's derivation may take as operands (the search's pool).

The nearest earlier blocks are the operands, at most :data:`MAX_OPERANDS` of them and the
rows of the nearest :data:`MAX_ROW_BLOCKS` of several rows. Per-token vectors an article
prints in its prose (:mod:`.vectors`: one row each, often a row of a block printed whole
elsewhere, or a piece of a hand computation) would crowd the blocks out of that pool: they
are counted apart, the nearest :data:`MAX_PROSE` of them joining it (those a stack of
:mod:`.stacks` holds: through it).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..errors import SymattnError
from ..spec import expr as E
from .blocks import Block, heads_of, rows_of
from .evidence import says_name

MAX_OPERANDS = 16           # nearest earlier blocks tried as each operand
MAX_PROSE = 8               # nearest earlier per-token vectors of the prose tried as well (a post
                            # printing every vector inline: a residual reaches back past an FFN)
MAX_ROW_BLOCKS = 6          # nearest earlier blocks of several rows whose rows are operands


def is_prose(b: Block) -> bool:
    """A vector read from prose or a display line (not a block the article reading finds)."""
    return b.printed.form == "prose"


def ends_text(b: Block) -> bool:
    """Does the block end the text of an example before it? (Not a vector of the prose nor
    a stack of them: pieces of the text.)"""
    return b.printed.form not in ("prose", "stack")


def operands(blocks: list[Block], target: Block, widths: tuple = ()) -> tuple[list[Block], list[Block]]:
    """(the blocks tried as operands of ``target``'s derivation, nearest first (a stated
    weight the text names just before it as near as that), each of the
    nearest :data:`MAX_ROW_BLOCKS` of several rows followed by its heads: its column
    slices of a head's ``widths`` the text states; the rows tried where a form takes or
    gives a row)."""
    before = sorted((b for b in blocks if b.index < target.index), key=lambda b: -b.index)
    nearest = [b for b in before if not is_prose(b)][:MAX_OPERANDS]
    from .reprinted import shown_again, shown_before
    at = {b.index: _printed_at(before, target, line) for b, line in shown_before(before, target, nearest)
          if b not in nearest}                # far, but printed again before it: as near as that print
    for b in before:                          # a weight the text names right before it (``\\tilde Z W_1 =``)
        if b.given and b not in nearest and b.index not in at and any(says_name(target.stating, n) for n in b.given):
            at[b.index] = target.index - 0.5
    again = [b for b in before if b.index in at]
    whole = nearest + again + [b for b in shown_again(blocks, target) if b not in nearest + again]
    stacked = {id(r) for b in before for r in getattr(b, "parts", ())}   # represented by their stack
    prose = [b for b in before if is_prose(b) and id(b) not in stacked][:MAX_PROSE]
    earlier = sorted(whole + prose, key=lambda b: -at.get(b.index, b.index))
    several = sorted([b for b in nearest if b.shape[0] > 1][:MAX_ROW_BLOCKS] + again,
                     key=lambda b: -at.get(b.index, b.index))
    rows = [r for b in several for r in rows_of(b)]
    last = max((b.line for b in before if b.path == target.path), default=0)
    written = [r for r in rows if r.parent.line < last and writes_row(target.stating, r)]
    if written:                               # ``softmax([0.485, 0.344, …])`` just before it
        rows = written + [r for r in rows if r not in written]
        earlier = written + earlier
    if widths:
        heads = {b.index: [h for w in widths for h in heads_of(b, w)] for b in several}
        earlier = [x for b in earlier for x in [b] + heads.get(b.index, [])]
    return earlier, rows


MIN_WRITTEN = 3             # entries of a row written out before a block that make it its operand


def writes_row(text: str, row: Block) -> bool:
    """Does ``text`` (what precedes a block) write out the row ``row`` as printed, its
    entries in order, :data:`MIN_WRITTEN` or more of them (the operand a hand computation
    shows: ``softmax([0.485, 0.344, 0.212, 0.020])``)? Then it is the nearest operand (a
    row of a block printed in that text, the block just before, is only its own print)."""
    texts = [t.strip() for t in row.printed.texts[0]]
    if len(texts) < MIN_WRITTEN or not all(texts):
        return False
    sep = r"\s*[,;&]?\s*"
    return re.search(r"(?<![\d.])" + sep.join(re.escape(t) for t in texts) + r"(?![\d])", text) is not None


def _printed_at(before: list[Block], target: Block, line: int) -> float:
    """Where in the reading order a print at ``line`` of ``target``'s file falls: just before
    the first block printed after it."""
    after = [b.index for b in before if b.path == target.path and b.line > line]
    return min(after, default=target.index) - 0.5


def rows_again(search) -> None:
    """A vector computed from printed intermediates (``[0.422, 0.155, 0.422]`` as the exp row
    over its sum) that is, within both prints' rounding, a row of a matrix some other
    derivation computes whole (the weights ``softmax(S)``, printed before or after it) is that
    row printed again: its own derivation is dropped for the matrix's (``search.derived`` and
    ``search.reprints`` changed in place). The matrix's is the one from fewer rounded prints."""
    whole = [d for d in search.derived.values() if d.block.shape[0] > 1]
    for i, d in list(search.derived.items()):
        b = d.block
        if b.shape[0] != 1 or any(o.index == i for w in whole for o in w.operands):
            continue
        for w in whole:
            c = w.block
            if c.shape[1] == b.shape[1] and len(_rows_printed(search, w, b)):
                if not any(o.index == c.index for o in d.operands):
                    del search.derived[i]
                    search.reprints[i] = c.index
                    break


def inputs_as_rows(search) -> None:
    """A vector that derivations take as an input but that is, within both prints' rounding,
    a row of a matrix computed elsewhere (``q_love = [0.92, 1.24]`` printed before the
    table of every token's query ``Q = X @ W_Q``) is that row: the derivations take the
    row (``Q[1]``) instead, so the numbers printed for it are checked as the matrix's, and
    the vector prints that row again (``search.derived`` and ``search.reprints`` changed in
    place), when every derivation that takes it reproduces as much with the row. Never a
    matrix computed from the vector itself (the dependencies stay acyclic)."""
    used = {o.index: o for d in search.derived.values() for o in d.operands if o.parent is None}
    for i, b in used.items():
        if b.shape[0] != 1 or i in search.derived or i in search.reprints:
            continue
        row = _computed_row(search, b)
        if row is None:
            continue
        swapped = {}
        for j, d in search.derived.items():
            if any(o.index == i and o.parent is None for o in d.operands):
                ops = tuple(row if o.index == i and o.parent is None else o for o in d.operands)
                expr = _renamed(d.expr, b.name, row.name)
                if search.matched(search.value(expr, ops), d.block, ops)[0] < d.matched:
                    break                     # the row reproduces less than the print did: keep it
                swapped[j] = replace(d, expr=expr, operands=ops)
        else:
            search.derived.update(swapped)
            search.reprints[i] = row.parent.index


def _computed_row(search, b: Block):
    """The row of a computed matrix that ``b`` prints (a Block ``Q[1]``), or None."""
    for k, d in search.derived.items():
        c = d.block
        if c.shape[0] < 2 or c.shape[1] != b.shape[1] or depends(search, k, b.index):
            continue
        hits = _rows_printed(search, d, b)
        if len(hits) == 1:
            return rows_of(c)[int(hits[0])]
    return None


def _rows_printed(search, d, b: Block):
    """The rows of the matrix ``d`` computes (its value from its operands' prints) that the
    vector ``b`` prints: each entry within half a unit of ``b``'s last digit, so that the
    vector checked as that row is no false alarm."""
    import numpy as np
    v = search.value(d.expr, d.operands)
    if v is None or v.shape != d.block.shape:
        return np.array([], dtype=int)
    return np.flatnonzero(np.all(np.abs(v - b.floats) <= b.half * 1.0001 + 1e-9, axis=1))


def depends(search, k: int, i: int, seen=None) -> bool:
    """Is block ``k``'s derivation built on block ``i`` (directly or through others)?"""
    seen = seen if seen is not None else set()
    d = search.derived.get(k)
    if d is None or k in seen:
        return False
    seen.add(k)
    return any(o.index == i or depends(search, o.index, i, seen) for o in d.operands)


def _renamed(expr: str, old: str, new: str) -> str:
    """``expr`` with the name ``old`` (a whole name, not part of a longer one) as ``new``."""
    import re
    return re.sub(rf"(?<![\w\[]){re.escape(old)}(?![\w\[])", new, expr)


def dependency_order(steps: list[Block], derived: dict, chained: dict | None = None) -> list[Block]:
    """The computed blocks in reading order, except that each comes after the blocks it is
    computed from (a step printed before what it uses: the scores from the row of a table
    of queries printed later) and those whose chain's steps its own take (``chained``: block
    index -> :class:`.chains.Chain`; :func:`linked`). The derivations are acyclic
    (:func:`inputs_as_rows`)."""
    index = {b.index for b in steps}
    takes = linked(chained or {}, derived)
    out: list[Block] = []
    done: set = set()

    def place(b: Block, path: tuple = ()):
        if b.index in done or b.index in path:
            return
        d = derived.get(b.index)              # a chain's step (.chains): after its block
        c = (chained or {}).get(b.index)      # and the chain after the blocks it works on
        for i in [(o.parent or o).index for o in (d.operands if d is not None else ())] + \
                list(takes.get(b.index, ())) + [o for o in (c.operands if c else ()) if o not in c.prints]:
            if i in index and i != b.index:
                place(next(s for s in steps if s.index == i), path + (b.index,))
        done.add(b.index)
        out.append(b)
    for b in steps:
        place(b)
    return out


def linked(shown: dict, derived: dict) -> dict:
    """Block index -> the other blocks whose unprinted steps (a chain's, a derivation's) its
    own take (``0 / written_sqrt`` worked beside a later block, of the √2 worked beside an
    earlier one): one example with them."""
    steps = [(i, name, expr) for i, c in shown.items() for name, expr, _ in c.steps] + \
        [(i, name, expr) for i, d in derived.items() for name, expr in d.steps]
    owner = {name: i for i, name, _ in steps}
    out: dict = {}
    for i, _, expr in steps:
        for name in names_in(expr):
            if owner.get(name, i) != i:
                out.setdefault(i, set()).add(owner[name])
    return {i: tuple(sorted(js)) for i, js in out.items()}


def names_in(expr: str) -> set:
    """The names a step's expression takes (none where it does not parse: the check says so)."""
    try:
        return E.names(E.parse(expr))
    except SymattnError:
        return set()
