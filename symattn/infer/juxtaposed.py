"""A product the text writes with its matrices: ``Q = [X][W_Q] = [C]``; a function it
writes of one: ``\\text{softmax}\\left([0.58, 1.30, 2.02]\\right) \\approx [C]``. A
matrix may be a list (``$[1, 2, 3, 4]$ × […] ＝ $[8, 1]$``) and carry a label braced on
(``\\underbrace{…}_{W_O}``).

In LaTeX two matrices side by side (or with ``\\cdot``/``\\times`` between them) are their
product; when ``=`` alone then opens the next matrix, that matrix is the product as
written, whatever its numbers: the article check judges each, wrong ones included. The two
factors must print the numbers of blocks printed before (themselves, or printed again there),
of shapes that multiply to the result's; a third factor, or a sum around them, is no such
product. A factor printed turned (``K``'s numbers as ``K^T``) is its block transposed. A
function's argument must print an earlier block's numbers, or one row of them (the row of
scores worked on, taken at its exact value), of the result's shape. What the text writes
comes before a formula the search found: a text gone astray (scores all wrong, weights
reversed) is judged against its exact chain, not against the near guess its wrong numbers
happen to fit. A formula that reproduces every entry yields only to factors printed before
the display: a factor the display alone prints may be a copy with a slip.
"""

from __future__ import annotations

import re

from ..article.latex import BETWEEN as _GAP
from ..errors import SymattnError
from ..spec.latex_cells import cell_value
from .blocks import rows_of, spec_name
from .formulas import FUNCTIONS as LABELLED, VARIADIC
from .search import Derivation, Search

_ENV = re.compile(r"\\begin\s*\{(?P<env>[a-zA-Z]*matrix)\}(?P<body>.*?)\\end\s*\{(?P=env)\}"
                  r"|(?<![\\\w])\[(?P<list>[^\[\]\n]*)\]", re.S)   # a matrix, or a list of numbers
_TIMES = re.compile(rf"{_GAP}(?:\\cdot|\\times|×|·)?{_GAP}")
_EQUALS = re.compile(rf"{_GAP}(?:=|＝|\\approx|≈){_GAP}")
_OPERATOR = re.compile(r"(?:\\end\s*\{[a-zA-Z]*matrix\}|(?<!\\)\]|[+\-*/×·]|\\cdot|\\times|\\odot|\\circ|\\oplus)\s*$")
_CALL = re.compile(r"(?:\\(?:text|mathrm|operatorname)\s*\{\s*(?P<a>[A-Za-z]+)\s*\}|(?<![A-Za-z\\])(?P<b>[A-Za-z]+))"
                   r"\s*(?:\\left\s*)?\(\s*$")
_CLOSE = re.compile(rf"\s*(?:\\right\s*)?\){_EQUALS.pattern}")
FUNCTIONS = tuple(f for f in LABELLED if f not in VARIADIC + ("layer_norm",))   # of one matrix, no ε to say
BACK = 200                  # lines before the result searched for its two factors


def written_products(search: Search, parts: list) -> None:
    """Derive each block that a written product of two earlier prints opens onto
    (``parts``: the article's (path, lines)), unless another written operation derives it:
    what the text writes comes before the search's formula (:func:`_open`). The name the
    display opens with (``C_1 = …``) then names the result (``search.aliases``)."""
    lines = {path: [ln.text for ln in text] for path, text in parts}
    for t in _open(search, lines):
        factors = _factors(lines[t.path], t, search.blocks)
        if factors is None:
            continue
        (a, a_t), (b, b_t), head, since = factors
        (n, d), (e, m) = a.shape[::-1 if a_t else 1], b.shape[::-1 if b_t else 1]
        if d != e or (n, m) != t.shape:
            continue
        text = f"{a.name}{'.T' * a_t} @ {b.name}{'.T' * b_t}"
        v = search.value(text, (a, b)) if _may(search, t, a.printed.line < since and b.printed.line < since) \
            else None
        if v is not None:
            got, err = search.matched(v, t, (a, b))
            if _derive(search, Derivation(t, text, (a, b), got, 0, form="stated", error=err)) and head:
                search.aliases.setdefault(head, t.name)
        _restated(search, t, (a, b))


def _restated(search: Search, t, factors: tuple) -> None:
    """A factor printed again in the product (the weights restated in ``[A][V] = [C]``) is
    that print again, not a second route to its numbers: its own derivation is dropped."""
    for b in search.blocks:
        d = search.derived.get(b.index)
        if b.path == t.path and b.again >= 0 and b.index < t.index and t.line - BACK <= b.line \
                and d is not None and d.form != "stated" and any(b.again == f.index for f in factors) \
                and not any(b.index == o.index for x in search.derived.values() for o in x.operands):
            del search.derived[b.index]
            search.reprints[b.index] = b.again


def written_functions(search: Search, parts: list) -> None:
    """Derive each block that a written function (:data:`FUNCTIONS`) of an earlier print, or
    of one of its rows, opens onto, as :func:`written_products` does (``parts``: the
    article's (path, lines)), and the matrix printed after every row was so worked that
    gathers them (:func:`_gathered`)."""
    lines = {path: [ln.text for ln in text] for path, text in parts}
    worked: dict = {}                   # (function, the block whose rows it took) -> row -> result
    for t in _open(search, lines):
        if not _may(search, t, True):
            continue
        found = _argument(lines[t.path], t, search.blocks)
        if found is None:
            continue
        name, a, head = found
        text = f"{name}({a.name})"
        v = search.value(text, (a,))
        if v is None or v.size != t.floats.size:
            continue
        v = v.reshape(t.shape)
        got, err = search.matched(v, t, (a,))
        if not _derive(search, Derivation(t, text, (a,), got, 0, form="stated", error=err)):
            continue
        if head:
            search.aliases.setdefault(head, t.name)
        worked.setdefault((name, a.parent.index if a.parent is not None else -1), {})[a.row] = t
    for (name, parent), rows in worked.items():
        if parent >= 0:
            _gathered(search, name, parent, rows)


def _open(search: Search, lines: dict):
    """The blocks printed in LaTeX or as a list in the text, not printed again nor given:
    those a written operation may derive (:func:`_may`)."""
    for t in list(search.blocks):
        if t.index in search.reprints or t.parent is not None or t.given \
                or t.printed.form not in ("latex", "prose") or t.path not in lines:
            continue
        yield t


def _may(search: Search, t, before: bool) -> bool:
    """May a written operation derive ``t``? When no pass derived it; when the search did
    in part only (what the text writes it computes comes before a formula that reproduces
    some of its numbers); when the search reproduced them all, only if the operands are
    prints from before the display (``before``): a factor the display itself prints, no
    earlier block's, may be a restatement with a slip of what the text computed from."""
    d = search.derived.get(t.index)
    return d is None or (d.form != "stated" and (d.matched < t.floats.size or before))


def _derive(search: Search, d: Derivation) -> bool:
    """Set ``d`` as its block's derivation unless an operand is computed from that block."""
    from .order import depends
    i = d.block.index
    if any((o.parent or o).index == i or depends(search, (o.parent or o).index, i) for o in d.operands):
        return False
    search.derived[i] = d
    return True


def _gathered(search: Search, name: str, parent: int, rows: dict) -> None:
    """Derive the block printed after the rows of ``f(P)`` worked one by one (``rows``: row
    -> its block) that prints them all, in order, as one matrix: ``f(P)`` whole."""
    p = next(b for b in search.blocks if b.index == parent)
    if sorted(rows) != list(range(p.shape[0])):
        return
    values = tuple(rows[i].printed.values[0] for i in range(p.shape[0]))
    last = max(r.index for r in rows.values())
    for t in search.blocks:
        if t.index > last and t.parent is None and not t.given and t.index not in search.derived \
                and t.index not in search.reprints and t.printed.values == values:
            text = f"{name}({p.name})"
            v = search.value(text, (p,))
            got, err = search.matched(v, t, (p,))
            _derive(search, Derivation(t, text, (p,), got, 0, form="stated", error=err))
            return


def _argument(lines: list[str], t, blocks: list):
    """(function, the block or row it takes) of ``f([A]) = [t]`` written just before block
    ``t``, or None."""
    window, first, envs, k = _opened(lines, t)
    if k is None or k < 1:
        return None
    m0, m1 = envs[k - 1], envs[k]
    call = _CALL.search(window[max(0, m0.start() - 60):m0.start()])
    if call is None or not _CLOSE.fullmatch(window[m0.end():m1.start()]):
        return None
    name = (call.group("a") or call.group("b")).lower()
    values = _values(m0)
    if name not in FUNCTIONS or values is None or len(values) != t.shape[0] or len(values[0]) != t.shape[1]:
        return None
    since = first + window.count("\n", 0, m0.start())
    earlier = [b for b in blocks if b.parent is None and b.index < t.index and b.printed.line < since]
    whole = next((b for b in earlier if b.printed.values == values), None)
    rows = [r for b in earlier for r in rows_of(b) if r.printed.values == values]
    a = whole if whole is not None else rows[-1] if rows else None
    return (name, a, _head(window[:m0.start()])) if a is not None else None


_DISPLAY = re.compile(r"\$\$|\\\[|\n\s*\n")
_HEAD = re.compile(r"\s*\$?\s*([A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?)\s*=")


def _head(before: str) -> str:
    """The name a display written before a result starts with (``C_1 = \\text{softmax}(…)V_1
    \\approx [..][..] \\approx``: ``C_1``), as the spec language writes it, or ''."""
    starts = [m.end() for m in _DISPLAY.finditer(before)]
    m = _HEAD.match(before, starts[-1] if starts else 0)
    return spec_name(m.group(1)) if m else ""


def _opened(lines: list[str], t):
    """(the text before block ``t`` and its own lines, the window's first line, its matrix
    environments, the index of ``t``'s among them or None)."""
    first = max(1, t.printed.line - BACK)
    window = "\n".join(lines[first - 1:t.printed.line + t.shape[0] + 2])
    envs = list(_ENV.finditer(window))
    at = [first + window.count("\n", 0, m.start()) for m in envs]
    k = next((i for i, (m, ln) in enumerate(zip(envs, at))
              if ln == t.printed.line and _values(m) == t.printed.values), None)
    return window, first, envs, k


def _factors(lines: list[str], t, blocks: list):
    """((A, transposed?), (B, transposed?), the name the display opens with, the display's
    first line) of ``[A][B] = [t]`` written just before block ``t``, or None."""
    window, first, envs, k = _opened(lines, t)
    if k is None or k < 2:
        return None
    m0, m1, m2 = envs[k - 2], envs[k - 1], envs[k]
    if not _TIMES.fullmatch(window[m0.end():m1.start()]) or not _EQUALS.fullmatch(window[m1.end():m2.start()]):
        return None
    if _OPERATOR.search(re.sub(rf"{_GAP}$", "", window[:m0.start()])):
        return None                              # a third factor or a sum: not these two alone
    earlier = [b for b in blocks if b.parent is None and b.index < t.index]
    since = first + window.count("\n", 0, m0.start())
    a, b = _printing(_values(m0), earlier, since), _printing(_values(m1), earlier, since)
    return (a, b, _head(window[:m0.start()]), since) if a is not None and b is not None else None


def _values(m: re.Match) -> tuple | None:
    """The exact rows of a matrix environment or a list (:data:`_ENV`), or None where a
    cell is no number."""
    rows = [m["list"].replace(",", "&")] if m["list"] is not None else \
        [r for r in re.split(r"\\\\", m["body"]) if r.strip()]
    try:
        out = tuple(tuple(cell_value(c)[0] for c in r.split("&")) for r in rows)
    except SymattnError:                       # a symbol, a formula: no factor of numbers
        return None
    return out if out and len({len(r) for r in out}) == 1 else None


def _printing(values: tuple | None, earlier: list, since: int):
    """(block, transposed?) of a factor: the first block printed with exactly ``values`` (a
    block printed again: the one it repeats), or, when that first print is the factor's own
    (at line ``since`` or later: the product restates it), a block printed before with
    those values transposed (``Q K^T`` written with ``K``'s numbers turned); else None."""
    if values is None:
        return None
    by_index = {b.index: b for b in earlier}
    same = next((b for b in earlier if b.printed.values == values), None)
    if same is not None and same.again >= 0:
        return by_index.get(same.again, same), False
    if same is None or same.printed.line >= since:
        turned = tuple(zip(*values))
        before = next((b for b in earlier if b.printed.line < since and b.printed.values == turned
                       and turned != values), None)
        if before is not None:
            return by_index.get(before.again, before) if before.again >= 0 else before, True
    return (same, False) if same is not None else None
