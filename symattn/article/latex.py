"""LaTeX source as article lines: raw lines, comments blanked, math environments marked.

A line is ``math`` when any of it lies inside a math environment (``equation``, ``align``,
``aligned``, ``bmatrix``, ``pmatrix``, …), a ``$$ … $$`` or a ``\\[ … \\]`` display;
``text`` otherwise. Inline ``$…$`` stays text. A comment (``%`` to the end of the line, not
``\\%``) is replaced by spaces, so no number of it is read and columns stay those of the
source.

>>> [(l.number, l.kind, l.text) for l in read("a % 1.5\\n\\\\[ x = 0.5 \\\\]\\n")][:2]
[(1, 'text', 'a      '), (2, 'math', '\\\\[ x = 0.5 \\\\]')]
"""

from __future__ import annotations

import re

from .nesting import mark as nest
from .quiet import mark
from .source import Line

MATH_ENVS = {
    "equation", "align", "aligned", "alignat", "alignedat", "gather", "gathered", "multline",
    "flalign", "eqnarray", "displaymath", "math", "split", "cases", "array", "matrix",
    "bmatrix", "pmatrix", "Bmatrix", "vmatrix", "Vmatrix", "smallmatrix",
}
_BRACE = r"\\(?:underbrace|overbrace)\s*\{|\}\s*[_^]\s*\{(?:[^{}]|\{[^{}]*\})*\}"   # a label braced on
BETWEEN = rf"(?:\s|\\[,;:!]|\\q?quad|~|\\\[|\\\]|\$|{_BRACE})*"
"""What may stand between two matrices of one equation and its operators: spaces, math
closed and opened again, a label braced on (``\\underbrace{…}_{W_O}``)."""
# \begin{env}, \end{env}, $$, \[ and \] (a \\ line break is not \[ : the lookbehind checks it)
_MARK = re.compile(r"\\(begin|end)\s*\{([A-Za-z]+)\*?\}|\$\$|(?<!\\)\\\[|(?<!\\)\\\]")
_COMMENT = re.compile(r"(?<!\\)(?:\\\\)*%")


def blank_comment(line: str) -> str:
    """``line`` with its ``%`` comment replaced by spaces (``\\%`` is a percent sign)."""
    m = _COMMENT.search(line)
    if not m:
        return line
    start = m.end() - 1
    return line[:start] + " " * (len(line) - start)


def math_flags(lines: list[str]) -> list[bool]:
    """For each line, whether any of it is inside displayed math (one pass, linear)."""
    depth = 0            # open math environments
    dollars = False      # inside $$ … $$
    bracket = False      # inside \[ … \]
    out = []
    for line in lines:
        inside = depth > 0 or dollars or bracket
        for m in _MARK.finditer(line):
            token = m.group(0)
            if m.group(1) == "begin" and m.group(2) in MATH_ENVS:
                depth += 1
            elif m.group(1) == "end" and m.group(2) in MATH_ENVS:
                depth = max(0, depth - 1)
            elif token == "$$":
                dollars = not dollars
            elif token == "\\[":
                bracket = True
            elif token == "\\]":
                bracket = False
            else:
                continue
            inside = True
        out.append(inside)
    return out


def source_lines(text: str) -> list[str]:
    """The lines of a file's text (``\\r\\n`` and a lone ``\\r`` end a line too; the newline
    that ends the last line opens no new one)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def read(text: str, path: str = "") -> list[Line]:
    """The lines of a LaTeX file, comments blanked; ``math`` inside displayed math."""
    lines = [blank_comment(s) for s in source_lines(text)]
    flags = math_flags(lines)
    return nest(mark([Line(k, s, "math" if f else "text")
                      for k, (s, f) in enumerate(zip(lines, flags), start=1)]))
