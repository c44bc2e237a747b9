"""The matrices of a LaTeX fragment as exact spec inputs (``symattn import``).

Reads ``bmatrix``, ``pmatrix`` (and the other ``*matrix`` environments) and ``array``:
rows end at ``\\\\``, columns are split at ``&``. A cell is a decimal (``-0.3``, ``−0.3``,
``.5``, ``1.2e-3``, ``1.2 \\times 10^{-3}``), a fraction (``\\frac{1}{3}``, ``\\tfrac12``,
``1/3``) or ``-\\infty``, optionally wrapped in ``{}``, ``\\mathbf{}``, ``\\text{}`` and
the like (each cell read by :func:`.latex_cells.cell_value`). Nothing is evaluated: the text
is matched by a small grammar and every number goes through
:func:`symattn.numbers.parse_exact`.

A matrix written as ``W_Q = \\begin{bmatrix} … \\end{bmatrix}`` is named ``W_Q``; others
are ``M1``, ``M2``, … . Problems are one :class:`~symattn.errors.ParseError` naming the line,
the matrix, its row and its column.

>>> ms = read_matrices(r"W_Q = \\begin{bmatrix} 1.0 & 0.2 \\\\ 0.1 & \\frac{9}{10} \\end{bmatrix}")
>>> ms[0].name, ms[0].values
('W_Q', ((Fraction(1, 1), Fraction(1, 5)), (Fraction(1, 10), Fraction(9, 10))))
>>> print(inputs_toml(ms, source=None), end="")
[inputs]
W_Q = { value = [[1.0, 0.2], [0.1, "9/10"]], line = 1 }
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import deadline
from ..errors import ParseError, LimitError, SymattnError
from .latex_cells import SPACING, NotANumber, cell_value
from .toml_lines import toml_key

MAX_TEXT = 4_000_000
MAX_ENTRIES = 1_000_000
MATRIX_ENVS = {"bmatrix", "pmatrix", "Bmatrix", "vmatrix", "Vmatrix", "matrix", "smallmatrix",
               "array", "bmatrix*", "pmatrix*", "matrix*"}

_ENV = re.compile(r"\\(begin|end)\s*\{([^{}]*)\}")
_NAME_BEFORE = re.compile(
    r"((?:\\(?:mathbf|boldsymbol|bm|mathrm|mathit|text|mathsf|vec)\s*\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z][A-Za-z0-9]*)"
    r"(?:\s*[_^]\s*(?:\{(?:[^{}]|\{[^{}]*\})*\}|[A-Za-z0-9]))*)"
    r"\s*(?:=|:|:=|\\coloneqq)\s*(?:\\left\s*[\[(]?\s*)?\$?\s*$")
@dataclass(frozen=True)
class ImportedMatrix:
    """One matrix of the fragment: its name, environment, line, exact values and the TOML
    text of each value."""
    name: str
    env: str
    line: int
    values: tuple          # rows of Fraction or NEG_INF
    texts: tuple           # rows of TOML value text
    rows: tuple | None = None   # the row labels of a matrix written as a table, else None

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.values), len(self.values[0]))


_NEWLINES: list = [None, []]      # [the text, offsets of its newlines]: one scan per text


def _line_col(text: str, pos: int) -> tuple[int, int]:
    """Line and column of ``pos`` (1-based), by bisection in the text's newline offsets."""
    import bisect
    if _NEWLINES[0] is not text:
        _NEWLINES[:] = [text, [m.start() for m in re.finditer("\n", text)]]
    nl = _NEWLINES[1]
    k = bisect.bisect_left(nl, pos)
    return k + 1, pos - (nl[k - 1] + 1 if k else 0) + 1


def _strip_comments(text: str) -> str:
    """LaTeX comments (``%`` to the end of the line, not ``\\%``) blanked, positions kept."""
    out = []
    for line in text.split("\n"):
        m = re.search(r"(?<!\\)%", line)
        out.append(line if not m else line[:m.start()] + " " * (len(line) - m.start()))
    return "\n".join(out)


def read_matrices(text: str, source: str | None = "<fragment>") -> list[ImportedMatrix]:
    """Every matrix environment of ``text``, in order (raises ParseError); a matrix that
    repeats the numbers of an earlier one (unnamed, or under the same name) is left out, and
    so is one with a cell that is not a number (a symbolic matrix) when others can be read."""
    return _read(text, source)[0]


def _read(text: str, source: str | None):
    if not isinstance(text, str):
        raise ParseError("LaTeX text expected")
    if len(text) > MAX_TEXT:
        raise LimitError(f"the text has {len(text)} characters, more than {MAX_TEXT}",
                         where=f"{source}:1" if source else None,
                         hint="raise symattn.spec.latex_import.MAX_TEXT on purpose")
    text = _strip_comments(text.replace("\r\n", "\n").replace("\r", "\n"))

    def where(pos):
        line, col = _line_col(text, pos)
        return f"{source}:{line}:{col}" if source else f"line {line}, column {col}"

    stack: list[tuple[str, int, int]] = []       # (env, position of \begin, end of \begin)
    found: list[tuple[str, int, int, int]] = []   # (env, begin pos, body start, body end)
    open_matrices = 0                             # matrix environments on the stack
    for m in _ENV.finditer(text):
        kind, env = m.group(1), m.group(2).strip()
        if kind == "begin":
            stack.append((env, m.start(), m.end()))
            open_matrices += env in MATRIX_ENVS
            continue
        if not stack:
            raise ParseError(f"\\end{{{env}}} without a \\begin{{{env}}}", where=where(m.start()))
        open_env, open_pos, body = stack.pop()
        open_matrices -= open_env in MATRIX_ENVS
        if open_env != env:
            line, col = _line_col(text, open_pos)
            raise ParseError(f"\\end{{{env}}} closes \\begin{{{open_env}}} (opened at line {line}, "
                             f"column {col})", where=where(m.start()))
        if env in MATRIX_ENVS and not open_matrices:
            found.append((env, open_pos, body, m.start()))
    if stack:
        env, pos, _ = stack[-1]
        raise ParseError(f"\\begin{{{env}}} is never closed", where=where(pos),
                         hint=f"add \\end{{{env}}}")
    if not found:
        raise ParseError("no bmatrix, pmatrix or array environment in the text",
                         where=f"{source}:1" if source else None)
    out: list[ImportedMatrix] = []
    names: dict[str, ImportedMatrix] = {}
    first_with: dict = {}                         # values -> name of the first matrix with them
    suffixes: dict[str, int] = {}                 # name -> next _n to try for a repeated name
    repeats: list[tuple[int, str]] = []
    skipped: list[tuple[int, str, NotANumber]] = []
    entries = 0
    for k, (env, begin, body_start, body_end) in enumerate(found):
        deadline.check()
        if env == "array":
            body_start = _skip_array_spec(text, body_start, where)
        prev_end = found[k - 1][3] if k else 0
        name = _name_before(text[prev_end:begin])
        if name is not None and _factor(text[prev_end:begin], text[text.find("}", body_end) + 1:]):
            name = None                           # y = R x = [R][x]: a factor, not y
        label = name or f"M{len(out) + 1}"
        try:
            values, texts, rows = _parse_body(text, body_start, body_end, label, source)
        except NotANumber as e:
            skipped.append((_line_col(text, begin)[0], label, e))
            continue
        entries += sum(len(r) for r in values)
        if entries > MAX_ENTRIES:
            raise LimitError(f"more than {MAX_ENTRIES} entries in the text", where=source)
        line = _line_col(text, begin)[0]
        same = first_with.get(values)
        if same is not None and (name is None or name == same):
            repeats.append((line, same))     # the same numbers again: not a new input
            continue
        final = _unique(name, names, len(out) + 1, suffixes)
        mat = ImportedMatrix(final, env, line, values, texts, rows)
        names[final] = mat
        out.append(mat)
        first_with.setdefault(values, final)
    if skipped and not out:
        raise skipped[0][2]
    return out, repeats, skipped


def _unique(name, names, k, suffixes) -> str:
    """A name not in ``names``: ``name``, else ``name_2``, ``name_3``, … (``suffixes``
    remembers where each name's count is, so n repeats cost n steps, not n²)."""
    from .load import NAME, RESERVED
    if not name or not NAME.fullmatch(name) or name in RESERVED:
        name = f"M{k}"
    if name in names:
        n = suffixes.get(name, 2)
        while f"{name}_{n}" in names:
            n += 1
        suffixes[name] = n + 1
        name = f"{name}_{n}"
    while name in names:
        name += "_"
    return name


def _skip_array_spec(text: str, pos: int, where) -> int:
    """Past ``[t]{cc|c}`` after ``\\begin{array}``."""
    i = pos
    while i < len(text) and text[i] in " \t\n":
        i += 1
    if i < len(text) and text[i] == "[":
        j = text.find("]", i)
        if j < 0:
            raise ParseError("\\begin{array}[ without ]", where=where(i))
        i = j + 1
        while i < len(text) and text[i] in " \t\n":
            i += 1
    if i >= len(text) or text[i] != "{":
        raise ParseError("\\begin{array} needs its column specification, e.g. {cc}",
                         where=where(pos))
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    raise ParseError("unbalanced braces in the column specification of \\begin{array}",
                     where=where(i))


_ROW_END = re.compile(r"\\\\(?:\\(?=\s))?(?:\s*\[[^\]\\\n]{0,40}\])?|\\cr\b")   # \\[2pt]: bounded, linear;
                                # ``\\\`` ending a line: a row end as Markdown writers escape it


def _parse_body(text: str, start: int, end: int, label: str, source):
    body = text[start:end]
    if body.count("&") + body.count("\\\\") + 1 > MAX_ENTRIES:     # before reading any cell
        line = _line_col(text, start)[0]
        raise LimitError(f"matrix {label} has more than {MAX_ENTRIES} entries",
                         where=f"{source}:{line}" if source else f"line {line}",
                         hint="raise symattn.spec.latex_import.MAX_ENTRIES on purpose")
    rows_text = []
    pos = 0
    for m in _ROW_END.finditer(body):
        rows_text.append((body[pos:m.start()], start + pos))
        pos = m.end()
    rows_text.append((body[pos:], start + pos))
    # a row ending the body after the last \\ is empty: drop it (and empty rule-only rows)
    rows = [(r, p) for r, p in rows_text if SPACING.sub("", r).strip()]
    if not rows:
        line = _line_col(text, start)[0]
        raise ParseError(f"matrix {label} is empty", where=f"{source}:{line}" if source else f"line {line}")
    labels = _labels(rows)
    if labels is not None:                         # - & K_1 & K_2 \\ Q_1 & 2 & 0: a table
        rows = [(row[a:], rpos + a) for (row, rpos), a in zip(rows[1:], labels[1])]
    values, texts = [], []
    width = None
    for r, (row, rpos) in enumerate(rows, start=1):
        cells = _split_cells(row)
        line = _line_col(text, rpos + (len(row) - len(row.lstrip())))[0]
        loc = f"{source}:{line}" if source else f"line {line}"
        if width is None:
            width = len(cells)
        elif len(cells) != width:
            col = min(len(cells), width) + 1
            raise ParseError(f"matrix {label}, row {r}, column {col}: row {r} has {_entries(len(cells))} "
                             f"but row 1 has {_entries(width)}", where=loc,
                             hint="every row needs the same number of & columns")
        vrow, trow = [], []
        for c, (cell, cpos) in enumerate(cells, start=1):
            cline = _line_col(text, rpos + cpos)[0]
            cloc = f"{source}:{cline}" if source else f"line {cline}"
            try:
                v, t = cell_value(cell)
            except SymattnError as e:
                kind = NotANumber if isinstance(e, NotANumber) else ParseError
                raise kind(f"matrix {label}, row {r}, column {c}: {e.message}",
                           where=cloc, hint=e.hint) from None
            vrow.append(v)
            trow.append(t)
        values.append(tuple(vrow))
        texts.append(tuple(trow))
    return tuple(values), tuple(texts), (labels[0] if labels else None)


def _labels(rows: list) -> tuple | None:
    """(the row labels, where each row's numbers start) of a matrix written as a table, a
    header row of names over the columns and a name before each row's numbers (``- &
    K_{the} & K_{cat} \\ Q_{the} & 2 & 0``); None for any other matrix."""
    cells = [_split_cells(row) for row, _ in rows]
    if len(cells) < 2 or len({len(c) for c in cells}) != 1 or len(cells[0]) < 3:
        return None

    def number(cell: str) -> bool:
        try:
            cell_value(cell)
            return True
        except SymattnError:
            return False
    head, body = cells[0], cells[1:]
    names = [c.strip() for c, _ in (r[0] for r in body)]
    if any(number(c) for c, _ in head[1:]) or any(number(c) for c, _ in (r[0] for r in body)) \
            or not all(names) or len(set(names)) != len(names) \
            or not all(number(c) for r in body for c, _ in r[1:]):
        return None
    return tuple(names), [r[1][1] for r in body]


def _split_cells(row: str) -> list[tuple[str, int]]:
    """Cells at top-level ``&`` (not ``\\&``, not inside braces), with their offsets."""
    out, depth, start = [], 0, 0
    i = 0
    while i < len(row):
        ch = row[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "&" and depth == 0:
            out.append((row[start:i], start))
            start = i + 1
        i += 1
    out.append((row[start:], start))
    return out


_SEGMENT = re.compile(r"\n\s*\n|\$|`|\\\[|\\\(|\\end\s*\{[^{}]*\}")
_EQUALS = re.compile(r"(?<!\\)=|:=|\\coloneqq")


def _name_before(prefix: str) -> str | None:
    """The spec name of ``NAME =`` before a matrix: the left side of a chain
    (``S = QK^\\top = \\begin{bmatrix}`` gives ``S``, and so does a caption
    ``S = QK^\\top:``), else the symbol right before ``=`` unless that is an operator
    such as ``\\top``."""
    tail = prefix[-300:]
    m = _NAME_BEFORE.search(tail)
    segment = tail[max((x.end() for x in _SEGMENT.finditer(tail)), default=0):]
    sides = _EQUALS.split(segment)
    if (m or tail.rstrip().endswith("=")) and (
            len(sides) > 2 or (len(sides) == 2 and segment.rstrip().endswith(":"))):
        # a chain, or a caption stating the formula (``Q = X W_Q:``): its left side names it
        # (``h = ReLU(.) =`` too: what stands before the last ``=`` names nothing)
        left = _NAME_BEFORE.search(sides[0].replace("&", "") + "=")
        if left and _names_a_quantity(left.group(1), True):
            return latex_name(left.group(1))
    if not m:
        return None
    if _OPERAND.search(tail[:m.start(1)]):
        return None                  # ``n @ W1 + b1 =``: a sum's last term names no result
    return latex_name(m.group(1)) if _names_a_quantity(m.group(1), tail.rstrip().endswith("=")) else None


_NEXT_MATRIX = re.compile(r"(?:\s|\\[,;:!]|\\q?quad)*\\(?:begin\s*\{|left\b)")


def _factor(prefix: str, suffix: str) -> bool:
    """Is a matrix after ``prefix`` and before ``suffix`` the first factor of a product written
    out after a chain (``\\mathbf{k}' = R\\,\\mathbf{k} = [R][k] = …``)? Another matrix
    right after it, and two ``=`` before it: the chain's left side names the product."""
    segment = prefix[-300:]
    segment = segment[max((x.end() for x in _SEGMENT.finditer(segment)), default=0):]
    return len(_EQUALS.split(segment)) > 2 and _NEXT_MATRIX.match(suffix) is not None


_OPERAND = re.compile(r"(?:[@+*×·]|\\cdot|\\times|\s[-.])\s*$")


def _names_a_quantity(sym: str, equals: bool) -> bool:
    """Not an operator such as ``\\top``, and not a prose word before a colon."""
    head = sym.split("_")[0].split("^")[0].strip()
    word = re.fullmatch(r"\\([A-Za-z]+)", head)
    if word and not _is_symbol_command(word.group(1)):
        return False
    return equals or not re.fullmatch(r"[a-z][a-z]+", head)   # "the weights are: \begin{…}"


def _is_symbol_command(word: str) -> bool:
    """A LaTeX command that names a quantity (``\\gamma``, ``\\mu``), not an operator (``\\top``)."""
    from ..render.latex_values import GREEK
    return word in GREEK or word in ("varepsilon", "vartheta", "varphi", "ell")


def latex_name(sym: str) -> str | None:
    """``W_{Q}`` → ``W_Q``, ``\\mathbf{X}`` → ``X``, ``x_{\\text{love}}`` → ``x_love``,
    ``W^{O}`` → ``W_O``, ``\\gamma`` → ``gamma``."""
    sym = re.sub(r"\^\s*(?:\{\s*(?:\\top|\\intercal|\\mathsf\s*\{?\s*T\s*\}?)\s*\}|\\top|\\intercal)",
                 "^T", sym)                        # K^{\mathsf T}, K^\top: K_T
    s = re.sub(r"\\(?:mathbf|boldsymbol|bm|mathrm|mathit|text|mathsf|vec)\s*\{([^{}]*)\}", r"\1", sym)
    s = re.sub(r"\\([A-Za-z]+)", r"\1", s)
    s = s.replace("^", "_").replace(",", "_")
    s = re.sub(r"[{}\s]", "", s)
    s = re.sub(r"_+", "_", s).strip("_")
    return s or None


def inputs_toml(matrices: list[ImportedMatrix], source: str | None = "<fragment>",
                repeats: list | None = None, skipped: list | None = None) -> str:
    """An ``[inputs]`` table for a spec: one line per matrix, with the line it came from;
    comments name the repeats and the matrices skipped as not all numbers."""
    out = []
    if source:                               # a comment: a newline in a file name stays text
        out.append(f"# from {_comment(source)}: {len(matrices)} matri{'x' if len(matrices) == 1 else 'ces'}")
    for line, name in repeats or []:
        out.append(f"# line {line}: the numbers of {name} again")
    for line, name, why in skipped or []:
        out.append(f"# line {line}: {name} skipped, not all numbers ({_comment(why.message)})")
    out.append("[inputs]")
    for m in matrices:
        rows = ", ".join("[" + ", ".join(r) + "]" for r in m.texts)
        out.append(f"{toml_key(m.name)} = {{ value = [{rows}], line = {m.line} }}")
    return "\n".join(out) + "\n"


def _comment(text: str) -> str:
    """Text for a TOML comment: control characters (a newline) escaped, at most 200 characters."""
    from ..numbers import shown
    return shown(text, 200)


def import_latex(text: str, source: str | None = "<fragment>") -> str:
    """The ``[inputs]`` snippet for the matrices of a LaTeX fragment."""
    matrices, repeats, skipped = _read(text, source)
    return inputs_toml(matrices, source, repeats, skipped)


def import_report(text: str, source: str | None = "<fragment>") -> tuple[str, list]:
    """The snippet of :func:`import_latex` and, for each matrix skipped as not all numbers,
    (line, name, why)."""
    matrices, repeats, skipped = _read(text, source)
    return (inputs_toml(matrices, source, repeats, skipped),
            [(line, name, e.message) for line, name, e in skipped])


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"
