"""Finding an example's claims in an article: which lines may hold them, then the
matcher and the assignment of numbers to entries."""

from __future__ import annotations

import re
from dataclasses import replace

from .assign import assign
from .groups import groups_of
from .match import Matcher, Found
from .source import Line
from .tokens import numbers_in
from ..spec.load import Spec


def find_claims(spec: Spec, lines: list[Line]) -> Found:
    """The claims ``spec``'s example makes in ``lines`` (an article, read by a reader)."""
    inside = [_code_only(ln) for ln in lines if _in_range(spec, ln.number) and
              (not _program(ln) or not numbers_in(ln))]
    m = Matcher(spec)
    m.lines = {ln.number: ln for ln in inside}
    m.source = {ln.number: ln for ln in lines if _in_range(spec, ln.number)}   # program text too
    found = assign(m, groups_of(inside), m.lines)
    found.ev = m.ev
    return found


_STATEMENT = re.compile(r"^\s*(?:[A-Za-z_][\w.\[\], ]*\s*[-+*/@]?=(?!=)|import\s|from\s|def\s|class\s|"
                        r"for\s|while\s|if\s|return\b|print\(|#|//|>>>)")


# A comment that holds what the program printed: ``# tensor([[0.1, …``, ``#  [4., 16., 12.]]``.
_PRINTED_COMMENT = re.compile(r"^\s*#+\s*(?:tensor\(|array\(|\[|\(?-?\d[\d.,e+\- ]*\]|-?\d+\.\d*\s*$)")


def _program(line: Line) -> bool:
    """A line of program text (an assignment, a statement, a comment) in code: its numbers
    are the program's constants and inputs, not printed results. A comment that holds a
    printout (``# tensor([[…``) is output."""
    if line.kind != "code" or _PRINTED_COMMENT.match(line.text):
        return False
    return bool(_STATEMENT.match(line.text) or "**" in line.text)


_TRAILING_COMMENT = re.compile(r"(?<=[\])0-9,.])\s+#(?!\w*\[).*$")


def _code_only(line: Line) -> Line:
    """A code line without its trailing comment (``[2., 7., 1.5],  # Output 1``): the
    comment's words and numbers are not part of the printout's structure."""
    if line.kind not in ("code", "output"):
        return line
    m = _TRAILING_COMMENT.search(line.text)
    return line if m is None else replace(line, text=line.text[:m.start()],
                                          columns=line.columns[:m.start()] if line.columns else None)


def _in_range(spec: Spec, line: int) -> bool:
    return spec.lines is None or any(a <= line <= b for a, b in spec.lines)
