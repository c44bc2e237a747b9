"""Tables flattened into text, one row a line: ``成分100そのまま`` is the label ``成分1``
followed by the cells ``0`` and ``0`` with nothing between them (text copied out of an HTML
table). Rows are recognised by a label repeated at the start of consecutive lines with
the indices 1, 2, 3, …; the digits after the index are read in every way they split into
numbers (``1.4141.414`` as ``1.414``, ``1.414`` or as ``1.41``, ``41.414``, …), and the
matcher keeps the reading whose numbers all print entries (:mod:`symattn.article.assign`).
"""

from __future__ import annotations

import re

from .source import Line
from .tokens import Number, fold, number_at

_ROW = re.compile(r"\s*([^\W\d_]{1,12})(\d+)")
_RUN = re.compile(r"-?[\d.]+(?:-[\d.]+)*")
_CELL = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?")
MAX_PARTS = 3


def glued_rows(lines: list[Line]) -> dict[int, tuple[int, int]]:
    """Line number -> (start, end) of the glued cells, for the lines that are rows."""
    out, run = {}, []
    for line in lines:
        s = fold(line.text)
        if not s.strip():
            continue
        m = _ROW.match(s)
        k = len(run) + 1
        if m and run and m.group(1) == run[-1][1] and m.group(2).startswith(str(k)):
            run.append((line, m.group(1), m))
        else:
            _keep(run, out)
            run = [(line, m.group(1), m)] if m and m.group(2).startswith("1") else []
    _keep(run, out)
    return out


def _keep(run: list, out: dict):
    if len(run) < 2:
        return
    for k, (line, word, m) in enumerate(run, start=1):
        s = fold(line.text)
        at = m.start(2) + len(str(k))
        cells = _RUN.match(s, at)
        if cells:
            out[line.number] = (at, cells.end())


def readings(line: Line, span: tuple[int, int]) -> list[list[Number]]:
    """Every way the glued cells split into numbers, fewest numbers first."""
    s = fold(line.text)
    a, b = span
    out = []
    for parts in range(1, MAX_PARTS + 1):
        for cuts in _cuts(s, a, b, parts):
            nums = [number_at(line, s, x, y) for x, y in cuts]
            if all(n is not None for n in nums):
                out.append(nums)
    return out


def _cuts(s: str, a: int, b: int, parts: int):
    if parts == 1:
        if _CELL.fullmatch(s, a, b):
            yield [(a, b)]
        return
    for mid in range(a + 1, b):
        if _CELL.fullmatch(s, a, mid):
            for rest in _cuts(s, mid, b, parts - 1):
                yield [(a, mid)] + rest
