"""A product the text writes with its matrices: ``Q = [X][W_Q] = [C]``.

In LaTeX two matrices side by side (or with ``\\cdot``/``\\times`` between them) are their
product; when ``=`` alone then opens the next matrix, that matrix is the product as
written, whatever its numbers: the article check judges each, wrong ones included. The two
factors must print the numbers of blocks printed before (themselves, or printed again there),
of shapes that multiply to the result's; a third factor, or a sum around them, is no such
product.
"""

from __future__ import annotations

import re

from ..errors import SymattnError
from ..spec.latex_cells import cell_value
from .search import Derivation, Search

_ENV = re.compile(r"\\begin\s*\{([a-zA-Z]*matrix)\}(.*?)\\end\s*\{\1\}", re.S)
_GAP = r"(?:\s|\\\[|\\\]|\$\$)*"       # spaces, and a display closed and opened again
_TIMES = re.compile(rf"{_GAP}(?:\\cdot|\\times|×|·)?{_GAP}")
_EQUALS = re.compile(rf"{_GAP}(?:=|\\approx|≈){_GAP}")
_OPERATOR = re.compile(r"(?:\\end\s*\{[a-zA-Z]*matrix\}|[+\-*/×·]|\\cdot|\\times|\\odot|\\circ|\\oplus)\s*$")
BACK = 200                  # lines before the result searched for its two factors


def written_products(search: Search, parts: list) -> None:
    """Derive each block no pass derived that a written product of two earlier prints
    opens onto (``parts``: the article's (path, lines))."""
    lines = {path: [ln.text for ln in text] for path, text in parts}
    for t in search.blocks:
        if t.index in search.derived or t.index in search.reprints or t.parent is not None \
                or t.given or t.printed.form != "latex" or t.path not in lines:
            continue
        factors = _factors(lines[t.path], t, search.blocks)
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


def _factors(lines: list[str], t, blocks: list):
    """(A, B) of ``[A][B] = [t]`` written just before block ``t``, or None."""
    first = max(1, t.printed.line - BACK)
    window = "\n".join(lines[first - 1:t.printed.line + t.shape[0] + 2])
    envs = list(_ENV.finditer(window))
    at = [first + window.count("\n", 0, m.start()) for m in envs]
    k = next((i for i, (m, ln) in enumerate(zip(envs, at))
              if ln == t.printed.line and _values(m.group(2)) == t.printed.values), None)
    if k is None or k < 2:
        return None
    m0, m1, m2 = envs[k - 2], envs[k - 1], envs[k]
    if not _TIMES.fullmatch(window[m0.end():m1.start()]) or not _EQUALS.fullmatch(window[m1.end():m2.start()]):
        return None
    if _OPERATOR.search(window[:m0.start()]):
        return None                              # a third factor or a sum: not these two alone
    earlier = [b for b in blocks if b.parent is None and b.index < t.index]
    a, b = _printing(_values(m0.group(2)), earlier), _printing(_values(m1.group(2)), earlier)
    return (a, b) if a is not None and b is not None else None


def _values(body: str) -> tuple | None:
    """The exact rows of a matrix environment's body, or None where a cell is no number."""
    rows = [r for r in re.split(r"\\\\", body) if r.strip()]
    try:
        out = tuple(tuple(cell_value(c)[0] for c in r.split("&")) for r in rows)
    except SymattnError:                       # a symbol, a formula: no factor of numbers
        return None
    return out if out and len({len(r) for r in out}) == 1 else None


def _printing(values: tuple | None, earlier: list):
    """The first block printed with exactly ``values`` (a block printed again: the one it repeats)."""
    by_index = {b.index: b for b in earlier}
    for b in earlier:
        if values is not None and b.printed.values == values:
            return by_index.get(b.again, b) if b.again >= 0 else b
    return None
