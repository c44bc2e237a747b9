"""Blocks too small for the search's margin (:data:`.search.MIN_ENTRIES`), taken last.

A d = 2 example prints 1×2 and 1×4 blocks whose derivation explains one number more than
its freedom, not two, and often shows a weight only after its product ("the weights used
above"): the search leaves them. After every other pass, a block still underived is
searched again with a margin of one, from the earlier blocks and then also from the
:data:`MAX_LATER` inputs printed next after it, and taken only when its derivation
reproduces every entry with no mistake and more *telling* entries (three significant
digits or more, not whole: 0.7071, not 2 or 0.5) than its freedom: whole numbers and
halves coincide too easily (a weight twice another). A later block taken as an operand
stays an input. The blocks derived so far are not changed. A vector near a row of a
matrix derived whole is not derived on its own (that would hide a wrong entry); when it
prints the row, at most one entry off, a derivation that takes it takes the row instead
(:func:`.order.inputs_as_rows`), and the article check takes its numbers as the matrix's
(:attr:`.search.Search.reprints`).
"""

from __future__ import annotations

import numpy as np

from .order import inputs_as_rows, is_prose
from .blocks import rows_of
from .evidence import freedom
from .search import MIN_ENTRIES, Search

MAX_LATER = 3               # inputs printed after a block tried as its operands


def small_blocks(search: Search) -> None:
    """Derive, in reading order, the blocks no pass derived, with a margin of one entry."""
    from .. import deadline
    whole = [d for d in search.derived.values() if d.block.shape[0] > 1]
    inputs: set = set()                       # later blocks taken as operands: never derived
    rows: list = []                           # (vector, the matrix whose row it prints)
    search.margin, search.slips = 1, 1
    search.shown |= _echoed_rows(search)
    try:
        for b in list(search.blocks):
            if b.index in search.derived or b.index in search.reprints or b.again >= 0 or b.given \
                    or b.index in inputs:
                continue
            deadline.check(f"{b.path}:{b.line}")   # the one deadline: an end, never a guess
            (level, printed), _, w = max(((_near_row(search, w, b), -k, w) for k, w in enumerate(whole)),
                                         key=lambda t: (t[0][0], t[1]), default=((0, ()), 0, None))
            if level == 2:
                rows.append((b, w))
                search.shown |= {(w.block.index, r, b.line) for r in printed}
            if level:
                continue
            d = _small(search, b, ())
            if d is None:
                d = _small(search, b, _later(search, b))
            if d is not None:
                search.derived[b.index] = d
                inputs |= {o.index for o in d.operands if o.index > b.index}
    finally:
        search.margin, search.slips, search.shown = MIN_ENTRIES, 0, set()
    inputs_as_rows(search)                    # a row printed again and taken as an operand: the row
    for b, w in rows:                         # the others: that row printed again, the matrix's claims
        if b.index not in search.reprints and not _operand(search, b):
            search.reprints[b.index] = w.block.index


def _echoed_rows(search: Search) -> set:
    """(matrix index, row, line) of each row of a block that its echoes print alone after it."""
    return {(m.index, i, p.line) for m in search.blocks for path, p in m.echoes
            if path == m.path and p.shape[0] == 1 and p.line > m.line and m.shape[0] > 1
            for i, r in enumerate(m.printed.values) if r == p.values[0]}


def _operand(search: Search, b) -> bool:
    """Does a derivation take ``b`` (or a row of it) as an operand? Then it stays an input."""
    return any((o.parent or o).index == b.index for d in search.derived.values() for o in d.operands)


def _small(search: Search, b, later: tuple):
    new = {(r.parent.index, r.row, 0) for r in later if r.parent is not None} - search.shown
    search.shown |= new                       # a row printed alone among the later inputs: no choice
    try:
        d = search.derive(b, later=later)
    finally:
        search.shown -= new
    if d is not None and d.matched >= b.floats.size - search.slips and not d.mistake \
            and d.telling_shown() > freedom(d):
        return d
    return None


def _later(search: Search, b) -> tuple:
    """The next :data:`MAX_LATER` blocks after ``b`` that no derivation computes (nor one
    printing a computed block again): inputs shown after their use; and the earlier inputs
    printed again among them ("the biases were [0, 0, 1, 0]"), outside the nearest."""
    def uncomputed(c):
        return not is_prose(c) and c.parent is None and c.index not in search.derived \
            and c.index not in search.reprints and c.again < 0
    after = sorted((c for c in search.blocks if c.index > b.index and c.path == b.path and c.line >= b.line
                    and uncomputed(c)), key=lambda c: c.line)[:MAX_LATER]   # stacks: appended, in reading order here
    if not after:
        return ()
    end = after[-1].line
    again = []
    for c in search.blocks:
        if c.index < b.index and uncomputed(c):
            for path, p in c.echoes:          # the block, or the one row of it printed again
                if c.path == path and b.line < p.line <= end:
                    part = c if p.shape[0] == c.shape[0] else \
                        next((r for r in rows_of(c) if r.printed.values[0] == p.values[0]), None)
                    if part is not None and all(part is not a for a in again):
                        again.append(part)
    return tuple(after + again)


def _near_row(search: Search, w, b) -> tuple[int, tuple]:
    """(How near the vector ``b`` is to a row of the matrix ``w`` derives (its print or its
    value): 2 when it prints one, every non-zero entry but at most one within both prints'
    rounding (two at least; of a matrix printed ten times coarser, its value within the
    vector's own rounding); 1 when half its non-zero entries or more are; else 0; the
    rows of the value it prints entry by entry)."""
    if w.block.shape[1] != b.shape[1] or b.shape[0] != 1:
        return 0, ()
    nonzero = b.floats[0] != 0
    n = int(nonzero.sum())
    if not n:
        return 0, ()
    v = search.value(w.expr, w.operands)
    best, rows = 0, ()
    # a matrix printed much coarser (0.3) than the vector (0.329): its print says nothing of
    # the vector's digits, and its value is judged at the vector's own rounding
    coarse = float(np.max(w.block.half)) > 10 * float(np.max(b.half))
    for m in (w.block.floats, v):
        if m is None or m.shape != w.block.shape or (coarse and m is w.block.floats):
            continue
        with np.errstate(invalid="ignore"):
            near = np.abs(m - b.floats) <= b.half + (0 if coarse else w.block.half) + 1e-9
        best = max(best, int((near & nonzero).sum(axis=1).max()))
        if m is v:
            rows = tuple(int(r) for r in np.flatnonzero(near.all(axis=1)))
    return (2 if best >= max(2, n - 1) else int(2 * best >= n)), rows
