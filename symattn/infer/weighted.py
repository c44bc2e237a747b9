"""The attention weights applied to the values, at the article's grain.

After the search, each derived softmax ``A`` (its rows the weights of one query) is the
start of the chain's last steps, row vectors (``V``: n_keys × d_v):

* the output ``A @ V``;
* the slice of one key ``j``, ``A[:, j] @ V[j]`` (its weight for every query times its
  value: a 3-D ``weighted_values`` tensor printed one slice a block).

A printed block that restates ``A`` coarser (every entry within one unit of its own last
digit: "for readability, approximate the above as follows") is ``A`` printed again, not an
input: a product computed from those rounded weights is reproduced by the search on their
prints and checked on ``A`` itself, so the exact check calls it carried (or wrong, where a
rounded weight is off: ``0.0`` for 0.063). A block these forms reproduce in full is derived
by them where the generic search found nothing, reproduced less of it, or computed it from
``A`` another way (a sum of two slices printed before it, when a third prints only zeros: the
output is ``A @ V``).
"""

from __future__ import annotations

import re
from itertools import islice

import numpy as np

from .blocks import Block, spec_name
from .search import MIN_ENTRIES, Derivation, Search
from .heads import MAX_TARGETS, lineage, nearest
from .stated import fresh

MAX_VECTORS = 2000          # one-row lists of an article read as evidence (the first ones)
MAX_TENSOR_LINES = 60       # lines above a slice's block where its 3-D printout may open
MAX_WEIGHTS = 8             # softmax blocks of one article whose products are looked for
MAX_KEYS = 16               # keys of a weights block whose slices are tried, at most


def _weights(search: Search) -> list[Block]:
    return [d.block for d in search.derived.values() if d.expr.startswith("softmax(")]


def approximations(search: Search, a: Block, parts: list) -> list[Block]:
    """Later printed blocks that restate ``a`` with fewer digits (within one unit of each
    entry's last digit, some entry off by more than its rounding: no mere reprint) under
    the name the program gives ``a`` (``attn_scores_softmax = softmax(…)`` printed, then
    ``attn_scores_softmax = [[0.0, 0.5, …]]``): ``a`` itself, rounded. A copy under another
    name (``rough = […]``) is an input of its own: what is computed from it is checked on it.
    ``a`` takes that name (the article check places the restatement by it)."""
    name = _program_name(a, parts)
    out = []
    for b in search.blocks:
        if b.index <= a.index or b.shape != a.shape or b.given or b.index in search.derived:
            continue
        off = np.abs(b.floats - a.floats)
        if name and spec_name(b.label) == name and np.all(b.half > a.half) and \
                np.all(off <= 2 * b.half + 1e-12) and np.any(off > b.half) and _row_a_line(b, parts):
            out.append(b)
    if out and a.name != name:              # the restatements renamed first, where used too
        used = {b.name for b in search.blocks}
        _rename(search, {b.name: fresh(f"{name}_rounded", used) for b in out})
        if name not in {b.name for b in search.blocks}:
            _rename(search, {a.name: name})
    return out


def _row_a_line(b: Block, parts: list) -> bool:
    """Are the block's rows printed a line each after the line that opens it (``name = [``
    then ``[0.0, 0.5, 0.5],`` …, as a printout is restated)? A row on the line of the
    assignment is not placed on the step it restates by the article check: what is computed
    from such a literal stays computed from it (a verdict on the exact weights could not
    say it is carried)."""
    line = next((ln.text for path, ls in parts if path == b.path for ln in ls if ln.number == b.line), "")
    return not re.search(r"\[\s*[-+\d.]", line)


def _program_name(a: Block, parts: list) -> str:
    """``a``'s name, or (an unlabelled printout) the name the program line above assigns it."""
    if a.label:
        return a.name
    from ..article.prints import assignment_above
    lines = {ln.number: ln for path, ls in parts if path == a.path for ln in ls}
    return spec_name(assignment_above(lines, a.line) or "") or a.name


def _rename(search: Search, new: dict) -> None:
    """Blocks renamed (old name -> new), in every derivation's expression and steps."""
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, new)) + r")(?![\w])")

    def rename(text: str) -> str:
        return pattern.sub(lambda m: new[m.group(1)], text)
    for d in search.derived.values():
        d.expr = rename(d.expr)
        d.steps = tuple((rename(n), rename(e)) for n, e in d.steps)
    for b in search.blocks:
        b.name = new.get(b.name, b.name)


def _reaches(search: Search, d: Derivation, a: Block) -> bool:
    """Is the derivation's block computed from ``a`` (directly or through derived blocks)?"""
    return any((o.parent or o).index == a.index for x in lineage(search, d) for o in x.operands)


def _forms(a: Block):
    """(form on ``{a}`` and ``{v}``, its cost, the key of a slice or None)."""
    yield "{a} @ {v}", 1, None
    for j in range(a.shape[1] if a.shape[1] <= MAX_KEYS else 0):
        yield f"{{a}}[:, {j}] @ {{v}}[{j}]", 2, j


def _try(search: Search, target: Block, a: Block, printed: list[Block]):
    """(derivation, the key of a slice or None) of ``target`` by a form on ``a``, or None."""
    n = target.floats.size
    for v in nearest(search, target, lambda b: b.shape == (a.shape[1], target.shape[1])
                     and not b.given and b.index != a.index):
        for form, cost, j in _forms(a):
            if j is not None and target.shape[0] != a.shape[0]:
                continue
            for p in printed:                   # A's own print, then its restatements
                val = search.value(form.format(a=p.name, v=v.name), (p, v))
                m, err = search.matched(val, target, (p, v))
                if m == n and m >= cost + MIN_ENTRIES:
                    return Derivation(target, form.format(a=a.name, v=v.name), (a, v), m, cost,
                                      form="weighted", error=err), j
    return None


def _unprinted(search: Search, a: Block, v: Block, keys: set, printed: list[Block],
               vectors: list) -> list[tuple[str, str]]:
    """The chain's steps on (A, V) that print no block of their own: the slices of the keys
    not printed, once two or more are (one tensor); the weighted values of one query,
    ``A[i].T * V`` (row k: its weight of key k times value k), where the text prints its
    rows as lists one after the other (:func:`_run`)."""
    steps = []
    if len(keys) >= 2:
        steps += [(f"{v.name}_key{j}", f"{a.name}[:, {j}] @ {v.name}[{j}]")
                  for j in range(a.shape[1]) if j not in keys]
    for i in range(a.shape[0]):
        if any(_run(p.floats[i][:, None] * v.floats, vectors, float(p.half.max()) if p is a else 0.0)
               for p in printed):                # a restatement: the rows are its products
            steps.append((f"{v.name}_query{i}", f"{a.name}[{i}].T * {v.name}"))
    used = {b.name for b in search.blocks}
    return [(n, e) for n, e in steps if n not in used]


def _run(rows: np.ndarray, vectors: list, carry: float = 0.0) -> bool:
    """Do successive ``vectors`` (as many as ``rows``, of their width) print the ``rows`` in
    order, all of them within print rounding (plus 4× ``carry``, what the rows' operands'
    prints may be off, scaled by the entry), or all but one of three or more (a slip)?"""
    n = rows.shape[0]
    fits = [w.shape[1] == rows.shape[1] for w in vectors]
    need = n if n < 3 else n - 1

    def near(k: int, w: np.ndarray) -> bool:
        tol = w[1] * 1.0001 + (4 * carry + 1e-9) * np.maximum(1, np.abs(rows[k]))
        return bool(np.all(np.abs(rows[k] - w[0]) <= tol))
    return n >= 2 and any(all(fits[s:s + n]) and sum(near(k, vectors[s + k]) for k in range(n)) >= need
                          for s in range(len(vectors) - n + 1))


def weighted_values(search: Search, parts: list = ()) -> None:
    """The blocks the weights · values forms reproduce, into ``search.derived`` (with the
    chain's unprinted steps on the first); the weights' restatements into
    ``search.reprints``. ``parts``: the article's (path, lines), where its one-row lists
    (:func:`printed_vectors`) and labels are read."""
    vectors = None
    for a in _weights(search)[:MAX_WEIGHTS]:
        again = approximations(search, a, parts)
        for b in again:
            search.reprints[b.index] = a.index
            _on_weights(search, b, a)
        found: dict = {}                    # V's index -> [(derivation, slice key)]
        for target in islice((b for b in search.blocks if b.index > a.index and not b.given
                              and b.index not in search.reprints), MAX_TARGETS):
            current = search.derived.get(target.index)
            if current is not None and (current.form in ("chain", "weighted") or (
                    current.matched == target.floats.size and not _reaches(search, current, a))):
                continue
            got = _try(search, target, a, [a] + again)
            if got is not None and current is not None and got[0].expr == current.expr:
                got = (current, got[1])         # the search's own: its chain steps all the same
            if got is not None:
                search.derived[target.index] = got[0]
                found.setdefault(got[0].operands[1].index, []).append(got)
        for ds in found.values():
            first, v = ds[0][0], ds[0][0].operands[1]
            keys = {j: d for d, j in ds if j is not None}
            vectors = printed_vectors(parts) if vectors is None else vectors
            first.steps = tuple(_unprinted(search, a, v, set(keys), [a] + again, vectors))
            if len(keys) >= 2:
                _name_slices(search, keys, first, parts)


def _on_weights(search: Search, b: Block, a: Block) -> None:
    """Derivations the search found on the restatement ``b`` of ``a``, computed on ``a``."""
    for d in search.derived.values():
        if any((o.parent or o).index == b.index for o in d.operands):
            d.expr = re.sub(rf"(?<![\w.]){re.escape(b.name)}(?![\w])", a.name, d.expr)
            d.operands = tuple(a if (o.parent or o).index == b.index and o.parent is None else o
                               for o in d.operands)
            d.form = "weighted"


def _name_slices(search: Search, keys: dict, first: Derivation, parts: list) -> None:
    """The slices of one printed 3-D tensor named as the program line above its printout
    names the tensor (``weighted_values = …`` → ``weighted_values_key1``, the slice of key
    1), where their blocks have no label of their own."""
    from ..article.prints import assignment_above
    d0 = keys[min(keys)]
    lines = {ln.number: ln for path, ls in parts if path == d0.block.path for ln in ls}
    start = next((k for k in range(d0.block.line, d0.block.line - MAX_TENSOR_LINES, -1)
                  if k in lines and "[[[" in lines[k].text.replace(" ", "")), None)
    label = spec_name(assignment_above(lines, start) or "") if start is not None else ""
    if not label:
        return
    used = {b.name for b in search.blocks} | {n for d in search.derived.values() for n, _ in d.steps}
    new = {d.block.name: f"{label}_key{j}" for j, d in keys.items() if not d.block.label}
    new.update({n: f"{label}_key{n.rsplit('_key', 1)[1]}" for n, _ in first.steps if "_key" in n})
    if not any(x in used for x in new.values()):
        _rename(search, new)


def printed_vectors(parts: list[tuple[str, list]]) -> list[np.ndarray]:
    """Each one-row bracket list an article's lines print (``= [1.0, 4.0, 0.0]``), any kind
    of line, as a (2, n) array: the values and the half unit of each one's print."""
    from ..article.cells import parse_list
    from .blocks import entry_float, half_units
    out = []
    for _, lines in parts:
        for ln in lines:
            t, i = ln.text, ln.text.find("[")
            while 0 <= i < len(t) and len(out) < MAX_VECTORS:
                value, end = parse_list(t, i)
                if value and not isinstance(value[0], list) and len(value) >= 2:
                    texts = [x for _, x in value]
                    out.append(np.array([[entry_float(v) for v, _ in value], half_units([texts])[0]]))
                i = t.find("[", max(end, i + 1))
    return out
