"""Matrices drawn with box brackets in code, one row a line::

    X = ┌ 1.0  0.0 ┐        W = ⎡ 1  0 ⎤
        │ 0.0  1.0 │    (3 × 2)  ⎢ 0  1 ⎥
        └ 1.0  1.0 ┘            ⎣ 1  1 ⎦

are rewritten, each glyph in its place, as the bracket lists NumPy prints (``[[1.0  0.0]``,
``[0.0  1.0]``, ``[1.0  1.0]]``), which the list reading takes, side by side too
(:mod:`.side`). A row is a run of numbers between two bars; rows on consecutive lines whose
opening bars lie within :data:`ALIGN` columns are one matrix, its first row opening the list
and its last closing it. A note after a row the matrix goes on from (``(3 × 2)``) is blanked:
it is no number of it. Bars around no number (``┌        ┐``) are left as they are.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .source import Line

ALIGN = 2                   # columns the opening bars of one matrix's rows may differ by
_N = r"[+\-−]?\d+(?:\.\d+)?"
_ROW = re.compile(rf"[┌│└⎡⎢⎣]\s*{_N}(?:\s+{_N})*\s*[┐│┘⎤⎥⎦]")


def boxed(lines: list[Line]) -> list[Line]:
    """``lines`` (in order) with each matrix drawn in box brackets in code or output
    rewritten as a bracket list, the source columns of its numbers kept."""
    rows = [[(m.start(), m.end()) for m in _ROW.finditer(ln.text)] if ln.kind in ("code", "output") else []
            for ln in lines]
    out = []
    for i, ln in enumerate(lines):
        if not rows[i]:
            out.append(ln)
            continue
        text = list(ln.text)
        cols = list(ln.columns if ln.columns is not None else range(1, len(ln.text) + 1))
        for k, (a, b) in reversed(list(enumerate(rows[i]))):
            top, bottom = not _beside(lines, rows, i, i - 1, a), not _beside(lines, rows, i, i + 1, a)
            if k == len(rows[i]) - 1 and not bottom:            # ``│ 0.0 1.0 │    (3 × 2)``
                text[b:] = " " * (len(text) - b)
            text[a], text[b - 1] = "[", "]"
            if bottom:
                _double(text, cols, b, b - 1, "]")
            if top:
                _double(text, cols, a - 1, a, "[")
        new = "".join(text).rstrip()
        out.append(replace(ln, text=new, columns=tuple(cols[:len(new)])))
    return out


def _beside(lines: list[Line], rows: list, i: int, j: int, a: int) -> bool:
    """Does line ``j`` (the line above or below line ``i``) hold a row whose opening bar is
    within :data:`ALIGN` columns of ``a``?"""
    return 0 <= j < len(lines) and abs(lines[j].number - lines[i].number) == 1 and \
        any(abs(c - a) <= ALIGN for c, _ in rows[j])


def _double(text: list, cols: list, at: int, bar: int, glyph: str) -> None:
    """A second ``glyph`` beside the bar at ``bar``: over the space at ``at`` if there is one,
    else inserted (its source column the bar's)."""
    if 0 <= at < len(text) and text[at] == " ":
        text[at] = glyph
    else:
        where = max(at, bar) if glyph == "]" else bar
        text.insert(where, glyph)
        cols.insert(where, cols[bar])
