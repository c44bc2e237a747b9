"""Per-token vectors and plain-text tables as candidates of an inference.

Hand-written worked examples print one vector per token in prose and display lines
(``Q_love = [0.92, 1.24]``, ``exp を取ると [2.718, 1, 2.718]、...``, a line ``[1.158, 1.6976]``)
and tables aligned by spaces rather than tabs or ``|`` (a plain-text article)::

            1番目  2番目  3番目
    1番目     1      0      1
    1番目の行  [0.422, 0.155, 0.422]

The article reading (:func:`symattn.article.matrices.find`) takes a one-row list only where
code names it, and a table only when tab- or ``|``-separated. For the inference these are
candidates too: a vector is a ``1 × d`` block (a row that a row of another block times a
weight matrix, or a softmax of a row of scores, may reproduce), and a space-aligned table is
read by the same table reader once its runs of two or more spaces are taken as cell breaks.
Nothing here is evaluated: the lists go through :func:`symattn.article.cells.parse_list`.
"""

from __future__ import annotations

import re

from ..article.code import program
from ..article.cells import Printed, as_matrix, number, parse_list
from ..article.matrices import _ASSIGN, _nested_lines
from ..article.tables import tables
from ..article.source import Line
from ..spec.latex_import import _name_before

MAX_VECTORS = 400           # one-row lists of one article read as candidates (the first ones)
_GAP = re.compile(r"(?<=\S) {2,}(?=\S)|\u3000+")


# a printout's line of one list under a caption: ``Layer(x) + x:  [ 0.03,  1.20]   ← preserved``,
# ``2. Scale: [0.05, 0.11]`` (a numbered step)
_CAPTIONED = re.compile(r"\s*(?:\d{1,2}[.)]\s+)?[^\W\d_][^:=\[\]\n]{0,40}:\s*\[[^\[\]\n]*\]"
                        r"(?:\s*(?:\([^()\n]*\)|(?:←|<-|#|//)[^\n]*))*\s*")


_CAPTION = re.compile(r"\s*[^\W\d_][^\[\]\n]{0,80}:\s*")       # ``Original activations:`` alone
_LIST_ALONE = re.compile(r"\s*\[[^\[\]\n]*\](?:\s*(?:←|<-|#|//)[^\n]*)?\s*")  # its list, next line


def _captioned_below(ln: Line, above: str, below: str) -> bool:
    """Is printout line ``ln`` one list under a caption of its own line (``Random mask (90%
    keep):`` over ``[1, 1, 0, 1]``), and no row of a matrix printed a row a line?"""
    return ln.kind in ("code", "output") and bool(_LIST_ALONE.fullmatch(ln.text)) and \
        bool(_CAPTION.fullmatch(above)) and not _ROW_BELOW.match(below)


_WORKED = re.compile(r"\][^\[\]=≈→]*(?:=|≈|→)\s*\[")     # a list worked on: ``…]) = [``, ``…] × W2 + b2 = [``
_ROW_BELOW = re.compile(r"\s*\[")


def _worked(ln: Line, below: str) -> bool:
    """Does code line ``ln`` work a list out by hand (``softmax([2.1, -∞]) = [1.0, 0.0]``,
    ``[0.47, 0.47, 0.0] × W2 + b2 = [0.28, …]``): no program statement, a list its result,
    and no row of a matrix printed a row a line (``below``, the next line, no list)?"""
    return ln.kind == "code" and bool(_WORKED.search(ln.text)) and not _ROW_BELOW.match(below) \
        and not program(ln)


def extra(lines: list[Line], found: list[Printed]) -> tuple[list[Printed], set]:
    """(the blocks :func:`find` leaves out, in line order: tables aligned by spaces or of
    one-row LaTeX matrices, then the bracket lists of prose and display lines (and of a
    printout's lines that print one list under a caption, ``Layer(x):  [-0.17, …]``), one a row of
    at least two numbers; the lines of a table of LaTeX vectors, whose one-row matrices
    :func:`find` read one by one: the table's columns are those vectors). A list on a line a
    found block starts on is that block's (left to it), unless it is none of its rows: a
    bias beside its weight (``W_1 = \\begin{bmatrix}…\\end{bmatrix},\\ b_1 = [0.1, 0]``)."""
    prose = [ln for ln in lines if ln.kind in ("text", "math")]
    tabled, covered = aligned(prose)
    taken = {p.line for p in found} - covered
    out = [p for p in tabled if p.line not in taken]
    taken |= {p.line for p in out} | covered
    rows = {}                                 # line -> the rows of the blocks found on it
    for p in found:
        rows.setdefault(p.line, set()).update(p.values)
    below = {ln.number - 1: ln.text for ln in lines}
    above = {ln.number + 1: ln.text for ln in lines}
    printout = [ln for ln in lines if ln.kind in ("code", "output") and _CAPTIONED.fullmatch(ln.text)
                or _worked(ln, below.get(ln.number, ""))
                or _captioned_below(ln, above.get(ln.number, ""), below.get(ln.number, ""))]
    out += [p for p in prose_lists(sorted(prose + printout, key=lambda ln: ln.number)) if p.line not in taken
            or (p.line in rows and p.line not in covered and p.values[0] not in rows[p.line])]
    taken |= {p.line for p in out}
    out += [p for p in labelled_rows(lines) if p.line not in taken]
    taken |= {p.line for p in out}
    out += [p for p in flattened_rows(prose) if p.line not in taken]
    taken |= {p.line for p in out}
    out += [p for p in table_columns(prose) if p.line not in taken]
    return sorted(out, key=lambda p: p.line), covered


def table_columns(lines: list[Line]) -> list[Printed]:
    """The columns of a tab-separated table of labelled rows that the table reader leaves
    out for cells that are no plain number: a percentage (``58.7%``), a worked cell
    (``1×0.5 + 0×1 = 0.5``: its result). One quantity per column over the rows (the keys,
    the vocabulary: dot products, scaled, masked, softmax), each column a ``1 × n`` vector
    named by its header cell."""
    out: list[Printed] = []
    run: list = []
    for ln in lines + [Line(0, "")]:
        cells = [c.strip() for c in ln.text.strip().split("\t")] if "\t" in ln.text.strip() else []
        if cells and len(cells) >= 3 and (not run or (len(cells) == len(run[-1][1])
                                                     and ln.number == run[-1][0].number + 1)):
            run.append((ln, cells))
            continue
        out += _columns(run)
        run = [(ln, cells)] if cells and len(cells) >= 3 else []
    return out


def _columns(run: list) -> list[Printed]:
    """The columns of one run of tab lines (the first a header when its cells are no numbers)."""
    from ..article.cells import number
    from ..spec.functions import names
    header = run[0][1] if run and all(number(c) is None and _cell(c) is None for c in run[0][1][1:]) else None
    rows = run[1:] if header else run
    if len(rows) < 2 or any(number(cells[0]) is not None for _, cells in rows):
        return []                               # labelled rows only
    functions = {n.lower() for n in names()}
    cols = [[_cell(c[j]) for _, c in rows] for j in range(1, len(rows[0][1]))]
    if all(all(x is not None and x[2] for x in col) for col in cols):
        return []                               # all plain numbers: the table reader's
    out = []
    for j, col in enumerate(cols, 1):
        if all(x is not None for x in col) and len(set(x[0] for x in col)) > 1:
            name = header[j] if header and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", header[j]) else ""
            name = "" if name.lower() in functions else name      # "softmax", "Q·K": no block's name
            out.append(Printed(name or "", rows[0][0].number, (tuple(x[0] for x in col),),
                               (tuple(x[1] for x in col),), form="prose"))
    return out


_OPERATOR = re.compile(r"[×*·+−-]")


def _cell(c: str):
    """(value, text, plain) of a table cell: a number, a percentage (``58.7%``: 0.587), the
    result of a worked cell (``1×1 + 0×0 = 1``); None for any other."""
    from fractions import Fraction
    from ..article.cells import number
    from ..claims.printed import parse_number
    from ..errors import ParseError
    c = c.strip()
    k = max(c.rfind("="), c.rfind("≈"))           # a worked cell: its last result
    if k > 0 and _OPERATOR.search(c, 0, k):
        n = number(c[k + 1:].strip())
        return (n[0], n[1], False) if n else None
    if c.endswith(("%", "％")):                 # 58.7% (or the full-width ％): 0.587
        try:
            p = parse_number(c)
        except ParseError:
            return None
        return (p.value / 100, c[:-1] + "%", False) if isinstance(p.value, Fraction) else None
    n = number(c)
    return (n[0], n[1], True) if n else None


# a printout's row under its label, numbers apart by spaces: ``softmax    0.4251  0.1910  0.2111``,
# ``logits = sim / tau   12.857   1.429``; a note after an arrow may end it
_LABELLED_ROW = re.compile(r"\s*(?P<label>[^\W\d_][\w ./=()]{0,40}?)\s*:?\s{2,}"
                           r"(?P<row>[-+−]?(?:\d+\.?\d*|\.\d+)(?:\s+[-+−]?(?:\d+\.?\d*|\.\d+)){1,15})"
                           r"\s*(?:(?:<-|←)[^\n]*)?")


def labelled_rows(lines: list[Line]) -> list[Printed]:
    """The rows a printout (a code block's or an output's lines) prints one a line under a
    label, its numbers apart by spaces (``softmax   0.4251  0.1910  0.2111  0.1728``): each
    a vector, named by the label's first word."""
    from ..article.tokens import numbers_in
    out: list[Printed] = []
    for ln in lines:
        m = _LABELLED_ROW.fullmatch(ln.text) if ln.kind in ("code", "output") else None
        nums = numbers_in(ln) if m else []
        cells = [number(n.printed) for n in nums if n.start >= m.start("row")] if m else []
        if len(cells) >= 2 and all(cells) and len(out) < MAX_VECTORS:
            name = re.match(r"[^\W\d_]\w*", m.group("label")).group()
            out.append(Printed(name, ln.number, (tuple(v for v, _ in cells),),
                               (tuple(t for _, t in cells),), form="prose"))
    return out


def flattened_rows(lines: list[Line]) -> list[Printed]:
    """A vector printed as one row of a table flattened into text, every cell glued to its
    label (``成分10成分2-1.414成分31.414成分40``: 0, −1.414, 1.414, 0), as the article
    reading tokenizes it (:attr:`symattn.article.tokens.Number.cell`)."""
    from ..article.tokens import numbers_in
    out: list[Printed] = []
    for ln in lines:
        nums = numbers_in(ln)
        if len(nums) >= 2 and all(n.cell for n in nums) and len(out) < MAX_VECTORS:
            out.append(Printed("", ln.number, (tuple(n.value for n in nums),),
                               (tuple(n.printed for n in nums),), form="prose"))
    return out


_LATEX_ROW = re.compile(r"\$?\\begin\{([bpvBV]?matrix)\}((?:(?!\\\\|\\end).)*)\\end\{\1\}\$?")


def _vector_cells(text: str) -> str:
    """A one-row LaTeX matrix in a cell (``$\\begin{bmatrix}1 & 0\\end{bmatrix}$``) as a bracket
    list (``[1, 0]``), for the table reader."""
    return _LATEX_ROW.sub(lambda m: "[" + ", ".join(c.strip() for c in m.group(2).split("&")) + "]", text)


def aligned(lines: list[Line]) -> tuple[list[Printed], set]:
    """(tables whose cells are separated by tabs or runs of spaces, their one-row LaTeX
    matrices read as vectors: each such line read as if tab-separated, by the table
    reader with its own rows, labels and headers; the lines of the tables of LaTeX vectors)."""
    spaced, latex = [], set()
    for ln in lines:
        t = ln.text.strip()
        cells = _GAP.sub("\t", t) if _GAP.search(t) else t
        if "\t" in cells and _LATEX_ROW.search(cells):
            cells = _vector_cells(cells)
            latex.add(ln.number)
        spaced.append(Line(ln.number, cells if "\t" in cells else ln.text, "text"))
    if not any("\t" in ln.text for ln in spaced):
        return [], set()
    out = [p for p in tables(spaced) if p.form == "table"]
    covered = {n for p in out for n in range(p.line, p.line + p.shape[0]) if n in latex}
    return out, covered


def prose_lists(lines: list[Line]) -> list[Printed]:
    """Each bracket list of numbers in prose or display text (``[0.8,\\ 1.2]``), named by a
    ``NAME =`` on its left when there is one."""
    out: list[Printed] = []
    nested = _nested_lines(lines, least=2)
    for k, ln in enumerate(lines):
        s, i = as_lists(ln.text), 0
        while len(out) < MAX_VECTORS:
            i = s.find("[", i)
            if i < 0:
                break
            if ln.number in nested and not _ASSIGN.search(s[:i]):
                i += 1                    # a row of a list of rows (a matrix of its own)
                continue
            value, end = parse_list(s, i)
            run_over = value is None and "]" not in s[i:] and _BREAK_AT_END.search(s)
            t, j = _continued(lines, k, i) if run_over else (s, i)    # on the lines it runs over
            if run_over:
                value, end = parse_list(t, j)
            mat = as_matrix(value) if value else None
            if mat and len(mat[0][0]) >= 2 and _alone(t, j, end):
                name = "" if _product_before(s[:i]) else _name_before(s[:i]) or ""
                out.append(Printed(name, ln.number, *mat, form="prose"))
            if run_over:
                break
            i = max(end, i + 1)
    return out


_TUPLE = re.compile(r"\((?=\s*[+\-−]?\.?\d)([^()\[\]]*),([^()\[\]]*)\)")
_TUPLE_ENTRIES = re.compile(r"\s*[+\-−]?(?:\d+(?:\.\d*)?|\.\d+)\s*(?:,\s*[+\-−]?(?:\d+(?:\.\d*)?|\.\d+)\s*)+")
_VALUE_BEFORE = re.compile(r"(?:=|≈|→|⇒|\\approx|\\to|\\(?:long)?[rR]ightarrow|\\left|"
                           r"(?<![A-Za-z])(?:soft|arg|hard)?max|(?<![A-Za-z])(?:RMS|Layer)?Norm|ReLU|GELU|SiLU"
                           r"|sigmoid|tanh)\}?\s*$", re.I)


def as_lists(text: str) -> str:
    """``text`` with each tuple of numbers printed as a value written as a list, in place
    (the same length, so columns stay): ``softmax(8, 0, 0) = (0.9993, 0.0003, 0.0003)``
    reads as two vectors. A tuple is a value on the right of ``=``, ``≈``, ``→`` or as the
    argument of an operation named before it; elsewhere (``see (1, 2)``, a point in prose)
    it stays text."""
    out = list(text)
    for m in _TUPLE.finditer(text):
        inner = text[m.start() + 1:m.end() - 1]
        if _TUPLE_ENTRIES.fullmatch(_SPACING.sub(" ", inner)) and _VALUE_BEFORE.search(text[:m.start()]):
            out[m.start()], out[m.end() - 1] = "[", "]"
    return "".join(out)


_SPACING = re.compile(r"\\[ ,;:!]|~")


_MATH_LHS = re.compile(r"\$([^$=]*)=\s*$")
_SYMBOL = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?:_\{[^{}]*\}|_\w+)?(?![A-Za-z])")
_BOLD = re.compile(r"\\(?:mathbf|boldsymbol|bm|vec|hat|tilde|bar)\s*\{([^{}]*)\}")
_WRAPPER = re.compile(r"\\(?:text|mathrm|mathit|operatorname)\s*\{[^{}]*\}|\\[A-Za-z]+")


def _product_before(text: str) -> bool:
    """Does ``text`` end with a product in math (``$\\hat x W_1 =``, ``$R_m x =``): two
    symbols side by side on the left of ``=``, which name no block?"""
    m = _MATH_LHS.search(text)
    return m is not None and len(_SYMBOL.findall(_WRAPPER.sub(" ", _BOLD.sub(r" \1 ", m.group(1))))) >= 2


_BREAK_AT_END = re.compile(r"\\\\\s*$")          # an aligned display's line break
_ALIGN = re.compile(r"&|\\\\\s*$")
MAX_CONTINUED = 4           # lines a list of an aligned display runs over


def _continued(lines: list[Line], k: int, i: int) -> tuple[str, int]:
    """(the text of line ``k`` from its ``[`` at ``i`` on, joined with the display lines it
    runs over up to its ``]``; 0): ``z = [&0.893,\\ 0.930,\\\\`` then ``&0.640]``. The
    ``&`` and ``\\\\`` of an aligned display are layout, not entries."""
    parts = [lines[k].text[i:]]
    for ln in lines[k + 1:k + 1 + MAX_CONTINUED]:
        if ln.number != lines[k].number + len(parts):
            break
        parts.append(ln.text)
        if "]" in ln.text or not _BREAK_AT_END.search(ln.text):
            break
    return " ".join(_ALIGN.sub(" ", p) for p in parts), 0


def _alone(s: str, i: int, end: int) -> bool:
    """A list printed as a value, not an index or an operand of a product written next to
    it (``0.212 × [1, 0]``, ``[0.8, 1.2] ⋅ W``): no product sign on either side, nor a call
    right after it (``[0.8, 1.2](x)``; an aside apart from it is a note: ``[…]  (sum = 1.0)``)."""
    left, right = s[:i].rstrip(), s[end:].lstrip()
    return not re.search(r"(?:[×·⋅*\]]|\\cdot|\\times)$", left) and not re.match(r"[×·⋅*\[]|\\cdot|\\times", right) \
        and not s.startswith("(", end)
