"""Plain text as article lines: every line as it is.

A line inside displayed LaTeX math (``\\begin{bmatrix}`` … ``\\end{bmatrix}``, ``$$``,
``\\[ \\]``) is ``math``; a line of a console printout (``tensor(``, ``array(``, ``Out[3]:``
and the lines that continue it) is ``output``; every other line is ``text``. Nothing is
blanked: a ``%`` in plain text is a percent sign.
"""

from __future__ import annotations

import re

from .latex import math_flags, source_lines
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


def read(text: str, path: str = "") -> list[Line]:
    """Every line of ``text`` at its line number (1-based)."""
    lines = source_lines(text)
    maths, outputs = math_flags(lines), output_flags(lines)
    return nest(mark([Line(k, s, "output" if o else "math" if m else "text")
                      for k, (s, m, o) in enumerate(zip(lines, maths, outputs), start=1)]))
