"""The matrices and vectors an article prints, read from its lines (for ``new --from``).

Five forms, each kept with the article line it starts on:

* LaTeX ``bmatrix``/``pmatrix``/``array`` environments, read by
  :mod:`symattn.spec.latex_import` (as ``symattn import`` reads them);
* bracket lists in code and printed output: PyTorch ``tensor([[0.4419, 0.6515]])``, NumPy
  ``array([[1., 0.]])`` and ``[[0.1 0.2]\\n [0.3 0.4]]``, Python lists ``[[1, 2], [3, 4]]``
  (a masked entry ``-inf`` too);
  a one-row list only when code names it (``x = [0.8, 1.2]``) or a printout wraps it;
* tables: Markdown ``| love | 0.8 | 1.2 |``, tab-separated rows of numbers or plain-text
  rows whose cells two or more spaces apart (outside brackets) separate; a first cell
  that is not a number labels the row (a whole number before vectors too: a position,
  ``| 1 | [0.01, 0.02] |``); a column of bracket vectors (``love\\t[0.8, 1.2]``)
  gives one matrix per column;
* runs of labelled vectors, one a line: ``1番目の文字のベクトル = [1, 0]``.
* matrices printed one row a line under or beside their names (:mod:`.rows`).

A matrix is named from the text on its left (``W_Q = \\begin{bmatrix}``,
``X = torch.tensor(``), a table's column header or the caption line above it (``X:``);
otherwise it is ``M1``, ``M2``, … . Nothing is evaluated: numbers go through
:func:`symattn.spec.latex_cells.cell_value`. Everything is one pass over the text.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..errors import LimitError, SymattnError
from ..spec.latex_import import MATRIX_ENVS, latex_name, read_matrices
from .boxed import boxed
from .cells import MINUS_INF as _MINUS_INF, Printed, indexed, name_above, number, numbering
from .rows import stacked_rows
from .side import side_by_side
from .source import Line

MAX_MATRICES = 1000
MAX_LIST_ENTRIES = 10_000     # a longer bracket list is not read as a matrix


# ---- numbers and bracket lists ------------------------------------------------------------

_NUM = re.compile(r"[+\-−]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+\-]?\d+)?")
_SPACE = re.compile(r"(?:\s|\\[ ,;:!]|\\q?quad\b|~)*")


def parse_list(s: str, i: int):
    """The nested list of numbers starting with ``[`` at ``s[i]``: (list, end) or (None, end)
    where ``end`` is where reading stopped (a list of non-numbers, or of more than
    MAX_LIST_ENTRIES numbers, fails there). Numbers are read once the list is complete."""
    stack: list[list] = []
    n, count, joined = len(s), 0, False    # joined: a number ends right here, nothing between
    while i < n:
        j = _SPACE.match(s, i).end()
        glued, joined, i = joined and j == i, False, j
        if i >= n:
            break
        ch = s[i]
        if ch == "[":
            if len(stack) == 2:                      # a matrix is a list of rows: no deeper
                return None, i + 1
            stack.append([])
            i += 1
        elif ch == "]" and stack:
            done = stack.pop()
            i += 1
            if not stack:
                return _numbers(done), i
            stack[-1].append(done)
        elif ch == "," and stack:
            i += 1
        elif ch == "#" and stack and "\n" in s[i:i + 500]:    # a code comment between rows
            i = s.index("\n", i)
        else:
            m = _NUM.match(s, i) or _MINUS_INF.match(s, i)
            if not m or not stack or len(m.group(0)) > 200 or glued:
                return None, max(i, 1)          # joined: ``[0.2+0+0.1, …]``, a sum, not three entries
            count += 1
            if count > MAX_LIST_ENTRIES:
                return None, m.end()
            stack[-1].append(m.group(0))
            i, joined = m.end(), True
    return None, i


def _numbers(value):
    """The nested list of number texts as (value, TOML text) pairs, or None."""
    out = []
    for x in value:
        v = _numbers(x) if isinstance(x, list) else number(x)
        if v is None:
            return None
        out.append(v)
    return out


def as_matrix(value) -> tuple | None:
    """(values, texts) of a rectangular list of numbers (a flat list is one row)."""
    if not value:
        return None
    rows = value if isinstance(value[0], list) else [value]
    if any(not isinstance(r, list) or not r or any(isinstance(x, list) for x in r) for r in rows):
        return None
    if len({len(r) for r in rows}) != 1:
        return None
    return tuple(tuple(v for v, _ in r) for r in rows), tuple(tuple(t for _, t in r) for r in rows)


# ---- the four forms -----------------------------------------------------------------------

def _blob(lines: list[Line]) -> tuple[str, list[int]]:
    return "\n".join(l.text for l in lines), [l.number for l in lines]


def _line_counter(blob: str):
    """``at(pos)``: the 0-based line of ``blob[pos]``, for positions that only grow (each
    newline is counted once: linear over the whole blob)."""
    state = [0, 0]                                   # position counted up to, lines before it

    def at(pos: int) -> int:
        if pos < state[0]:
            return blob.count("\n", 0, pos)
        state[1] += blob.count("\n", state[0], pos)
        state[0] = pos
        return state[1]
    return at


_ENV_BEGIN = re.compile(r"\\begin\s*\{(" + "|".join(re.escape(e) for e in sorted(MATRIX_ENVS)) + r")\}")


def latex(lines: list[Line]) -> list[Printed]:
    """LaTeX matrix environments in the lines' text (a matrix that cannot be read is left
    out; the others are still found)."""
    text, numbers = _blob(lines)
    if "\\begin" not in text:
        return []
    try:
        found = [(m, 0) for m in read_matrices(text, None)]
    except SymattnError:
        found = _one_by_one(text)
    return [Printed(m.name if not re.fullmatch(r"M\d+", m.name) else "", numbers[m.line - 1 + off],
                    m.values, m.texts, getattr(m, "rows", None))
            for m, off in found if m.line - 1 + off < len(numbers)]


def _one_by_one(text: str) -> list:
    out, prev_end, at = [], 0, _line_counter(text)
    for k, m in enumerate(_ENV_BEGIN.finditer(text)):
        if m.start() < prev_end or k > MAX_MATRICES:
            continue
        end = text.find("\\end{" + m.group(1) + "}", m.end())
        if end < 0:
            break
        end += len(m.group(1)) + 6
        start = max(prev_end, text.rfind("\n", 0, max(prev_end, m.start() - 300)) + 1)
        try:
            out += [(x, at(start)) for x in read_matrices(text[start:end], None)]
        except SymattnError:
            pass
        prev_end = end
    return out


_ARROW_NOTE = re.compile(r"(?<=[\],])[ \t]+(?:←|⟵|<-+)[^\n]*"      # a note after a row, not a number of it
                         r"|(?<=\],)[ \t]+(?=[^\s\[#\d.+-])[^\n\[]*$", re.M)   # ``[2.0, 0.0],   cat→cat=2``
                                                                   # (no list in it: ``], k = [``)
_CALL = re.compile(r"(?:(?:torch|np|numpy|jnp)\.)?(?:tensor|array|asarray|Tensor|FloatTensor)\s*\(\s*$")
_FIRST = re.compile(r"\s*([^\W\d]\w*(?:\^\{?\w+\}?)?)\s*=(?!=)")    # ``q = x × W^Q = [``: q
_ASSIGN = re.compile(r"((?<![\w^])[^\W\d]\w*(?:\^\{?\w+\}?)?)\s*=\s*(?:(?:torch|np|numpy|jnp)\.\w+\s*\(\s*)?$")
_CAPTION = re.compile(r"^\s*([A-Za-z_]\w*)\s*:\s*$")          # ``exp: [3.145, 2.489]`` opening its line
_OF_TOKEN = re.compile(r"^\s*([^\W\d]\w*\s*\(\s*\w+\s*\))\s*(?:=(?!=)|≈)")   # ``output(the) = … = [``, ``PE(1) ≈ [``
_ARROWED = re.compile(r"^\s*([^\W\d]\w*(?:\s+\d+)?(?:\s*\(\s*[^\W\d]\w*\s*\))?)\s*(?:->|→)\s*$")   # ``pos 1 (cat) -> [``


def bracket_lists(lines: list[Line]) -> list[Printed]:
    """Bracket lists in code and output lines (several lines may hold one list): a matrix,
    or a vector that a name assigns (``q = [..]``), a call wraps (``tensor([..])``) or a
    one-word caption opens its line with (``exp: [3.145, 2.489]``)."""
    text, numbers = _blob(lines)
    text = _ARROW_NOTE.sub("", text)       # ``[0.27, 0.45],    ← "The" attends …``, ``cat→cat=2``
    out, i, at = [], 0, _line_counter(text)
    while len(out) <= MAX_MATRICES:
        i = text.find("[", i)
        if i < 0:
            break
        value, end = parse_list(text, i)
        if value is None:
            i = max(end, i + 1)
            continue
        left = text[text.rfind("\n", 0, i) + 1:i]
        name = (_FIRST.match(left) if left.count("=") > 1 else None) or _OF_TOKEN.match(left) or \
            _ASSIGN.search(left) or _CAPTION.match(left) or _ARROWED.match(left)
        wrapped = _CALL.search(left)
        mat = as_matrix(value)
        if mat and (isinstance(value[0], list) or name or wrapped):
            out.append(Printed(_word(name.group(1)) if name else "", numbers[at(i)], *mat,
                               rows=_commented_rows(text[i:end], len(mat[0])), form="list"))
        i = end
    return out


def _word(name: str) -> str:
    """A name as one word: ``output(the)`` -> ``output_the``, ``pos 1 (cat)`` -> ``pos_1_cat``."""
    return re.sub(r"[\s()]+", "_", name).strip("_")


_ROW_COMMENT = re.compile(r"\]\s*,?\s*#\s*(?:\"([^\"\n]{1,24})\"|'([^'\n]{1,24})'|([^\W\d]\w{0,23}))\s*$", re.M)


def _commented_rows(segment: str, n: int) -> tuple | None:
    """Row labels a list literal's rows carry in comments, one per row (``[0.1, 0.3],  #
    "Hello"``; a quoted token or one word), or None."""
    labels = [(a or b or c).strip() for a, b, c in _ROW_COMMENT.findall(segment + "\n")]
    if len(labels) != n or len(set(labels)) != n or not all(labels):
        return None
    return tuple(labels)


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


def _spaced(s: str) -> list[str]:
    """The cells of a plain-text table row: runs of two or more spaces outside brackets
    separate them (``1番目     1      0``, ``[1, 0, 1]      [1, −∞, −∞]``)."""
    cells, depth, start, k = [], 0, 0, 0
    s = s.strip()
    while k < len(s):
        ch = s[k]
        depth += (ch in "[(") - (ch in "])")
        if depth == 0 and s.startswith("  ", k):
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
    for number, part in groups:
        for p in _from_rows(part, header, caption):
            out.append(replace(p, name=f"{p.name}{number}" if p.name else "",
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


def find(lines: list[Line]) -> list[Printed]:
    """Every matrix of the article, in line order (code/output lists, rows a line, tables,
    LaTeX)."""
    code = [l for l in lines if l.kind in ("code", "output")]
    nested = _nested_lines([l for l in lines if l.kind != "math"])
    stacked, used = stacked_rows([l for l in lines if l.number not in nested])
    code = boxed([l for l in code if l.number not in used])
    prose = [l for l in lines if l.kind == "text" and l.number in nested]
    rest = [l for l in lines if l.kind not in ("code", "output") and l.number not in used]
    lists = [p for column in side_by_side(code) for p in bracket_lists(column)]
    found = sorted(latex(rest) + lists + _nested_lists(prose) + tables(rest) + stacked,
                   key=lambda p: p.line)
    if len(found) > MAX_MATRICES:                # all of them, or a refusal: never some
        raise LimitError(f"more than {MAX_MATRICES} matrices (the next at line "
                         f"{found[MAX_MATRICES].line})", hint="split the article, or raise "
                         "symattn.article.matrices.MAX_MATRICES on purpose")
    return found


def _nested_lists(lines: list[Line]) -> list[Printed]:
    """The lists of rows that prose lines print (``W1 = [[0.5, -1.0],`` and its rows on the
    lines below, in a plain-text post): a matrix as in code; a one-row list there is left to
    the prose reading."""
    return [p for p in bracket_lists(lines) if p.shape[0] >= 2]


def _nested_lines(lines: list[Line], least: int = 1) -> set[int]:
    """The lines a nested bracket list spans (its rows are not rows a line); ``least``: the
    lines a list must span to count."""
    text, numbers = _blob(lines)
    out, i, at = set(), 0, _line_counter(text)
    while True:
        i = text.find("[", i)
        if i < 0:
            return out
        value, end = parse_list(text, i)
        first, last = (at(i), at(max(end - 1, i))) if value and isinstance(value[0], list) else (0, -1)
        if last - first + 1 >= least:
            out |= set(numbers[first:last + 1])
        i = max(end, i + 1)
