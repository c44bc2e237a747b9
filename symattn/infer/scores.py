"""The scores behind a causally masked print.

A printout of scores masked with ``-inf`` (``masked_fill(mask, float('-inf'))``) is split
into its scores and the mask (:func:`.masks.unmasked`); when no earlier block prints those
scores, they are the scaled product of an earlier pair of blocks or an input.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .blocks import telling
from .forms import SCORES
from .masks import future

MAX_PAIRS = 24              # (queries, keys) pairs of earlier blocks tried behind a masked print


def scores_behind(search, target, earlier: list):
    """``Q @ K.T`` or ``Q @ K.T / sqrt(k)`` for the scores split from a causally masked print
    (``target``, 0 where masked), over the nearest :data:`MAX_PAIRS` pairs of earlier
    blocks, when it reproduces every finite entry (all but one of four or more: the check
    then calls that one wrong) and more telling ones (:func:`.blocks.telling`) than its
    freedom by the search's margin. A masked print is scores by what it is: the form is
    no choice, the pair is one, and so is a root other than the keys' width √d_k or one the
    text before it states (the masked positions are the mask's, never compared). None: the
    scores stay an input."""
    n, hidden = target.shape[0], future(target.shape[0])
    k = int((~hidden).sum())
    said = set(search.said(target.stating))
    best, pairs = None, 0
    for q in earlier:
        for key in earlier:
            if q.shape[0] != n or key.shape != q.shape or q.shape[1] < 2:
                continue
            pairs += 1
            if pairs > MAX_PAIRS:
                return best
            roots = [None] + search.scales(earlier, target.stating, (q, key))
            for root in roots:
                text = SCORES.format(q.name, key.name) + ("" if root is None else f" / sqrt({root})")
                v = search.value(text, (q, key))
                if v is None or v.shape != target.shape:
                    continue
                shown_v = np.where(hidden, 0.0, v)      # the split prints 0 where masked
                m = search.matched(shown_v, target, (q, key))[0] - int(hidden.sum())
                cost = 1 + (root not in said | {None, str(key.shape[1])})
                shown = telling(target) - (k - m)
                if m < k - (k >= 4) or shown - cost < search.margin:
                    continue
                cand = replace(search.candidate(target, text, (q, key), cost, SCORES, shown_v), matched=m)
                if best is None or search.rank(cand) < search.rank(best):
                    best = cand
    return best
