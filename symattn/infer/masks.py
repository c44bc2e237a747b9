"""Masked and renormalised weights: what the search's forms cannot say by themselves.

- **Row sums.** Articles print the sums of a weights matrix's rows to show they are 1
  (``attn_weights.sum(dim=-1)`` → ``[1.0000, 1.0000, …]``), after a softmax or after
  masked weights are renormalised. A block of equal numbers is no evidence for the search
  (any form gives a constant), so it is derived here: the row sums of the nearest earlier
  *computed* block of as many rows whose rows sum to 1 (its exact rows then sum to exactly
  1: a claim about that step). A block of ones the text computes from nothing computed
  stays unverified.
"""

from __future__ import annotations

import numpy as np

MAX_SUMMED = 6              # nearest earlier computed blocks tried


def row_sums(search, target, earlier: list):
    """``sum(W)`` (as a column, or a row ``(sum(W)).T``) for a block of ones, or None."""
    from .search import Derivation
    f = target.floats
    if f.size < 2 or 1 not in target.shape or not np.all(np.abs(f - 1) <= target.half + 1e-12):
        return None
    n = f.size
    column = target.shape[1] == 1
    tried = 0
    for b in earlier:
        d = search.derived.get(b.index)
        if d is None or b.parent is not None or b.shape[0] != n or b.shape[1] < 2:
            continue
        tried += 1
        if tried > MAX_SUMMED:
            break
        if np.any(np.abs(b.floats.sum(axis=1) - 1) > b.half.sum(axis=1) + 1e-9):
            continue                          # not weights: its rows do not sum to 1
        text = f"sum({b.name})" if column else f"(sum({b.name})).T"
        v = search.value(text, (b,))
        m, err = search.matched(v, target, (b,))
        d = Derivation(target, text, (b,), m, 2, form="sum({0})", error=err)
        if m == n and search._accepts(d, n):
            return d
    return None
