"""Tables as printed matrices (:mod:`.matrices`): Markdown and HTML rows of cells, rows of
tab- or space-separated cells, ``label = [vector]`` lines. A run of rows of one shape is a
matrix, its rows labelled by their first cells (or by the numbers a header says index them);
rows labelled by groups (``head 1, row 2``) are one matrix a group; a column of one-row
matrices is a matrix of each column. Nothing is evaluated: a cell goes through
:func:`.cells.number`, a list through :func:`.cells.parse_list`."""

from __future__ import annotations

import re
from dataclasses import replace

from ..spec.latex_import import latex_name
from .cells import Printed, as_matrix, indexed, name_above, number, numbering, parse_list
from .source import Line


_RULE = re.compile(r"\s*:?-{2,}:?\s*")


def _cells(line: Line) -> list[str] | None:
    """The cells of a table row, a tab-separated row or ``label = [vector]``; [] for a
    table's rule; None for other lines."""
    s = line.text
    if line.kind == "table" and "|" in s:
        cells = s.strip().strip("|").split("|")
        if all(_RULE.fullmatch(c) for c in cells):
            return []                                # the |---|---| rule: no cells
        return [c.strip() for c in cells]
    if "\t" in s.strip():
        return [c.strip() for c in s.strip().split("\t") if c.strip()]
    spaced = _spaced(s) if line.kind == "text" else []
    if len(spaced) >= 2:
        return spaced
    m = re.fullmatch(r"\s*([^=:：\[\]]{1,60}?)\s*[=:：]\s*(\[[^\[\]]*\])\s*[.,。]?\s*", s)
    return [m.group(1), m.group(2)] if m else None


_NUMBER_AFTER = re.compile(r" (?=[-+−]?\.?\d)")


def _spaced(s: str) -> list[str]:
    """The cells of a plain-text table row: runs of two or more spaces outside brackets
    separate them (``1番目     1      0``, ``[1, 0, 1]      [1, −∞, −∞]``), as does one after a
    word's colon before a number (``Bird: 0.1`` under ``Cat:  2.0``)."""
    cells, depth, start, k = [], 0, 0, 0
    s = s.strip()
    while k < len(s):
        ch = s[k]
        depth += (ch in "[(") - (ch in "])")
        if depth == 0 and (s.startswith("  ", k) or s[k - 1:k] == ":" and s[k - 2:k - 1].isalpha()
                           and _NUMBER_AFTER.match(s, k)):
            cells.append(s[start:k])
            while k < len(s) and s[k] == " ":
                k += 1
            start = k
            continue
        k += 1
    cells.append(s[start:])
    return [c for c in cells if c]


def _row(cells: list[str]):
    """('numbers', label, [(v, t)]) or ('lists', label, [list]) or None."""
    label, rest = (cells[0], cells[1:]) if cells and number(cells[0]) is None \
        and not cells[0].startswith("[") else (None, cells)
    if label is None and len(cells) > 1 and cells[0].strip().isdigit() \
            and all(c.startswith("[") for c in cells[1:]):
        label, rest = cells[0].strip(), cells[1:]     # a position's row: | 1 | [0.01, 0.02] |
    if not rest:
        return None
    rest = [_bracketed(c) for c in rest]
    if all(c.startswith("[") for c in rest):
        lists = [parse_list(c, 0)[0] for c in rest]
        if all(isinstance(x, list) and x and not isinstance(x[0], list) for x in lists):
            return "lists", label, lists
        return None
    nums = [number(_undecorated(c)) for c in rest]
    return ("numbers", label, nums) if all(nums) else None


def _undecorated(cell: str) -> str:
    """A cell without the marks set beside its number (``4.601 ⭐``, ``0.72 ✓``, ``0.9 ←``):
    symbols and arrows, not signs, letters or digits."""
    import unicodedata
    t = cell.strip()
    while t and (unicodedata.category(t[-1]) in ("So", "Sk") or t[-1] in "←→↑↓⇐⇒\ufe0f") :
        t = t[:-1].rstrip()
    return t


_TUPLE = re.compile(r"\(\s*[-+−]?[\d.]+(?:\s*,\s*[-+−]?[\d.]+)+\s*\)")


def _bracketed(cell: str) -> str:
    """A cell written as a tuple of numbers (``(1, 0, 1)``, a vector) in brackets, one whose
    bracket Markdown escapes (``\\[0.1, 0.3]``) without the backslash; any other cell as it is."""
    c = cell.strip()
    if c.startswith("\\[") and c.endswith("]") and not c.endswith("\\]"):
        return c[1:]                             # Markdown's escaped bracket: \[0.1, 0.3]
    return f"[{c[1:-1]}]" if _TUPLE.fullmatch(c) else cell


def tables(lines: list[Line]) -> list[Printed]:
    """Runs of consecutive table rows (or labelled vectors) of one shape."""
    out: list[Printed] = []
    run: list = []
    header: list[str] | None = None
    caption, cells_before = "", None
    for line in lines + [Line(0, "")]:
        cells = _cells(line) if line.kind in ("text", "table", "math") else None
        if cells == []:
            continue                                 # a rule joins the rows around it
        row = _row(cells) if cells else None
        if row and run and _shape(row) == _shape(run[0][1]):
            run.append((line, row))
            continue
        if run:
            out += _from_run(run, header, caption)
            if len(run) == 1 and row:        # | Token | 0 | 1 |: a header of numbered columns
                header = cells_before
        run = [(line, row)] if row else []
        cells_before = cells
        if not row and cells:
            header = cells
        elif not row and line.text.strip():
            header, caption = None, line.text
    return out


def _shape(row) -> tuple:
    kind, _, items = row
    return (kind, len(items)) if kind == "numbers" else (kind, tuple(len(x) for x in items))


def _label(text: str | None) -> str | None:
    if text is None:
        return None
    t = re.sub(r"[`*$]|\\text\{([^{}]*)\}", r"\1", text).strip()
    return t if t and t.isprintable() else None


_GROUPED = re.compile(r"(.*?\S)\s*[,;:/]\s*(\S.*)")


def _from_run(run, header, caption) -> list[Printed]:
    """The matrices of a run of table rows; rows labelled by groups of equal size
    (``head 1, row 1`` … ``head 2, row 4``) are one matrix per group, named with its number
    (``W_Q1``, ``W_Q2``)."""
    run = _indexed_rows(run, header)
    groups = _groups(run)
    if groups is None:
        return _from_rows(run, header, caption)
    out = []
    for n, part in groups:
        for p in _from_rows(part, header, caption):
            out.append(replace(p, name=f"{p.name}{n}" if p.name else "",
                               rows=tuple(_GROUPED.fullmatch(r).group(2) for r in p.rows) if p.rows else None))
    return out


def _indexed_rows(run, header) -> list:
    """The rows with their first column as their labels where it numbers them (``| 0 |
    -5.37 | …``, ``| 1 | …``: 0, 1, 2 … or 1, 2, 3 …, whole numbers) under a header that
    names it with a word (``| Token | 0 | 1 | …``): an index, not a column of numbers."""
    if len(run) < 2 or run[0][1][0] != "numbers" or not indexed(header) or \
            len(header) != len(run[0][1][2]) or any(r[1] is not None for _, r in run):
        return run
    first = [r[2][0][1] for _, r in run]
    if not numbering(first):
        return run
    return [(line, ("numbers", t, r[2][1:])) for (line, r), t in zip(run, first)]


def _groups(run) -> list | None:
    """(group number, rows) of rows labelled ``<group>, <row>``: two groups or more of
    equal size, each named with one number; else None."""
    labels = [_label(r[1]) or "" for _, r in run]
    found = [_GROUPED.fullmatch(t) for t in labels]
    if len(run) < 4 or not all(found):
        return None
    keys = list(dict.fromkeys(m.group(1) for m in found))
    numbers = [re.findall(r"\d+", k) for k in keys]
    size = len(run) // len(keys)
    if len(keys) < 2 or size < 2 or any(len(n) != 1 for n in numbers) or \
            [m.group(1) for m in found] != [k for k in keys for _ in range(size)]:
        return None                        # one group, groups of other sizes, or interleaved
    return [(n[0], [r for r, m in zip(run, found) if m.group(1) == k]) for k, n in zip(keys, numbers)]


def _from_rows(run, header, caption) -> list[Printed]:
    labels = tuple(_label(r[1]) for _, r in run)
    rows = labels if all(labels) and len(set(labels)) == len(labels) else None
    if len(run) == 1 and not rows:
        return []
    kind = run[0][1][0]
    line = run[0][0].number
    last = max(max(ln.source_lines()) for ln, _ in run)
    end = last if last != line + len(run) - 1 else 0
    if kind == "numbers":
        name = name_above(caption) or _corner(header, len(run[0][1][2]))
        if len(run) == 1 and not name:
            return []
        values = tuple(tuple(v for v, _ in r[2]) for _, r in run)
        texts = tuple(tuple(t for _, t in r[2]) for _, r in run)
        names = _functions_of(header, len(values[0]))
        if names and not rows and len(run) > 1:   # | x | GELU(x) | ReLU(x) |: a column each
            return [Printed(n, line, tuple((r[j],) for r in values), tuple((r[j],) for r in texts), None,
                            "table", end) for j, n in enumerate(names)]
        return [Printed(name or "", line, values, texts, rows, "table", end)]
    out = []
    heads = (header or [])[-len(run[0][1][2]):] if header else []
    for j in range(len(run[0][1][2])):
        mat = as_matrix([r[2][j] for _, r in run])
        if not mat:
            continue
        name = (_plain_name(heads[j]) if j < len(heads) else None) or (
            _plain_name(run[0][1][1]) if len(run) == 1 else None)
        if len(run) == 1 and not name:
            continue
        out.append(Printed(name or "", line, *mat, rows if len(run) > 1 else None, "table", end))
    return out


_CALL = re.compile(r"([A-Za-z][\w.]{0,15})\s*\(\s*([A-Za-z]\w*)\s*\)")


def _functions_of(header: list[str] | None, width: int) -> list[str] | None:
    """The names of a table's columns when its header is a variable and functions of it
    (``| Input x | GELU(x) | ReLU(x) |``: x, GELU, ReLU), each column a quantity of its own;
    else None."""
    if not header or len(header) != width or width < 2:
        return None
    cells = [re.sub(r"[`*$]", "", c).strip() for c in header]
    x = cells[0].split()[-1] if cells[0].split() else ""
    calls = [_CALL.fullmatch(c) for c in cells[1:]]
    if not re.fullmatch(r"[A-Za-z]\w*", x) or not all(m and m.group(2) == x for m in calls):
        return None
    return [x] + [m.group(1) for m in calls]


_SYMBOL = re.compile(r"[A-Za-z](?:_\{?\w+\}?|\^\{?\w+\}?)+|[A-Z]\w{0,3}")   # W_O, x_1, X, QK


def _corner(header: list[str] | None, width: int) -> str | None:
    """The symbol in a table's top-left cell over labelled rows (``| W_O | c0 | c1 |``):
    the matrix's name; a word there (``token``) names the labels, not the matrix."""
    if not header or len(header) != width + 1:
        return None
    cell = re.sub(r"[`*$]", "", header[0]).strip()
    return latex_name(cell) if _SYMBOL.fullmatch(cell) else None


def _plain_name(text: str | None) -> str | None:
    """A cell or label that is a symbol (``Q``, ``$W_Q$``, ``x_{\\text{love}}``), or a
    header whose last math is one (``Positional Encoding $P_i$``, as the check reads it)."""
    math = re.findall(r"\$([^$]+)\$", text or "")
    t = (math[-1] if math else text or "").strip().strip("`*$ ")
    if not re.fullmatch(r"\\?[A-Za-z][\w{}\\^]*", t):
        return None
    return latex_name(t)
