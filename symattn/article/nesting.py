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

from .source import Line

CARRIED = ("code", "output", "math")


def mark(lines: list[Line]) -> list[Line]:
    """``lines`` with ``nest`` set where a bracket list continues from the line before."""
    out, stack, prev = [], [], None
    for line in lines:
        if prev is None or line.kind not in CARRIED or line.kind != prev.kind or \
                line.number not in (prev.number, prev.number + 1):
            stack = []
        out.append(dataclasses.replace(line, nest=tuple(stack)) if stack else line)
        stack = indices(line.text, stack, _starts(line.text))[1] if "[" in line.text or stack else []
        prev = line
    return out


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
