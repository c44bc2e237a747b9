"""One printed matrix and one printed number, as the article reading takes them
(:mod:`.matrices`, :mod:`.rows`): nothing is evaluated, a number goes through
:func:`symattn.spec.latex_cells.cell_value`."""

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

