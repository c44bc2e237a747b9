"""What a derivation's match is evidence of (:mod:`.search`): how many choices it made
(:func:`freedom`), which blocks coincide too easily to count (:func:`plain`, :func:`binary`,
:func:`whole`, :func:`one_digit`), a form that changes nothing (:func:`reprints`), the order
of preference among derivations that match (:func:`preference`), and how a value meets a
print: within its rounding (:func:`tight`), exactly (:func:`exact_match`), cut off
(:func:`truncated`), row by row (:func:`rows_whole`), or within a slack that still tells
(:func:`telling_slack`)."""

from __future__ import annotations

import re

import numpy as np

from ..article.tokens import significant_digits
from .blocks import Block

SMALL = 4                   # entries of a block small enough to be reproduced by chance
CARRIED = 4                 # times its operands' rounding a result's print may be off


def freedom(d) -> int:
    """A derivation's choices: its searched ones, and for a block of plain numbers (which
    coincide easily) each operand chosen too."""
    return d.cost + (len(d.operands) if plain(d.block) else 0)


def within(b: Block, bounds: tuple) -> bool:
    """Is every finite entry of ``b`` in [low, high], within its print's rounding?"""
    f, low, high = b.floats, bounds[0], bounds[1]
    ok = ~np.isfinite(f) | ((f >= low - b.half) & (f <= high + b.half))
    return bool(ok.all())


def whole(b: Block) -> bool:
    return bool(np.all(b.floats == np.round(b.floats)))


def binary(b: Block) -> bool:
    """Only 0 and one magnitude (0/1 weights, a mask, a one-hot or permutation matrix)."""
    return len(np.unique(np.abs(b.floats))) <= 2 and 0 in b.floats


def few_whole(b: Block) -> bool:
    """Whole numbers of three magnitudes at most (0, 1 and 2: embeddings and weights of a toy
    example), which sums and products of other such blocks reproduce by chance."""
    return whole(b) and len(np.unique(np.abs(b.floats))) <= 3


def plain(b: Block) -> bool:
    """A small block of whole numbers, or of at most three magnitudes of one decimal at most
    (0, 0.5, 1): one that a product of other small blocks reproduces by chance. (Three
    numbers of four decimals each are not plain: any three numbers are three magnitudes.)"""
    return b.floats.size <= SMALL and (whole(b) or (len(np.unique(np.abs(b.floats))) <= 3
                                                     and bool(np.all((b.half == 0) | (b.half >= 0.05)))))


def named(d) -> int:
    """How many of the derivation's operands the text between the block before and its block
    (prose or program) names by their label, as a word of its own (``Q`` and ``K`` in
    ``STEP 1: Q × Kᵀ``)."""
    near = d.block.stating
    return sum(says_name(near, x) for x in {o.label for o in d.operands if o.label})


def says_name(text: str, name: str) -> bool:
    """Does ``text`` write ``name`` as a word of its own (``W_1`` in ``\\tilde Z W_1``, not in
    ``W_12``)?"""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def reprints(v, operands: tuple, target: Block | None = None) -> bool:
    """Is the value an operand's own (or its vector transposed), or one row of it (a form that
    changes nothing: a softmax renormalised, a product with the identity, a one-hot row
    times a matrix)? Then it derives
    nothing: the block prints that operand.
    Judged at the finer of the two prints, the ``target``'s too (0.1 + 0.01 printed 0.11
    is a change of 0.1)."""
    def half(o):
        return np.minimum(o.half, target.half) if target is not None and o.shape == target.shape \
            else o.half
    if v is None:
        return False
    with np.errstate(invalid="ignore"):
        for o in operands:
            if v.ndim == 2 and v.shape[0] == 1 and o.shape[0] > 1 and o.shape[1] == v.shape[1] and \
                    np.any(np.all(np.abs(o.floats - v) <= o.half * 1.0001 + 1e-9, axis=1)):
                return True                   # a row of it (a one-hot row times it selects one)
            f, h = o.floats, half(o)
            if o.shape != v.shape and o.shape[::-1] == v.shape and 1 in o.shape:
                f, h = f.T, np.asarray(o.half).T      # a vector printed upright: xᵀ, the same numbers
            elif o.shape != v.shape:
                continue
            ok = np.abs(v - f) <= h * 1.0001 + 1e-9 * np.maximum(1, np.abs(f))
            if not ok.all():
                ok |= v == f                      # a mask's −∞ is its own: equal, never near
            if ok.all():
                return True
    return False


def preference(d) -> tuple:
    """The order of preference: most entries, those reproduced within their own print's
    rounding (no operand's rounding needed) counting twice (an entry reproduced only within
    what its operands' rounding may carry is weaker evidence: 0.38 "is" 0.40 so;
    ``softmax(S / √2)`` reproducing seven entries that way does not beat ``softmax(S)``
    reproducing six exactly), then most entries, fewest choices, no mistake, fewest operands,
    most the text names before the block (``Q × Kᵀ`` over a ``K Kᵀ`` that coincides with it),
    the latest printed ones (or printed again just before the block:
    ``softmax(1, 0, 0) = (0.576, …)`` takes the ``(1, 0, 0)`` of its line, an earlier block
    printed again), in the order printed (Q before K: ``Q Kᵀ`` and ``K Qᵀ`` agree where the
    scores are symmetric)."""
    return (-(d.matched + d.tight), -d.matched, d.cost, bool(d.mistake), len(d.operands), -named(d),
            tuple(sorted((-_seen(o, d.block) for o in d.operands))), tuple(o.index for o in d.operands))


def _seen(o, target) -> int:
    """Where operand ``o`` was printed last before ``target``, as a block index: its own, or
    the target's when its numbers are printed again in the text just before the target."""
    since = target.line - target.before.count("\n")
    again = any(path == target.path and since <= p.line <= target.line for path, p in (o.parent or o).echoes)
    return target.index if again and o.index < target.index else o.index


LOOSE = 1 / 4               # of a block's largest magnitude: an operand's slack beyond it tells nothing


def telling_slack(carry: float, scale, target: Block) -> bool:
    """Is the slack an operand's rounding allows (:data:`CARRIED` × ``carry``, by the entry's
    ``scale``) small beside the numbers it is to tell apart? Past :data:`LOOSE` of the block's largest
    magnitude, every print of that size is "reproduced" (0.2 for 0.4 where the operands were
    printed to one decimal): a match that is no evidence."""
    finite = np.isfinite(target.floats)
    if not carry or not finite.any():
        return True
    reach = CARRIED * carry * float(np.max(scale[finite & np.isfinite(scale)], initial=1.0))
    return bool(reach <= LOOSE * float(np.max(np.abs(target.floats[finite]))))


def truncated(v, target: Block) -> bool:
    """Does the block print every entry of ``v`` cut off after its digits, not rounded
    (``0.7302`` for 0.73029…)? Some writers' rule for a whole block, never for one entry; read
    only in prints of three decimals or more (a cut to one or two keeps small sums alike). A
    cut never grows a number: ``1.1e-14`` is no cut of 6.9e-17."""
    p = target.floats
    if not np.all(np.isfinite(v)) or not np.all(np.isfinite(p)) or np.any(target.half > 5e-4):
        return False
    with np.errstate(invalid="ignore"):
        cut = np.abs(v) - np.abs(p)
    return bool(np.all((np.sign(v) == np.sign(p)) | (p == 0)) and
                np.all((cut >= -1e-12 * np.minimum(1, np.abs(v))) & (cut < 2 * target.half * 0.9999)))


ROWS_WHOLE = 2 / 3          # share of a block's rows reproduced whole, every entry: the rest wrong
ROWS_NAMED = 1 / 2          # the same, of rows the text names as one matrix's (``h[0] = […]``, ``h[1] = […]``)
MANY = 4                    # magnitudes a block prints for its rows to tell


def rows_whole(d: Derivation) -> bool:
    """Are :data:`ROWS_WHOLE` of ``d``'s rows (three rows at least, each of two entries or
    more, :data:`MANY` magnitudes in the block) reproduced entry by entry, the misses all
    in the other rows? Of rows the text names one by one as one matrix's (a stack of them,
    ``named``), two rows are enough and :data:`ROWS_NAMED` of them."""
    rows, cols = d.block.shape
    named = getattr(d.block, "named", False)
    if d.missed is None or rows < (2 if named else 3) or cols < 2 or len(d.missed) != d.block.floats.size - d.matched \
            or len(np.unique(np.abs(d.block.floats))) < MANY:
        return False                             # 0, 0.5 and 1: rows coincide too easily
    return rows - len({i for i, _ in d.missed}) >= (ROWS_NAMED if named else ROWS_WHOLE) * rows


def one_digit(b: Block) -> bool:
    """Does ``b`` print every entry with one significant digit at most (``0.1``, ``0``, ``3``)?"""
    return all(significant_digits(t.strip()) <= 1 for row in b.printed.texts for t in row)


def exact_match(v, target: Block, ok) -> bool:
    """Is every entry of ``v`` that ``ok`` marks reproduced the printed number itself?"""
    if v is None or ok is None or v.shape != target.shape:
        return False
    with np.errstate(invalid="ignore"):
        same = (np.abs(v - target.floats) <= 1e-9 * np.maximum(1, np.abs(v))) | (v == target.floats)
    return bool(np.all(same | ~ok))


def tight(v, target: Block) -> int:
    """The entries of ``v`` that print as ``target`` prints them, within half a unit of the
    last digit and nothing more."""
    if v is None or v.shape != target.shape:
        return 0
    with np.errstate(invalid="ignore"):
        return int(np.sum(np.abs(v - target.floats) <= target.half * 1.0001 + 1e-12))
