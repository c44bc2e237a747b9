"""What the text says a step is, and the catalogue's mistakes of it (:mod:`.search`).

The text states a head's width or a root (``d_k = 2``, ``\\sqrt{2}``: :func:`roots_said`),
that scores are scaled (a softmax of unscaled scores is then tried scaled:
:func:`needs_scale`, :func:`scaled`), that the future is masked (:mod:`.masks`), and a
projection ``X W_K`` it never transposes (:func:`weight_transposed`). A derivation of that
form which does not reproduce the print is kept when a common mistake of it does
(:func:`mistaken`: the catalogue of :mod:`symattn.claims.diagnosis.computation`): the
exact check gives the diagnosis.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

from ..article.labels import TRANSPOSE
from ..spec import expr as E
from .blocks import Block, roots, stated, states_scale
from .forms import MOST, SCORES
from .masks import masked_text, zero_masked

HEAD_WIDTH = ("d_k", "d_{k}", "dk", "d_head", "head_dim", "head_size")   # a head's width, as stated
MAX_VARIANTS = 24           # mistakes of one derivation tried


def as_said(form, text: str, operands: tuple, shape: tuple, target: Block, derived: dict,
            masked: bool) -> str | None:
    """The derivation the text says in place of ``text`` (``masked``: the text before the
    block says the future is masked; a weight it never transposes), or None."""
    said = masked_text(form, text, operands, shape) if masked else None
    if said is None and masked:
        said = zero_masked(form, text, target)
    if said is None and form.template == SCORES and weight_transposed(operands, target, derived):
        said = f"{operands[0].name} @ {operands[1].name}"
    return said


def needs_scale(search, form, operands: tuple, target: Block) -> bool:
    """An unscaled softmax of a scores product the text says is scaled, or those scores
    masked (``S + causal_mask(3)`` after "divide by √2, then set the future to −∞")."""
    from ..ops.masks import CAUSAL_MASK
    if form.op == "" or form.scaled or len(operands) != 1 or not (
            form.op == CAUSAL_MASK.name or any(f.scaled for f in search.forms if f.op == form.op)):
        return False
    d = search.derived.get(operands[0].index)
    return d is not None and d.form == SCORES and states_scale(target.stating)


def scaled(search, text: str, operands: tuple, target: Block, cost: int):
    """The scaled form of a forced softmax (``softmax(S)`` → ``softmax(S / sqrt(k))``),
    and, if its value is not the print, the common mistake of it that is."""
    k = search.scales([o for o in search.blocks if o.index < target.index][::-1], target.stating, operands)
    if not k:
        return None
    text = text.replace(operands[0].name, f"{operands[0].name} / sqrt({k[0]})", 1)
    cand = search.candidate(target, text, operands, cost, "")
    if cand.matched >= MOST * target.floats.size:
        return cand
    return mistaken(search, text, operands, target, cost)


def mistaken(search, text: str, operands: tuple, target: Block, cost: int):
    """``text`` as the derivation of a block that one of its common mistakes (the
    catalogue: :mod:`symattn.claims.diagnosis.computation`) reproduces, or None; of three
    operands or more, one block in two roles (``swiglu(x, W, W, V)``), every entry."""
    from ..claims.diagnosis.computation import computation_mistakes, variants
    tree, spec = E.parse(text), _spec(search, operands)
    share = 1.0 if len(set(map(id, operands))) < len(operands) > 2 else MOST   # one block in two roles
    for desc, alt in itertools.islice(variants(tree, computation_mistakes(spec)), MAX_VARIANTS):
        v = search.value(E.unparse(alt), operands)
        if v is None:                   # not evaluated: reproduces nothing
            continue
        cand = replace(search.candidate(target, text, operands, cost + 1, "", v), mistake=desc)
        if search._accepts(cand, target.floats.size, share):
            return cand
    return None


def _spec(search, operands: tuple):
    """A spec of the operands alone (what the catalogue of mistakes reads)."""
    from ..spec.load import Spec
    env = {(o.parent or o).name: search.tensor(o) for o in operands}
    return Spec("<infer>", "infer", "", "", "half-up", None, inputs=env, tensors=dict(env))


_TRANSPOSE = re.compile(TRANSPOSE + r"|(?i:transpos)|转置|転置")


def weight_transposed(operands: tuple, target: Block, derived: dict) -> bool:
    """``X @ W.T`` of a square weight the text names (``W_K``) and never transposes: what it
    writes is ``X W_K``, so the transpose is tried as that product's mistake."""
    from .stated import role
    w = operands[1]
    return w.parent is None and w.index not in derived and w.shape[0] == w.shape[1] > 1 \
        and role(w.label or w.name) is not None and not _TRANSPOSE.search(target.stating)


def roots_said(text: str) -> list[str]:
    """The d_k the text states (``d_k = 2``) and the numbers it takes a root of (``\\sqrt{2}``)."""
    return stated(text, HEAD_WIDTH) + roots(text)


def one_head(operands: tuple) -> bool:
    """Are the operands the same columns (one head, ``Q[:, 2:4]`` and ``K[:, 2:4]``) of
    different blocks?"""
    heads = {o.name[len(o.parent.name):] if o.parent is not None and o.row < 0 else None for o in operands}
    return None not in heads and len(heads) == 1 and len({o.index for o in operands}) == len(operands)


MAX_FITTED_ROOT = 4096      # d_k of sqrt(d_k) read off a softmax's print: 2 … this


def fitted_root(weights: Block, scores: Block) -> str | None:
    """The d_k that ``softmax(scores / sqrt(d_k))`` prints ``weights`` with, read off the
    prints when the text gives none (``softmax(QKᵀ/√d_k)`` under a table of scores): in a
    row, two weights w, v well above their rounding give √d_k = (s − t) / ln(w / v); the
    median over every such pair, squared, must be a whole number within 2 % (else None).
    One parameter, read off and then checked like any: the search still needs the block
    reproduced entry by entry."""
    import numpy as np
    if weights.shape != scores.shape or weights.shape[1] < 2:
        return None
    roots = []
    for w, h, s in zip(weights.floats, weights.half, scores.floats):
        sure = [j for j in range(len(w)) if np.isfinite(s[j]) and w[j] > 200 * h[j] and w[j] > 0]
        for j, l in itertools.combinations(sure, 2):
            ratio = float(np.log(w[j] / w[l]))
            if abs(ratio) > 0.05:
                roots.append((s[j] - s[l]) / ratio)
    if len(roots) < 3:
        return None
    root = float(np.median(roots))
    if root <= 0:                        # larger scores, smaller weights: no softmax of them
        return None
    d = root ** 2
    n = round(d)
    return str(n) if 2 <= n <= MAX_FITTED_ROOT and abs(d - n) <= 0.02 * n else None
