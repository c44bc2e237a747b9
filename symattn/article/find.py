"""Finding an example's claims in an article: which lines may hold them, then the
matcher and the assignment of numbers to entries."""

from __future__ import annotations

from .assign import assign
from .boxed import boxed
from .code import comment_of, literal_results, program, without_comment
from .groups import groups_of
from .match import Matcher, Found
from .source import Line
from .tokens import numbers_in
from ..spec.load import Spec


def find_claims(spec: Spec, lines: list[Line]) -> Found:
    """The claims ``spec``'s example makes in ``lines`` (an article, read by a reader)."""
    here = boxed([ln for ln in lines if _in_range(spec, ln.number)])    # ┌ 1.0 0.0 ┐: a list
    results = literal_results(here, {s.name for s in spec.steps})
    said = {s.article_line for s in spec.steps if s.article_line}
    inside = [_readable(ln, results, ln.number in said) for ln in here]
    inside = [ln for ln in inside if ln is not None]
    m = Matcher(spec)
    m.lines = {ln.number: ln for ln in inside}
    m.source = {ln.number: ln for ln in here}                 # program text too
    found = assign(m, groups_of(inside), m.lines)
    found.ev = m.ev
    return found


def _readable(ln: Line, results: set, said: bool = False) -> Line | None:
    """What of ``ln`` a reader reads for printed numbers: the line (less a trailing comment),
    or of program text only a comment that labels a number, or (``said``: a step's line)
    prints its print."""
    if not program(ln) or not numbers_in(ln) or ln.number in results:
        return without_comment(ln)
    return comment_of(ln, said)


def _in_range(spec: Spec, line: int) -> bool:
    return spec.lines is None or any(a <= line <= b for a, b in spec.lines)
