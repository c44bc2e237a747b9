"""Plain text as article lines: every line as it is.

A line inside displayed LaTeX math (``\\begin{bmatrix}`` … ``\\end{bmatrix}``, ``$$``,
``\\[ \\]``) is ``math``; a line of a console printout (``tensor(``, ``array(``, ``Out[3]:``
and the lines that continue it) is ``output``; every other line is ``text``. Nothing is
blanked: a ``%`` in plain text is a percent sign.

A code fence (a line starting with three or more backticks or tildes, closed by a later
line of at least as many of the same marks and nothing else) makes the lines it encloses
``code``, or ``output`` when the block prints a result (the rule of
:func:`symattn.article.markdown.block_kind`); printouts written as comments in code are
``output`` (:func:`symattn.article.markdown.comment_printouts`). Forum scrapes glue the
first code line to the fence (````````import torch``): the fence marks are read as spaces,
so the glued code keeps its columns; an opening fence followed by one bare word
(````` ```python ````) names a language and holds no code. A fence never closed is no fence.
A notebook's raw JSON pasted as text is read as that notebook's lines (:mod:`.raw_notebook`).
"""

from __future__ import annotations

import re

from .latex import math_flags, source_lines
from .markdown import block_kind, comment_printouts, raw_notebook_lines
from .nesting import mark as nest
from .quiet import mark
from .source import Line

# a printout starts with tensor(/array( or an IPython Out[n]: prompt
_OUTPUT_START = re.compile(r"^\s*(?:Out\s*\[\s*\d*\s*\]\s*:\s*)?(?:tensor|array)\(|^\s*Out\s*\[\s*\d*\s*\]\s*:")


def output_flags(lines: list[str]) -> list[bool]:
    """For each line, whether it belongs to a ``tensor(``/``array(`` printout (until its
    parentheses close) or follows an ``Out[n]:`` prompt."""
    out, depth = [], 0
    for line in lines:
        if depth <= 0 and _OUTPUT_START.match(line):
            depth = max(1, line.count("(") - line.count(")")) if "(" in line else 0
            out.append(True)
            continue
        if depth > 0:
            depth += line.count("(") - line.count(")")
            out.append(True)
            continue
        out.append(False)
    return out


# an opening fence: its marks, then a language word, glued code, or nothing
_FENCE_OPEN = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_INFO = re.compile(r"[\w+.#-]*\s*")


def fences(lines: list[str]) -> list[tuple[int, int, str]]:
    """The closed code fences of ``lines``: (opening index, closing index, info word),
    0-based, the closing index is the line of the closing marks."""
    out, k = [], 0
    while k < len(lines):
        m = _FENCE_OPEN.match(lines[k])
        if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            marks = m.group(2)
            close = re.compile(r"\s*" + re.escape(marks[0]) + "{%d,}\\s*" % len(marks))
            end = next((j for j in range(k + 1, len(lines)) if close.fullmatch(lines[j])), None)
            if end is not None:
                rest = m.group(3)
                out.append((k, end, rest.strip() if _INFO.fullmatch(rest) else ""))
                k = end + 1
                continue
        k += 1
    return out


def _fenced(lines: list[str], kinds: list[str]) -> tuple[list[str], list[str]]:
    """``lines`` with fence marks read as spaces and ``kinds`` with fenced blocks marked."""
    lines, kinds = list(lines), list(kinds)
    for first, end, info in fences(lines):
        m = _FENCE_OPEN.match(lines[first])
        glued = "" if _INFO.fullmatch(m.group(3)) else m.group(3)
        lines[first] = m.group(1) + " " * len(m.group(2)) + (glued or " " * len(m.group(3)))
        lines[end] = " " * len(lines[end])
        body = "\n".join(lines[first:end])
        kind = block_kind(info, body.strip("\n "), lines, first)
        for j in range(first, end + 1):
            kinds[j] = kind
    return lines, kinds


def read(text: str, path: str = "") -> list[Line]:
    """Every line of ``text`` at its line number (1-based)."""
    lines = source_lines(text)
    raw = raw_notebook_lines(lines)
    if raw is not None:                  # a notebook's raw JSON pasted as text
        return nest(mark(raw))
    maths, outputs = math_flags(lines), output_flags(lines)
    kinds = ["output" if o else "math" if m else "text" for m, o in zip(maths, outputs)]
    lines, kinds = _fenced(lines, kinds)
    return nest(mark(comment_printouts([Line(k, s, kind) for k, (s, kind)
                                        in enumerate(zip(lines, kinds), start=1)])))
