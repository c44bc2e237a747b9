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

from ..errors import LimitError, SymattnError
from ..spec.latex_import import MATRIX_ENVS, read_matrices
from .boxed import boxed
from .cells import Printed, as_matrix, parse_list
from .rows import stacked_rows
from .side import side_by_side
from .tables import tables
from .source import Line

MAX_MATRICES = 1000


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
_ASSIGN = re.compile(r"((?<![\w^])[^\W\d]\w*(?:\^\{?\w+\}?)?(?:\[\d{1,3}\])?)\s*=\s*(?:(?:torch|np|numpy|jnp)\.\w+\s*\(\s*)?$")
_CAPTION = re.compile(r"^\s*([A-Za-z_]\w*)(?:\(\))?\s*:\s*$")   # ``exp: [3.145, 2.489]``, ``exp():  [``
                                                                   # opening its line
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
    return re.sub(r"[\s()\[\]]+", "_", name).strip("_")


_ROW_COMMENT = re.compile(r"\]\s*,?\s*#\s*(?:\"([^\"\n]{1,24})\"|'([^'\n]{1,24})'|([^\W\d]\w{0,23}))\s*$", re.M)


def _commented_rows(segment: str, n: int) -> tuple | None:
    """Row labels a list literal's rows carry in comments, one per row (``[0.1, 0.3],  #
    "Hello"``; a quoted token or one word), or None."""
    labels = [(a or b or c).strip() for a, b, c in _ROW_COMMENT.findall(segment + "\n")]
    if len(labels) != n or len(set(labels)) != n or not all(labels):
        return None
    return tuple(labels)


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
    text = _ARROW_NOTE.sub("", text)       # as :func:`bracket_lists` reads them
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
