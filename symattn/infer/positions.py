"""Positional tables and their names: what the inference needs beside the search's forms
for a worked example of positional encodings (their operations are declared in
:mod:`symattn.ops.embedding`, with the values the search tries).

An article labels a table of positions or tokens by one row with a free index: ``$P_i$``,
``X_i``, ``E_{pos}``: the row i of the tensor P. The article check reads such a label as the
tensor ``P``, each table row its own row (:mod:`symattn.article.labels`), which places a
wrong number at its entry rather than at the entry whose value it is nearest. So the block
is named ``P``. When several blocks carry the same label (a toy table first, the computed
one later), the last printed takes the name of the tensor and the earlier ones keep the
label as written (``P_i``), which the check reads as that whole tensor, matched by value.

A table of positions is also printed a row at a time, ``PE(pos=1) = [0.841, 0.540, …]``
(:func:`position_row`): the row of the declared table at that position.
"""

from __future__ import annotations

import re


def free_base(label: str) -> str:
    """The tensor a label with only free indices names (``P_i`` → ``P``, ``X_{pos}`` → ``X``),
    as written (a spec name once :func:`symattn.infer.blocks.spec_name` takes it), or ''
    (``W_Q``, ``x_1``, ``Q_{love}``: a subscript that is no free index)."""
    from ..article.labels import _FREE, parse
    name = parse(label) if label else None
    if name is None or not name.sub or not all(p in _FREE for p in name.sub) or name.transposed:
        return ""
    return name.name


def base_names(labels: list[str]) -> dict[int, str]:
    """Block position -> the tensor name its free-index label gives it: for each such
    tensor, the last block labelled so (the others keep their labels). A name the article
    also subscripts with a word or letter of its own is a family of names (``W_k`` beside
    ``W_q`` and ``W_v``: the key's weights, not a row ``k`` of ``W``)."""
    from ..article.labels import parse
    family = set()
    for label in labels:
        name = parse(label) if label else None
        if name is not None and name.sub and not free_base(label) and not any(p.isdigit() for p in name.sub):
            family.add(name.name)
    last: dict[str, int] = {}
    for k, label in enumerate(labels):
        base = free_base(label)
        if base and base not in family:
            last[base] = k
    return {k: base for base, k in last.items()}


# ---- a position's row of a table: PE(pos) printed as a vector ------------------------------

MAX_POSITION = 8            # positions tried for a row no text names (0 … 7)
_POSITION = re.compile(r"(?<![A-Za-z])(?:pos(?:ition)?|p)\s*(?:=|:|是|为)?\s*(\d{1,3})(?![\d.])", re.I)


def positions(text: str) -> list[int]:
    """The positions the text names (``pos = 3``, ``position 2``), latest first."""
    return list(dict.fromkeys(int(m.group(1)) for m in reversed(list(_POSITION.finditer(text)))))


def position_row(search, target, rows: list):
    """A one-row block as row ``pos`` of a declared table (``positional_encoding(4, 4)[3]``;
    a column printed upright, that row transposed),
    alone or added to the row ``pos`` of an earlier block (``x[3] + PE[3]``); a position the
    text before it names is free, any other of the first :data:`MAX_POSITION` costs one
    choice and is taken only when every entry prints it (a slip is flagged only in the row
    of a position the text names). The best derivation the search accepts, or None."""
    column = target.shape[1] == 1                # printed upright: the row transposed
    d = target.shape[0] if column else target.shape[1]
    if min(target.shape) != 1 or d < 2:
        return None
    named = positions(_said_before(search, target))
    best = None
    for form in search.forms:
        if form.operands or not form.sizes or len(set(form.result)) < 2:
            continue                          # a table of positions × dimensions
        for p in list(dict.fromkeys(named + list(range(MAX_POSITION)))):
            table = form.template.format(**{k: p + 1 if side == "rows" else d for k, side in form.sizes})
            cost = form.cost + (p not in named)
            at = f"{table}[{p}].T" if column else f"{table}[{p}]"
            row = _table_row(search, at)
            if row is None:
                continue
            for ops in [()] + [(r,) for r in rows if r.parent is not None and r.name.endswith(f"[{p}]")
                               and not column]:
                text = at if not ops else f"{ops[0].name} + {at}"
                cand = search.candidate(target, text, ops, cost + len(ops), form.template,
                                        row if not ops else None)
                slip = cand.matched < target.floats.size
                if search._accepts(cand, target.floats.size, form.most) and (p in named or not slip) and (
                        best is None or search.rank(cand) < search.rank(best)):
                    best = cand
    return best


def _said_before(search, target) -> str:
    """The text before ``target`` and before the blocks of its display printed just above
    it (``x + PE = y`` over three lines: what names the position precedes ``x``)."""
    parts, line = [target.before], target.line
    for b in reversed([b for b in search.blocks if b.index < target.index and b.path == target.path]):
        if b.parent is not None or b.line < line - 1:
            break
        parts.append(b.before)
        line = b.line
    return "\n".join(reversed(parts))


def _table_row(search, text: str):
    """The float value of a table's row (the same for every block of its width): once."""
    cache = search.__dict__.setdefault("_table_rows", {})
    if text not in cache:
        cache[text] = search.value(text, ())
    return cache[text]


# ---- a base as formulas write it: 10000^{2i/d} ----------------------------------------------

_BASE_POWER = re.compile(r"(?<![\d.])(\d{2,7})\s*(?:\^|\*\*)\s*[{(]?\s*[-−]?\s*(?:\\frac\s*\{\s*)?2"
                         r"(?:\s*\*\s*)?(?:[ijk]\b|\(\s*[ijk]\s*-\s*1\s*\))")


def bases_written(text: str) -> list[str]:
    """The bases the text's formulas raise to a power of the dimension index
    (``10000^{2i/d}``, ``10000^(2i/d_model)``, ``100 ** (2 * i / d)``,
    ``10000^{-2(i-1)/d}``), latest first: what a sinusoidal table or a rotation is stated
    with when no ``base = …`` is written."""
    return list(dict.fromkeys(m.group(1) for m in reversed(list(_BASE_POWER.finditer(text)))))
