"""A product the text writes with its matrices: ``Q = [X][W_Q] = [C]``.

In LaTeX two matrices side by side (or with ``\\cdot``/``\\times`` between them) are their
product; when ``=`` alone then opens the next matrix, that matrix is the product as
written, whatever its numbers: the article check judges each, wrong ones included. The two
factors must be blocks printed before (or their numbers printed again there), of shapes
that multiply to the result's; a third factor, or a sum around them, is no such product.
"""

from __future__ import annotations

import re

from .search import Derivation, Search

_ENV = re.compile(r"\\begin\s*\{([a-zA-Z]*matrix)\}(.*?)\\end\s*\{\1\}", re.S)
_TIMES = re.compile(r"\s*(?:\\cdot|\\times|×|·)?\s*")
_EQUALS = re.compile(r"\s*(?:=|\\approx|≈)\s*")
_OPERATOR = re.compile(r"(?:\\end\s*\{[a-zA-Z]*matrix\}|[+\-*/×·]|\\cdot|\\times|\\odot|\\circ|\\oplus)\s*$")
BACK = 200                  # lines before the result searched for its two factors


def written_products(search: Search, parts: list) -> None:
    """Derive each block no pass derived that a written product of two earlier prints
    opens onto (``parts``: the article's (path, lines))."""
    lines = {path: [ln.text for ln in text] for path, text in parts}
    where = _prints(search)
    for t in search.blocks:
        if t.index in search.derived or t.index in search.reprints or t.parent is not None \
                or t.given or t.printed.form != "latex" or t.path not in lines:
            continue
        factors = _factors(lines[t.path], t, where)
        if factors is None:
            continue
        a, b = factors
        if a.shape[1] != b.shape[0] or (a.shape[0], b.shape[1]) != t.shape:
            continue
        text = f"{a.name} @ {b.name}"
        v = search.value(text, (a, b))
        if v is None:
            continue
        got, err = search.matched(v, t, (a, b))
        search.derived[t.index] = Derivation(t, text, (a, b), got, 0, form="stated", error=err)


def _prints(search: Search) -> dict:
    """(path, line) -> the block whose numbers a matrix opened on that line prints: the
    block itself, the one a block printed again repeats, or the one an echo repeats."""
    by_index = {b.index: b for b in search.blocks if b.parent is None}
    out: dict = {}
    for b in by_index.values():
        out[(b.path, b.printed.line)] = by_index.get(b.again, b) if b.again >= 0 else b
        for path, p in b.echoes:
            if p.shape == b.shape:
                out.setdefault((path, p.line), b)
    return out


def _factors(lines: list[str], t, where: dict):
    """(A, B) of ``[A][B] = [t]`` written just before block ``t``, or None."""
    first = max(1, t.printed.line - BACK)
    window = "\n".join(lines[first - 1:t.printed.line + t.shape[0] + 2])
    envs = list(_ENV.finditer(window))
    at = [first + window.count("\n", 0, m.start()) for m in envs]
    k = next((i for i, (m, ln) in enumerate(zip(envs, at)) if ln == t.printed.line), None)
    if k is None or k < 2 or not at[k - 2] < at[k - 1] < at[k]:
        return None                              # each matrix on lines of its own: one print a line
    m0, m1, m2 = envs[k - 2], envs[k - 1], envs[k]
    if not _TIMES.fullmatch(window[m0.end():m1.start()]) or not _EQUALS.fullmatch(window[m1.end():m2.start()]):
        return None
    if _OPERATOR.search(window[:m0.start()]):
        return None                              # a third factor or a sum: not these two alone
    a, b = where.get((t.path, at[k - 2])), where.get((t.path, at[k - 1]))
    return (a, b) if a is not None and b is not None and a is not t and b is not t else None
