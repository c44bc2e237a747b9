"""Per-token vectors printed one by one that stack into a matrix the article never prints whole.

An article computes the key of each token on a line of its own (``K_I = H_I W_K =
[0.146, 1.103]``, ``K_love = … = [0.032, 1.210]``, …) and then uses the keys together
(``q · K_j`` for every token). For each product of two printed blocks, one of several
rows (``H @ W_K``), when every row of its value is printed as a vector of the prose
(:mod:`.vectors`) within print rounding (as :meth:`Search.matched` allows), those vectors,
stacked in row order, are proposed as one more block, placed right after the last of them
and of the product's operands: results are often printed before what they are computed
from (a row of the output in a sentence, the weights' table after it). It is a proposal only: the search derives it like any other block (it is computed
only if a derivation reproduces it, usually that product), and later steps may take it
whole (``q @ K.T``). The vectors stay candidates of their own.
"""

from __future__ import annotations

import re

import numpy as np

from ..article.cells import Printed
from .blocks import Block, printed_block, spec_name
from .order import is_prose
from .stated import fresh

MIN_ROWS = 2                # a stack is at least this many vectors
MAX_PAIRS = 400             # products tried (the nearest pairs first): bounded by counts
MAX_STACKS = 16
PRODUCT = "_0 @ _1"         # the spec language's product (forms.OPERATORS)
WEIGHTS = "softmax(_0)"     # the weights of a block of scores, row by row


def stack_rows(search) -> None:
    """Add to ``search.blocks`` (in place: the article's list of candidates) the stacks of
    per-token vectors that a product's rows print, renumbering the blocks in reading order."""
    found = search.blocks
    vectors = [b for b in found if is_prose(b) and b.shape[0] == 1]
    again = _rows_again(found)                 # for weights only: plain rows coincide easily
    if len(vectors) + len(again) < MIN_ROWS:
        return
    stacks, tried, used = [], 0, set()
    for text, operands in _proposals(found):
        if tried >= MAX_PAIRS or len(stacks) >= MAX_STACKS:
            break
        tried += 1
        pool = vectors + again if text == WEIGHTS else vectors
        rows = _printed_rows(search, operands, [v for v in pool if id(v) not in used], text)
        if rows is not None:
            used |= {id(v) for v in rows}
            stacks.append((max(b.index for b in rows + list(operands)), _stacked(rows, found + [s for _, s in stacks])))
    for after, s in sorted(stacks, key=lambda x: -x[0]):     # right after its vectors and operands
        found.insert(after + 1, s)
    for k, b in enumerate(found):
        b.index = k


def stack_inputs(search) -> None:
    """Add to ``search.blocks`` the matrix that per-token vectors labelled one index after
    another (``x_1``, ``x_2``, ``x_3``: the embeddings, one per sentence; ``hidden[0] =
    […]``, ``hidden[1] = […]`` in code) print row by row, just before the first of them,
    when the text does not print it whole: an operand for a product of them all (``Q =
    XW_Q``), or a step derived whole (``named``: a row worked wrong is judged against the
    rule its sibling rows follow). Then the rows listed after quoted tokens
    (:func:`_token_rows`). The vectors stay candidates of their own."""
    found, runs, run = search.blocks, [], []
    for b in found:
        name = _indexed(b)
        k = name.sub[0] if name is not None and len(name.sub) == 1 and not name.transposed else ""
        last = run[-1] if run else None
        if k.isdigit() and last is not None and last[1] == name.name and int(k) == last[2] + 1 \
                and last[0].shape == b.shape:
            run.append((b, name.name, int(k)))
            continue
        runs.append(run)
        run = [(b, name.name, int(k))] if k.isdigit() and int(k) in (0, 1) else []
    runs.append(run)
    for run in (r for r in reversed(runs) if len(r) >= MIN_ROWS):
        rows = [b for b, _, _ in run]
        if _printed_whole(rows, found):
            continue
        s = _stacked(rows, found)
        s.name = fresh(spec_name(run[0][1]) or s.name, {b.name for b in found})
        s.named = True
        found.insert(found.index(rows[0]), s)   # before them: the vectors stay a run (concat)
    for rows in reversed(_token_rows(found)):
        found.insert(found.index(rows[0]), _stacked(rows, found))
    for k, b in enumerate(found):
        b.index = k


def _indexed(b: Block):
    """The parsed label of a vector that may be one of a run (``x_1``; ``q_0 (köpek)``,
    labelled ``q_0_köpek``, is ``q_0`` of the token köpek), or None."""
    from ..article.labels import parse
    if not ((is_prose(b) or b.printed.form == "list") and b.shape[0] == 1 and b.label):
        return None
    name = parse(b.label)
    if name is not None and len(name.sub) == 1 and not name.sub[0].isdigit() and not name.transposed:
        inner = parse(name.name)
        if inner is not None and len(inner.sub) == 1 and inner.sub[0].isdigit():
            return inner
    return name


_TOKEN_LEAD = re.compile(r"""^\s*(?:[-*+]\s+)?["'“「][^"'”」\n]{1,24}["'”」]\s*(?:->|→|:|：)\s*\[""")


def _token_rows(found: list[Block]) -> list[list[Block]]:
    """Runs of vectors printed on consecutive lines, each after a quoted token
    (``* "Hello" -> [0, 1, 0, 1]``, ``* "World" -> [0.84, 0.99, 0, 1]``): a matrix's rows, one
    per token, that the text does not print whole."""
    runs, run = [], []
    for b in found:
        if not (is_prose(b) and b.shape[0] == 1 and not b.label and _TOKEN_LEAD.match(b.before.rsplit("\n", 1)[-1])):
            run = []
            continue
        if run and (b.path != run[-1].path or b.line != run[-1].line + 1 or b.shape != run[-1].shape):
            run = []
        run.append(b)
        if len(run) == MIN_ROWS:
            runs.append(run)
    return [r for r in runs if not _printed_whole(r, found)]


def stack_computed(search) -> None:
    """After the search: the stacks whose product takes a computed block (the weights
    ``softmax(S)`` times ``X``, the rows of the output printed in sentences), matched within
    what that block's prints may be off. Each is appended to ``search.blocks`` (last, in
    place) and computed by that product when :meth:`Search._accepts` accepts it; no later
    derivation takes it."""
    from .search import Derivation
    found = search.blocks
    taken = {id(r) for b in found for r in getattr(b, "parts", ())}
    vectors = [b for b in found if is_prose(b) and b.shape[0] == 1 and id(b) not in taken
               and b.index not in search.derived]
    again = _rows_again(found)
    tried, added = 0, 0
    for a, w in _pairs(found):
        if tried >= MAX_PAIRS or added >= MAX_STACKS or len(vectors) + len(again) < MIN_ROWS:
            break
        if a.index not in search.derived and w.index not in search.derived:
            continue
        tried += 1
        rows = _printed_rows(search, (a, w), vectors + again if _weights(a, search) else vectors, PRODUCT)
        if rows is None:
            continue
        s = _stacked(rows, found)
        s.index = len(found)
        m, err = search.matched(search.value(PRODUCT, (a, w), slots=True), s, (a, w))
        d = Derivation(s, f"{a.name} @ {w.name}", (a, w), m, 1, form="{0} @ {1}", error=err)
        if search._accepts(d, s.floats.size):
            found.append(s)
            search.derived[s.index] = d
            vectors = [v for v in vectors if all(v is not r for r in rows)]
            again = [v for v in again if all(v is not r for r in rows)]
            added += 1


def _pairs(found: list[Block]):
    """(block of several rows, block whose rows are as many as its columns), the nearest first."""
    whole = [b for b in found if not is_prose(b)]
    for a in whole:
        if a.shape[0] < MIN_ROWS:
            continue
        for w in sorted(whole, key=lambda w: abs(w.index - a.index)):
            if w is not a and w.shape[0] == a.shape[1] and w.shape[1] >= 2:
                yield a, w


def _proposals(found: list[Block]):
    """(form, operands) whose rows may be printed one by one: the products of two blocks
    (:func:`_pairs`), then the weights of a block of scores (``softmax`` of each row), the
    nearest pairs first."""
    yield from ((PRODUCT, pair) for pair in _pairs(found))
    for a in found:
        if not is_prose(a) and a.shape[0] >= MIN_ROWS and a.shape[1] >= MIN_ROWS:
            yield WEIGHTS, (a,)


def _weights(a: Block, search) -> bool:
    """Is ``a`` the weights the text works out row by row (a stack computed as a softmax)?
    Their mix with the values is worked row by row too, restated rows included."""
    d = search.derived.get(a.index)
    return isinstance(a, _Stack) and d is not None and d.expr.startswith("softmax(")


def _rows_again(found: list[Block]) -> list[Block]:
    """The vectors printed again (a row of a block, or a vector, repeated where the text
    works a row out: no block of their own, :func:`.blocks.blocks`), each as a vector of
    its own at the line it is printed on, between the blocks around it."""
    out = []
    for b in found:
        for path, p in b.echoes:
            if len(p.values) != 1:
                continue
            before = [c.index for c in found if c.path == path and c.line <= p.line]
            out.append(printed_block(b.name, p, max(before, default=0), path, b.before))
    return out


def _printed_rows(search, operands: tuple, vectors: list[Block], text: str) -> list[Block] | None:
    """The vectors that print the rows of ``text`` over ``operands``, one each in row order,
    or None."""
    v = search.value(text, operands, slots=True)
    if v is None or len(np.unique(v)) < 2:
        return None
    out: list[Block] = []
    near = max(o.line for o in operands)
    for row in v:
        row = row[None, :]
        hits = [b for b in vectors if all(b is not o for o in out) and b.shape == row.shape
                and search.matched(row, b, operands)[0] == row.size]
        hit = min(hits, key=lambda b: (abs(b.line - near), b.line)) if hits else None
        if hit is None:
            return None
        out.append(hit)
    return None if _printed_whole(out, search.blocks) else out


def _printed_whole(rows: list[Block], found: list[Block]) -> bool:
    """Is the matrix the rows stack into printed whole too (before or after them)? Then
    they are its rows printed again, not a matrix of their own."""
    v = np.vstack([b.floats for b in rows])
    h = np.vstack([b.half for b in rows])
    return any(b.shape == v.shape and not is_prose(b) and not hasattr(b, "parts")
               and bool(np.all(np.abs(b.floats - v) <= b.half + h + 1e-9)) for b in found)


class _Stack(Block):
    """A block stacked from vectors printed one by one (at the first one's line)."""
    parts: tuple = ()           # the vectors it stacks
    named = False               # by the text, one name and index each (``x_1``, ``x_2``)


def _stacked(rows: list[Block], taken: list[Block]) -> Block:
    first = rows[0]
    p = Printed("", min(b.line for b in rows), tuple(b.printed.values[0] for b in rows),
                tuple(b.printed.texts[0] for b in rows), None, "stack")
    s = _Stack(fresh(f"M{p.line}", {b.name for b in taken}), p, 0, first.path, np.vstack([b.floats for b in rows]),
               np.vstack([b.half for b in rows]), first.before)
    s.parts = tuple(rows)
    return s
