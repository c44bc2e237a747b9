"""Masked and renormalised weights: what the search's forms cannot say by themselves.

- **Scores masked with −∞.** A printout of scores masked above the diagonal
  (``masked_fill(triu(ones, 1).bool(), -inf)``) shows the masking step; the scores
  themselves are never printed unmasked. Such a block is split as a hand-written spec
  writes it: an input of its finite entries (0 where masked: the mask replaces them) and
  the step ``scores + causal_mask(n)``, which the search derives (the mask's declaration,
  :mod:`symattn.ops.masks`): the −∞ are claims of the mask, checked. When an earlier
  block prints the scores themselves, nothing is split: the search finds ``S +
  causal_mask(n)``. Only the causal pattern, exactly: any other pattern of −∞ is left as
  printed.

- **One row masked.** A worked example for one query prints its row of scores with the
  positions after it −∞: the row ``i`` of the causal mask added to the scores row
  (``s + causal_mask(3)[1]``, :func:`masked_row`). Where the −∞ begin places the row: no
  choice. Any other pattern of −∞ is left as printed.

- **Masked as the text says.** Square weights printed after a sentence saying the future is
  masked (``causal mask``, ``−∞``; not negated: "no mask", "without masking") are tried
  only masked (:func:`says_masked`, :func:`masked_text`): weights that a softmax of the
  unmasked scores reproduces are then the catalogue's mistake "0 instead of −∞ in the
  mask", not a correct unmasked step. A text that speaks of masks elsewhere changes nothing.

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

import re

from ..ops.masks import BIG_MASK

MAX_SUMMED = 6              # nearest earlier computed blocks tried
UNMASKED = "unmasked"       # the form of a block of scores split from their masked print


_FILL_POWER = rf"(?:[{len(str(-BIG_MASK)) - 1}-9]|[1-9]\d)\b"     # -1e9, -10^9: at most BIG_MASK
_MASK_SAID = re.compile(r"\bcausal\b|\bmask|−∞|-∞|-\s*\\infty|-inf\b|マスク|掩码"
                        rf"|-\s*1e\+?{_FILL_POWER}|-\s*10\s*\^\s*\{{?\s*{_FILL_POWER}", re.I)
_NEGATED = re.compile(r"\b(?:no|not|without|unmasked|never|instead)\b|n't\b|ません|ない|不|没有", re.I)
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n")
MASKED_OPS = ("softmax", "weights")  # the forms a mask said goes into


NEAR = 24                   # characters before a mask's word that a negation of it stands in


def says_masked(text: str) -> bool:
    """Does a sentence of ``text`` say the future is masked (no negation just before the
    word: "no mask", "without masking", "not masked"; "the causal mask: token i must not see
    …" says it)?"""
    return any(not _NEGATED.search(t[max(0, m.start() - NEAR):m.end() + 4])
               for t in _SENTENCE.split(text) for m in _MASK_SAID.finditer(t))


def masked_text(form, text: str, operands: tuple, shape: tuple) -> str | None:
    """The derivation ``text`` of a square block with the causal mask the text says, or None
    when it has one or the form takes none (:data:`MASKED_OPS`)."""
    n = shape[0]
    if form.op not in MASKED_OPS or shape[0] != shape[1] or n < 2 or "mask" in text:
        return None
    if form.op == "weights":
        return text[:-1] + f", mask=causal_mask({n}))"
    first = operands[0].name
    if not text.startswith(f"softmax({first}"):
        return None
    end = text.find(",") if "," in text else len(text) - 1      # the scores: softmax's first argument
    return f"softmax({text[8:end]} + causal_mask({n}){text[end:]}"


def zero_masked(form, text: str, target) -> str | None:
    """``S + causal_mask(n)`` for a square block printed with 0 exactly above the diagonal
    (and scores on and below it) where the text says the future is masked: the mask it
    means, printed with a 0 for each −∞ (:func:`zero_filled`), or None."""
    from ..ops.masks import CAUSAL_MASK
    f = target.floats
    n, m = f.shape
    if form.op != CAUSAL_MASK.name or n != m or n < 2 or not text.endswith(f"causal_mask({n})"):
        return None
    upper = future(n)
    return text if np.all(f[upper] == 0) and np.count_nonzero(f[~upper]) >= 2 else None


ZERO_FILLED = "0 instead of −∞ in the mask"


def zero_filled(search, text: str, operands: tuple, target, cost: int):
    """``text`` (scores with the causal mask) as the derivation of a block printed with 0
    where the mask puts −∞ (``masked_fill(…, 0)``), when its value with those entries 0
    reproduces the print; else None. The step stays the mask the text says: the check
    then finds each 0 wrong."""
    from dataclasses import replace
    v = search.value(text, operands)
    if v is None or v.shape != target.shape or not np.isneginf(v).any():
        return None
    cand = search.candidate(target, text, operands, cost + 1, "", np.where(np.isneginf(v), 0.0, v))
    return replace(cand, mistake=ZERO_FILLED) if search._accepts(cand, target.floats.size) else None


def mask_fill(values, f: np.ndarray):
    """The one large negative number (at most ``BIG_MASK``: ``masked_fill(…, -1e9)``) a block
    of ``values`` (``f``: as floats) prints exactly where a causal mask puts −∞ (above the
    diagonal of a square block, the end of one row), or None."""
    big = np.isfinite(f) & (f <= BIG_MASK)
    n, m = f.shape
    if not big.any() or big.all() or np.isneginf(f).any():
        return None
    if n == m and n >= 2:
        hidden = future(n)
    elif n == 1:
        hidden = np.arange(m) >= int(np.argmax(big[0]))
    else:
        return None
    fills = {values[i][j] for i, j in zip(*np.nonzero(big))}
    return fills.pop() if np.array_equal(big, hidden) and len(fills) == 1 else None


def _causal(f: np.ndarray) -> bool:
    """−∞ exactly above the diagonal of a square block, finite on and below it."""
    n, m = f.shape
    return n == m and n >= 2 and bool(np.all(np.isneginf(f) == future(n)))


def future(n: int) -> np.ndarray:
    """The entries an n×n causal mask hides: those above the diagonal."""
    return np.triu(np.ones((n, n), dtype=bool), 1)


def unmasked(b, index: int, earlier: list = (), roots: tuple = ()):
    """The block of scores a causally masked print ``b`` shows (0 where masked), as an
    input block at ``index`` printed on ``b``'s line; None for any other block, and when
    an ``earlier`` block prints those scores, or those divided by the root of one of
    ``roots`` (the text's ``√3``): the search adds the mask to it."""
    import dataclasses
    from fractions import Fraction
    from ..article.cells import Printed
    if not np.any(np.isneginf(b.floats)) or not _causal(b.floats):
        return None
    p, masked = b.printed, np.isneginf(b.floats)
    if any(e.shape == b.shape and np.array_equal(e.floats[~masked], b.floats[~masked]) for e in earlier):
        return None
    if any(e.shape == b.shape and np.all(np.abs(e.floats[~masked] / np.sqrt(int(k)) - b.floats[~masked])
                                         <= b.half[~masked] * 1.0001 + 1e-12)
           for k in roots for e in earlier):
        return None                            # S/√3 masked, S printed before: the search adds both
    values = tuple(tuple(Fraction(0) if masked[i, j] else v for j, v in enumerate(r))
                   for i, r in enumerate(p.values))
    texts = tuple(tuple("0" if masked[i, j] else t for j, t in enumerate(r))
                  for i, r in enumerate(p.texts))
    half = np.where(masked, b.half[~masked].max(), b.half)
    return dataclasses.replace(b, printed=Printed(p.name, p.line, values, texts, p.rows, UNMASKED),
                               index=index, floats=np.where(masked, 0.0, b.floats), half=half,
                               label="", again=-1)


def is_unmasked(b) -> bool:
    """A block split from a masked print (an input unless :func:`.scores.scores_behind` derives it)."""
    return b.printed.form == UNMASKED


def name_unmasked(found: list, used: set) -> None:
    """Each split block named after the masked print it comes from (``masked_scores``),
    a name no other block has (``used``)."""
    for k, b in enumerate(found):
        if is_unmasked(b) and k + 1 < len(found):
            name, n = f"{found[k + 1].name}_scores", 2
            while name in used:
                name, n = f"{found[k + 1].name}_scores_{n}", n + 1
            used.add(name)
            b.name = name


MAX_MASKED = 12            # nearest earlier rows of scores tried under one masked row


def masked_row(search, target, rows: list):
    """``s + causal_mask(n)[i]`` for a one-row block whose entries after the ``i``-th are
    all −∞ (and no other), ``s`` an earlier row of scores (a block or a matrix's row), the
    nearest first, through the mask's declared table form; the best the search accepts, or None."""
    f = target.floats[0]
    masked, n = np.isneginf(f), f.size
    k = int((~masked).sum())
    if target.shape[0] != 1 or not 0 < k < n or masked[:k].any():
        return None
    from ..ops.masks import CAUSAL_MASK
    form = next((g for g in search.forms if g.op == CAUSAL_MASK.name and g.operands), None)
    if form is None:
        return None
    best = None
    for s in [r for r in rows if r.shape == target.shape and r.index != target.index][:MAX_MASKED]:
        text = form.template.format(s.name, **{p: n for p, _ in form.sizes}) + f"[{k - 1}]"
        cand = search.candidate(target, text, (s,), form.cost - 1, form.template)   # the −∞ place the row
        if search._accepts(cand, n) and (best is None or search.rank(cand) < search.rank(best)):
            best = cand
    return best


def rows_sum_to_one(b) -> bool:
    """Does each row of the block sum to 1 as printed (within its prints' half units)?"""
    return bool(np.all(np.abs(b.floats.sum(axis=1) - 1) <= b.half.sum(axis=1) + 1e-9))


def row_sums(search, target, earlier: list):
    """``sum(W)`` (as a column, or a row ``(sum(W)).T``) for a block of ones, or None."""
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
        if not rows_sum_to_one(b):
            continue                          # not weights: its rows do not sum to 1
        text = f"sum({b.name})" if column else f"(sum({b.name})).T"
        d = search.candidate(target, text, (b,), 2, "sum({0})")
        if d.matched == n and search._accepts(d, n):
            return d
    return None


def filled(search) -> None:
    """Each derived block printed with a large negative number for the mask's −∞
    (``Block.fill``) takes that number as its mask's fill: ``causal_mask(3, fill=-1000000000)``,
    so each is checked as printed."""
    from dataclasses import replace
    for i, d in list(search.derived.items()):
        if d.block.fill is not None and "causal_mask(" in d.expr:
            expr = re.sub(r"causal_mask\((\d+)\)", rf"causal_mask(\1, fill={d.block.fill})", d.expr)
            search.derived[i] = replace(d, expr=expr)
