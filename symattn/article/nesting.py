"""Where a printed number stands in a nested bracket list, across the lines of a printout.

A torch ``tensor([[[…], […]], [[…], […]]])``, a NumPy ``array(…)`` or ``[[0.1 0.2]\\n [0.3
0.4]]`` printout spreads one nested list over many lines. :func:`mark` gives each Line the
brackets open at its start (``Line.nest``: for each open ``[``, how many of its elements
came before), so the tokenizer can give every number its full index in the list
(``Number.index``): in a 3-D printout ``(block, row, column)``, the block being
``index[:-2]``. The state is carried over consecutive lines of one code, output or math
block only (a stray ``[`` in a paragraph does not reach the next one).

>>> from .source import Line
>>> got = mark([Line(1, "tensor([[[0.1, 0.2],", "output"), Line(2, "         [0.3, 0.4]],", "output"),
...             Line(3, "        [[0.5, 0.6]]])", "output")])
>>> [l.nest for l in got]
[(), (0, 1), (1,)]
"""

from __future__ import annotations

import dataclasses
import re

from .source import Line

CARRIED = ("code", "output", "math")
# ≈ and its words, with what may stand between it and the number (or block) it marks
APPROX = re.compile(r"(?:≈|≒|~|\\approx|\\simeq|約|およそ|ほぼ|\babout|\bapprox\.?|\broughly)"
                    r"(?:\s|\$|\\left|\\begin\{[bpv]?matrix\}|[\[(])*$", re.I)
_MARK = re.compile(r"≈|≒|\\approx|\\simeq")


def mark(lines: list[Line]) -> list[Line]:
    """``lines`` with ``nest`` set where a bracket list continues from the line before, and
    ``approx`` where a block written after ``≈`` does (its depth; -1: the mark ended the
    line before, ``A \\approx`` then ``\\begin{bmatrix}``)."""
    out, stack, approx, prev = [], [], 0, None
    for line in lines:
        if prev is None or line.kind not in CARRIED or line.kind != prev.kind or \
                line.number not in (prev.number, prev.number + 1):
            stack = []
        if prev is None or line.number not in (prev.number, prev.number + 1):
            approx = 0
        if stack or approx:
            line = dataclasses.replace(line, nest=tuple(stack), approx=approx)
        out.append(line)
        stack = indices(line.text, stack, _starts(line.text))[1] if "[" in line.text or stack else []
        approx = _approx_after(line.text, approx)
        prev = line
    return out


def _approx_after(text: str, carried: int) -> int:
    """The depth of the ≈ block still open after ``text`` (-1: a mark ends the line)."""
    depth = opened(text, 0, len(text)) if carried < 0 else depth_at(text, 0, len(text), carried)
    if carried < 0 and depth == 0 and not text.strip():
        depth = -1                               # a blank line between the mark and its block
    last = None
    for last in _MARK.finditer(text):
        pass
    if last is not None:
        tail = text[last.end():]
        if not tail.strip(" \t$") or tail.strip() in ("\\left", "="):
            return -1
        got = opened(text, last.end(), len(text))
        depth = max(depth, got)
    return depth


def opened(s: str, a: int, b: int, mark: bool = False) -> int:
    """How many brackets (or environments) ``s[a:b]`` leaves open (``mark``: counted from
    the last ≈ mark in it; 0 without one)."""
    a = max(0, a)
    if mark:
        m = APPROX.search(s, a, b)
        if not m:
            return 0
        a = m.start()
    depth = 0
    for k in range(a, b):
        if s.startswith("\\begin{", k) or s[k] in "[(":
            depth += 1
        elif s.startswith("\\end{", k) or s[k] in "])":
            depth = max(0, depth - 1)
    return depth


def depth_at(s: str, a: int, b: int, depth: int) -> int:
    """The bracket depth at ``s[b]``, ``depth`` at ``s[a]`` (0 as soon as it closes)."""
    k = a
    while k < b and depth > 0:
        if s.startswith("\\begin{", k) or s[k] in "[(":
            depth += 1
        elif s.startswith("\\end{", k) or s[k] in "])":
            depth -= 1
        k += 1
    return depth


def indices(text: str, stack, starts: list) -> tuple[list, list]:
    """The index of the element at each of ``starts`` (sorted positions in ``text``), and
    the open brackets after ``text``; ``stack`` is those open at its start."""
    stack, got, k = list(stack), [], 0
    for pos, c in enumerate(text):
        while k < len(starts) and starts[k] == pos:
            got.append(tuple(stack))
            if stack:
                stack[-1] += 1
            k += 1
        if c == "[":
            stack.append(0)
        elif c == "]" and stack:
            stack.pop()
            if stack:
                stack[-1] += 1
    got += [tuple(stack)] * (len(starts) - k)
    return got, stack


def _starts(text: str) -> list:
    """Where the numbers of a printout start (a digit, a sign or a point that follows
    something else than a number's own characters), cheaply, for the lines to come."""
    out, inside = [], False
    for k, c in enumerate(text):
        if c.isdigit() or (c in "-+." and k + 1 < len(text) and text[k + 1].isdigit()):
            if not inside:
                out.append(k)
            inside = True
        elif not (inside and c in ".eE+-"):
            inside = c.isalpha() or c == "_"       # digits in a word (x2, d_k) start nothing
    return out
