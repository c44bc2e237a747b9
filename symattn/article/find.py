"""Finding an example's claims in an article: which lines may hold them, then the
matcher and the assignment of numbers to entries."""

from __future__ import annotations

import re

from .assign import assign
from .groups import groups_of
from .match import Matcher, Found
from .source import Line
from ..spec.load import Spec


def find_claims(spec: Spec, lines: list[Line]) -> Found:
    """The claims ``spec``'s example makes in ``lines`` (an article, read by a reader)."""
    inside = [ln for ln in lines if _in_range(spec, ln.number) and not _program(ln)]
    m = Matcher(spec)
    m.lines = {ln.number: ln for ln in inside}
    found = assign(m, groups_of(inside), m.lines)
    found.ev = m.ev
    return found


_STATEMENT = re.compile(r"^\s*(?:[A-Za-z_][\w.\[\], ]*\s*[-+*/@]?=(?!=)|import\s|from\s|def\s|class\s|"
                        r"for\s|while\s|if\s|return\b|print\(|#|//|>>>)")


def _program(line: Line) -> bool:
    """A line of program text (an assignment, a statement, a comment) in code: its numbers
    are the program's constants and inputs, not printed results."""
    return line.kind == "code" and bool(_STATEMENT.match(line.text) or "**" in line.text)


def _in_range(spec: Spec, line: int) -> bool:
    return spec.lines is None or any(a <= line <= b for a, b in spec.lines)
