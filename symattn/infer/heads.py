"""The attention chain at the article's grain: a head computed from weights the text states
by name, its steps carried in the inferred spec even where only some of their entries are
printed (as lone numbers in the prose: ``[1, 0] · [0, 1] = 0``, ``softmax([1, 0]) ≈ [0.73, 0.27]``).

A head is the weights of one head number (:func:`symattn.infer.stated.role`: ``W_Q1``,
``W_K1``, ``W_V1``; one matrix may be all three) and the chain of the multi-head
attention declaration (:mod:`symattn.ops.multi_head`), row vectors:

    Q = X @ W_Q,  K = X @ W_K,  V = X @ W_V,  S = Q @ K.T,  A = softmax(S [/ sqrt(d_k)]),
    head = A @ V

The first printed block after the head's weights that the chain reproduces (on an earlier
block X that is no weight) is that head's output. The weights' roles come from their names,
not from search: the chain's freedom is the choice of X and of the scale (unscaled unless
the text from the weights to that block states a root:
:func:`symattn.infer.blocks.states_scale`), and it must reproduce
more entries than that (:data:`MIN_ENTRIES`). It replaces a block's derivation found by the
generic search only where that one does not reach the head's weights (a coincidence such
as ``softmax(X)`` of an identity X); a block the search computes through the weights
already (each step printed) keeps its derivation.

A step of the chain printed after all (Q, K, V or the weights as blocks between the head's
weights and its output, in the chain's order: small whole blocks that the generic search
leaves alone as too easily reproduced) is that block, computed by its step.

After the heads, the output projection: a block reproduced by ``C @ W_O`` (or ``C @ W_O.T``)
of a concatenation ``C`` of blocks and a weight of role ``o``, every entry (a block of one
value too: the weight is the text's, not searched).
"""

from __future__ import annotations

import re
from itertools import islice

from .blocks import Block, states_scale
from .order import MAX_OPERANDS
from .search import MIN_ENTRIES, MOST, Derivation, Search
from .stated import fresh, role

PARTS = ("Q", "K", "V", "S", "A")
MAX_TARGETS = 24            # blocks after a head's weights (or a concatenation) tried as its output


def nearest(search: Search, target: Block, fits) -> list[Block]:
    """The earlier blocks that ``fits`` accepts, the nearest first, at most MAX_OPERANDS."""
    return list(islice((b for b in reversed(search.blocks) if b.index < target.index and fits(b)),
                       MAX_OPERANDS))


def _heads(blocks: list[Block]) -> list[tuple[str, dict]]:
    """(head number, {role: weight block}) of each head whose q, k and v weights are stated."""
    heads: dict = {}
    for b in blocks:
        for name in b.given:
            r = role(name)
            if r is not None and r[0] in "qkv":
                heads.setdefault(r[1], {}).setdefault(r[0], b)
    return [(h, w) for h, w in heads.items() if set(w) == {"q", "k", "v"}]


def lineage(search: Search, d: Derivation):
    """``d`` and every derivation its block is computed from, through the derived operands."""
    todo, seen = [d], set()
    while todo:
        d = todo.pop()
        yield d
        for o in (o.parent or o for o in d.operands):
            if o.index not in seen and o.index in search.derived:
                seen.add(o.index)
                todo.append(search.derived[o.index])


def _reaches(search: Search, d: Derivation, weights: set) -> bool:
    """Does the derivation compute its block through a projection by one of ``weights``
    (block indexes): itself or a derivation it is computed from a product with one?"""
    return any("@" in x.expr and any((o.parent or o).index in weights for o in x.operands)
               for x in lineage(search, d))


def _names(search: Search, head: str, k: int) -> dict:
    """Names of the head's unprinted steps (``Q1``, ``K1``…), none a block's."""
    used = {b.name for b in search.blocks}
    for d in search.derived.values():
        used |= {n for n, _ in d.steps}
    tag = head or str(k + 1)
    return {p: fresh(f"{p}{tag}", used) for p in PARTS}


def _chain(x: str, w: dict, scale: str | None) -> str:
    div = f" / sqrt({scale})" if scale else ""
    return f"softmax(({x} @ {w['q'].name}) @ ({x} @ {w['k'].name}).T{div}) @ ({x} @ {w['v'].name})"


def _steps(x: str, w: dict, scale: str | None, names: dict) -> tuple:
    div = f" / sqrt({scale})" if scale else ""
    return ((names["Q"], f"{x} @ {w['q'].name}"), (names["K"], f"{x} @ {w['k'].name}"),
            (names["V"], f"{x} @ {w['v'].name}"), (names["S"], f"{names['Q']} @ {names['K']}.T"),
            (names["A"], f"softmax({names['S']}{div})"))


def _scales(search: Search, target: Block, w: dict) -> list:
    """The scales tried, the text's first: none, then sqrt(d_k); sqrt(d_k) first where
    the text from the weights to the target states a root."""
    root = str(w["k"].shape[1])
    start = min(b.index for b in w.values())
    text = "\n".join(b.before for b in search.blocks if start < b.index <= target.index)
    return [root, None] if states_scale(text) else [None, root]


def head_output(search: Search, w: dict, head: str, k: int) -> Derivation | None:
    """The derivation of the first block after the weights ``w`` that their chain reproduces."""
    weights = {b.index for b in w.values()}
    after = max(weights)
    d_in, d_v = w["q"].shape[0], w["v"].shape[1]
    if w["k"].shape[0] != d_in or w["v"].shape[0] != d_in or w["q"].shape[1] != w["k"].shape[1]:
        return None
    for target in islice((b for b in search.blocks if b.index > after and not b.given), MAX_TARGETS):
        current = search.derived.get(target.index)
        if current is not None and _reaches(search, current, weights):
            continue
        n = target.floats.size
        for x in nearest(search, target, lambda b: not b.given and b.shape == (target.shape[0], d_in)
                         and target.shape[1] == d_v):
            for cost, scale in enumerate(_scales(search, target, w), start=1):
                operands = (x, *{w[r].index: w[r] for r in "qkv"}.values())
                v = search.value(_chain(x.name, w, scale), operands)
                m, err = search.matched(v, target, operands)
                freedom = cost + 1                     # the choice of X, of the scale
                if m >= max(MOST * n, freedom + MIN_ENTRIES) and (current is None or m >= current.matched):
                    names = _names(search, head, k)
                    return Derivation(target, f"{names['A']} @ {names['V']}", operands, m, cost,
                                      form="chain", error=err, steps=_steps(x.name, w, scale, names))
    return None


def _printed_steps(search: Search, d: Derivation, pool: tuple) -> None:
    """The head's steps that are printed after all (Q, K, V, the weights… as blocks between
    its weights and its output, in the chain's order, every entry reproduced or all but one
    of four or more: a slip the check then diagnoses): each such block computed by its step
    (its name, its line), the steps before it that print nothing carried with it."""
    full: dict = {}
    for name, expr in d.steps:               # each step on X and the weights alone
        full[name] = "(" + _substitute(expr, full) + ")"
    after = max(b.index for b in pool[1:])
    last, new = after, {}
    for name, _ in d.steps:
        v = search.value(full[name], pool)
        b = next((b for b in search.blocks if last < b.index < d.block.index and not b.given
                  and b.index not in search.derived and v is not None and b.shape == v.shape
                  and search.matched(v, b, pool)[0] >= b.floats.size - (b.floats.size >= 4)), None)
        if b is not None:
            new[name], last = b, b.index
    if not new:
        return
    names = {n: b.name for n, b in new.items()}
    pending, blocks = [], {b.name: b for b in pool}
    for name, expr in d.steps:
        expr = _substitute(expr, names)
        if name in new:
            b = new[name]
            texts = [expr] + [e for _, e in pending]
            search.derived[b.index] = Derivation(b, expr, _refs(texts, blocks), b.floats.size, 1,
                                                 form="chain", steps=tuple(pending))
            search.reprints.pop(b.index, None)
            blocks[b.name], pending = b, []
        else:
            pending.append((name, expr))
    d.expr = _substitute(d.expr, names)
    d.steps = tuple(pending)
    d.operands = _refs([d.expr] + [e for _, e in pending], blocks)


def _substitute(text: str, names: dict) -> str:
    """``text`` with each whole name in ``names`` replaced by its value."""
    if not names:
        return text
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")(?![\w])")
    return pattern.sub(lambda m: names[m.group(1)], text)


def _refs(texts: list, blocks: dict) -> tuple:
    """The blocks (by name) the texts refer to, each once."""
    words = set(re.findall(r"[A-Za-z_]\w*", " ".join(texts)))
    return tuple(b for n, b in blocks.items() if n in words)


def _projection(search: Search, outs: list) -> None:
    """The block after a concatenation ``C`` that ``C @ W_O`` (or its transpose) reproduces."""
    w_o = [b for b in search.blocks if any((role(n) or ("",))[0] == "o" for n in b.given)]
    concats = [d.block for d in search.derived.values() if d.expr.startswith("concat(")
               and any(o.index in outs for o in d.operands)]
    for c in concats:
        for w in w_o:
            for target in islice((b for b in search.blocks if b.index > c.index and not b.given
                                  and b.index not in search.derived), MAX_TARGETS):
                for cost, form in enumerate((f"{c.name} @ {w.name}", f"{c.name} @ {w.name}.T"), start=1):
                    v = search.value(form, (c, w))
                    m, err = search.matched(v, target, (c, w))
                    if m == target.floats.size and m >= cost + MIN_ENTRIES:
                        search.derived[target.index] = Derivation(target, form, (c, w), m, cost,
                                                                  form="projection", error=err)
                        return


def attention_heads(search: Search) -> None:
    """The heads of stated weights, and their output projection, into ``search.derived``."""
    outs = []
    for k, (head, w) in enumerate(_heads(search.blocks)):
        d = head_output(search, w, head, k)
        if d is not None:
            search.derived[d.block.index] = d
            _printed_steps(search, d, d.operands)
            search.reprints.pop(d.block.index, None)
            outs.append(d.block.index)
    if outs:
        _projection(search, outs)
