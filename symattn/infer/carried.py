"""Rows normalised by the text's own standard deviations, right or wrong.

An author who works LayerNorm by hand prints each row's mean and standard deviation, then
divides the row's deviations by the standard deviation *as printed*. When one of those is
wrong, the normalised row follows from it: no derivation from the input reproduces the
block, yet it is the chain's normalised step. :func:`carried` finds such a block (the
deviations of most rows divided by a number printed in the part before it give the row),
so that the standard deviation becomes a step of the inferred spec and the article check
flags the wrong ones and the rows computed from them (:mod:`.chains`).
"""

from __future__ import annotations

import numpy as np

from .blocks import Block

CARRIED = 2                # half-units a hand-divided entry may be off


def carried(b: Block, dev, window: list, taken: set, nexts: list, search, ddof: str,
            ddofs: tuple = ("0", "1"), most: float = 3 / 4):
    """(the block, numbers explained) of a later block of ``b``'s shape whose rows are
    ``b``'s deviations divided each by a number printed in ``b``'s part (the text's own
    standard deviations, right or wrong: the article check judges them and the rows
    computed from them), when most rows are, and more of those numbers are the
    standard deviation with this divisor than with the other (at least one); else None.
    ``dev``: ``b``'s deviations (rows × cols); ``ddofs``: the divisors tried; ``most``: the
    share of rows that must be."""
    stds = {d: search.value(f"sqrt(var({b.name}, ddof={d}))", (b,)) for d in ddofs}
    if dev is None or any(v is None for v in stds.values()):
        return None
    for target in nexts:
        if target.shape != b.shape:
            continue
        picked = {}
        for i in range(b.shape[0]):
            k = divisor(dev[i], target.floats[i], target.half[i], window, taken | set(picked.values()))
            if k is not None:
                picked[i] = k
        if len(picked) < max(1 if b.shape[0] == 1 else 2, most * b.shape[0]):   # a row: its entries
            continue
        exact = {d: sum(abs(window[k].value - float(np.ravel(v)[i])) <= window[k].half * (1 + 1e-9)
                        for i, k in picked.items()) for d, v in stds.items()}
        other = max(n for d, n in exact.items() if d != ddof)
        if exact[ddof] < 1 or exact[ddof] <= other:
            continue
        taken.update(picked.values())
        return target, len(picked) + int(np.count_nonzero(target.floats))
    return None


def divisor(dev: np.ndarray, row: np.ndarray, half: np.ndarray, window: list, taken: set):
    """The first number of ``window`` (not ``taken``) that the deviations ``dev`` divided
    by give the printed ``row`` (within one unit of its last digit: a hand division of
    rounded numbers; two non-zero entries at least)."""
    live = np.abs(dev) > 1e-12
    if np.any(np.abs(row[~live]) > half[~live]) or live.sum() < 2:
        return None
    for k, n in enumerate(window):
        if k not in taken and n.value > 0 and np.all(
                np.abs(dev[live] / n.value - row[live]) <= CARRIED * half[live] * (1 + 1e-9) + 1e-12):
            return k
    return None
