"""Matrices printed side by side in code: each column of a paragraph read on its own.

A plain-text post lays two weights beside each other::

    Wq (query projection, 2×2):        Wk (key projection, 2×2):
    [[0.60, 0.40],                      [[0.50, 0.30],
     [0.20, 0.50]]                       [0.10, 0.40]]

or names each list where it begins (``Q = [ [1, 0, 1],      K = [ [1, 1, 0],``). Read line
by line, the first row of ``Wq`` runs into ``Wk``'s and neither list parses (and a result
printed to the right of the arithmetic that makes it: ``…],  = [1, 1, 0],``). A
paragraph of code lines (up to a blank line) in which a line closes a bracket and, after
:data:`GAP` spaces or more, opens another is cut there on every line: the left parts stay
the paragraph, the right parts (on the same article lines, at their own source columns)
become a column of their own, cut again the same way (three matrices abreast).
"""

from __future__ import annotations

import re
from dataclasses import replace

from .source import Line

GAP = 3                     # spaces between two matrices printed side by side, at least
MAX_COLUMNS = 6
ALIGN = 6                   # columns two cuts may differ by and still be one column's edge
_BESIDE = re.compile(r"[\]:]\s*,?(\s{%d,}|\s{2,}=\s*)(?:[A-Za-z_]\w*\s*=\s*)?\[" % GAP)   # a list
                                        # (or its caption) ends, another (``K = [``, ``= [``) begins
_CAPTION = re.compile(r":(\s{%d,})[^\s\[]" % GAP)        # ``Wq (…):    Wk (…):``
_OWN_CAPTION = re.compile(r"\s*[^\[\]=:]*:")              # ``exp():     [0.30, 1.35]``: its list


def side_by_side(lines: list[Line]) -> list[list[Line]]:
    """The columns of ``lines`` (code lines, in order): the first is ``lines`` with every
    right-hand part cut off, each other one the right-hand parts of one paragraph."""
    out: list[list[Line]] = [[]]
    for para in _paragraphs(lines):
        left, columns = _columns(para)
        out[0] += left
        out += columns
    return out


def _paragraphs(lines: list[Line]) -> list[list[Line]]:
    runs: list[list[Line]] = []
    for ln in lines:
        if runs and runs[-1] and ln.number == runs[-1][-1].number + 1 and ln.text.strip() \
                and runs[-1][-1].text.strip():
            runs[-1].append(ln)
        else:
            runs.append([ln])
    return runs


def _columns(para: list[Line], depth: int = 0) -> tuple[list[Line], list[list[Line]]]:
    """(the paragraph's left parts, the columns to their right, each read the same way)."""
    cut = _cuts(para)
    if depth >= MAX_COLUMNS or not any(c is not None and _BESIDE.search(ln.text[:c + 1]) for ln, c
                                       in zip(para, cut)):
        return para, []
    left, right = [], []
    for ln, c in zip(para, cut):
        if c is None:
            left.append(ln)
            continue
        left.append(_part(ln, 0, c))
        right.append(_part(ln, c, len(ln.text)))
    inner, more = _columns(right, depth + 1)
    return left, [inner] + more


def _cuts(para: list[Line]) -> list[int | None]:
    """Each line's cut (:func:`_cut`), kept where it parts two lists: the list on its left is
    closed there, or a matrix (``[[``) begins on its right, or another line of the
    paragraph is cut at the same column (the columns are aligned). A row list spaced out
    on one line (``[[1, 2],     [3, 4]]``) is no two lists."""
    cut = [_cut(ln.text) for ln in para]
    at = [c for c in cut if c is not None]

    def parts(ln, c):
        left = ln.text[:c]
        return left.count("[") == left.count("]") or ln.text.startswith("[[", c) or \
            sum(abs(c - d) <= ALIGN for d in at) > 1
    return [c if c is not None and parts(ln, c) else None for ln, c in zip(para, cut)]


def _cut(text: str) -> int | None:
    """Where the right-hand part of a line begins: after the first gap of :data:`GAP`
    spaces that follows a closed list or a caption, before a list or a word; or None. A
    caption opening its line names the list after it (``Logits:    [-1.2,  0.3]``)."""
    m = next((m for m in _BESIDE.finditer(text) if not _OWN_CAPTION.fullmatch(text, 0, m.start() + 1)),
             None) or _CAPTION.search(text)
    return None if m is None else m.end(1)


def _part(ln: Line, start: int, end: int) -> Line:
    """The part ``text[start:end]`` of a line, its source columns kept."""
    cols = ln.columns if ln.columns is not None else tuple(range(1, len(ln.text) + 1))
    return replace(ln, text=ln.text[start:end].rstrip(), columns=tuple(cols[start:end]),
                   lines=ln.lines and ln.lines[start:end], quiet=(), nest=())
