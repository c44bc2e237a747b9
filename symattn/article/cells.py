"""One printed matrix, one printed number and one bracket list of numbers, as the article
reading takes them (:mod:`.matrices`, :mod:`.tables`, :mod:`.rows`): nothing is evaluated, a
number goes through :func:`symattn.spec.latex_cells.cell_value`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import SymattnError
from ..spec.latex_cells import cell_value
from ..spec.latex_import import _name_before


@dataclass(frozen=True)
class Printed:
    """A matrix the article prints: name ('' when none), article line, exact values and
    their TOML texts (rows of equal length), row labels or None, and how it was written."""
    name: str
    line: int
    values: tuple
    texts: tuple
    rows: tuple | None = None
    form: str = "latex"          # latex | list | table
    end: int = 0                 # its last source line, where its rows are not one a line
                                 # (an HTML table written one <td> a line); 0: line + rows - 1

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.values), len(self.values[0]))


MINUS_INF = re.compile(r"[\-−]\s*(?:(?:torch|np|numpy|math)\.)?(?:inf|∞)(?![\w.])")


def number(text: str):
    """(exact value, TOML text) of a cell that is one number (``-inf`` too: a mask's
    entry), else None."""
    t = text.strip().strip("`*$ ").strip()
    if MINUS_INF.fullmatch(t):
        return cell_value("-∞")
    if not t or len(t) > 200 or not re.fullmatch(r"[+\-−]?[\d.]+(?:[eE][+\-]?\d+)?|.*\\frac.*|\d+/\d+", t):
        return None
    try:
        return cell_value(t)
    except SymattnError:
        return None


def name_above(caption: str) -> str | None:
    """``X =`` or ``X:`` (or ``X：``) ending the line above a table."""
    return _name_before(caption.rstrip().replace("：", ":"))


def numbering(texts: list[str]) -> bool:
    """Do ``texts`` number something, 0, 1, 2 … or 1, 2, 3 … (two or more, whole numbers as
    written): a table's row or column index, not its values."""
    if len(texts) < 2 or not all(re.fullmatch(r"\d{1,4}", t.strip()) for t in texts):
        return False
    start = int(texts[0])
    return start in (0, 1) and [int(t) for t in texts] == list(range(start, start + len(texts)))


def indexed(header: list[str] | None) -> bool:
    """Is ``header`` (a table's header cells) a word over an index column and then the
    columns numbered (``| Token | 0 | 1 | 2 |``)? Its numbers are labels."""
    return bool(header) and len(header) >= 3 and re.search(r"[^\W\d_]", header[0]) is not None \
        and numbering(header[1:])


# ---- bracket lists of numbers -------------------------------------------------------------

MAX_LIST_ENTRIES = 10_000     # a longer bracket list is not read as a matrix

_NUM = re.compile(r"[+\-−]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+\-]?\d+)?")
_SPACE = re.compile(r"(?:\s|\\[ ,;:!]|\\q?quad\b|~)*")


_MORE_ROWS = re.compile(r"(?:\.\.\.|…)\s*,?\s*\]")     # rows elided at a matrix's end, as PyTorch prints


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
        elif len(stack) == 1 and stack[0] and isinstance(stack[0][-1], list) and (m := _MORE_ROWS.match(s, i)):
            i = m.end() - 1                          # ``[[…], [...], ...])``: the rows printed, the rest elided
        else:
            m = _NUM.match(s, i) or MINUS_INF.match(s, i)
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
