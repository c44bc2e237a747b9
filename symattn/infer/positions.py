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
"""

from __future__ import annotations


def free_base(label: str) -> str:
    """The tensor a label with only free indices names (``P_i`` → ``P``, ``X_{pos}`` → ``X``),
    or '' (``W_Q``, ``x_1``, ``Q_{love}``: a subscript that is no free index)."""
    from ..article.labels import _FREE, parse
    from .blocks import spec_name
    name = parse(label) if label else None
    if name is None or not name.sub or not all(p in _FREE for p in name.sub) or name.transposed:
        return ""
    return spec_name(name.name)


def base_names(labels: list[str]) -> dict[int, str]:
    """Block position -> the tensor name its free-index label gives it: for each such
    tensor, the last block labelled so (the others keep their labels)."""
    last: dict[str, int] = {}
    for k, label in enumerate(labels):
        base = free_base(label)
        if base:
            last[base] = k
    return {k: base for base, k in last.items()}
