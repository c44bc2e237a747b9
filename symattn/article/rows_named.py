"""Lines that open with the label of a row: a table written as text.

``"Hello": [-0.41, 0.14, -1.24, 1.51]`` and ``" how" : [0.67, …]`` on the lines below it
print rows of one step; ``"Hello": mean=0.25, std=0.364`` prints the Hello entry of a
step of means and of one of standard deviations. A reader takes the rows the lines name
and the step whose rows they are: the one that has every row the run of lines names, of
the width printed (for ``std=``, a column whose name has the word), that the run prints
most entries of right. A line is placed only when its numbers are right or near their
entries (carried, or a slip), so a coincidence of labels claims nothing.
"""

from __future__ import annotations

import re

from .code import without_comment
from .match import Cell, Matcher
from .tokens import fold, numbers_in

_LEAD = re.compile(r"""^\s*(?:[-*+]\s+)?(?:["'“「](?P<q>[^"'”」\n]{1,24})["'”」]|(?P<b>[^\W\d][\w]{0,20}))\s*[:：]\s*""")
_NAMED = re.compile(r"(?P<w>[^\W\d][\w]*)\s*=\s*$")


def place(m: Matcher, g) -> dict | None:
    """The cells of the row a line's label names, for group ``g`` on it, or None."""
    first = g.numbers[0]
    lead = _lead(m, first.line_text)
    if lead is None or lead[1] > first.start or len(g.rows) != 1 or None in g.rows[0]:
        return None
    run = _run(m, first.line)
    if len(run) < 2:
        return None
    word = None
    if len(g.numbers) == 1:
        named = _NAMED.search(fold(first.line_text[:first.start]))
        if named is None:
            return None
        word = named.group("w").lower()
    best = None
    for name, t in m.spec.tensors.items():
        if not _fits(m, name, t, run, len(g.rows[0]), word):
            continue
        i = list(t.rows).index(lead[0])
        cells = {id(n): (Cell(name, i, p if word is None else 0), n) for p, n in enumerate(g.rows[0])}
        if not all(m.rounds_to(n, c) or m.near_print(n, c) for c, n in cells.values()):
            continue
        key = (_right_in_run(m, name, run, word), -m.order[name])
        if key[0] and (best is None or key > best[0]):
            best = (key, name, cells)
    if best is None or best[1] in m.spec.inputs:
        return None
    return best[2]


def lead(m: Matcher, n) -> str | None:
    """The row label the line of number ``n`` opens with, before ``n``, or None."""
    got = _lead(m, n.line_text)
    return got[0] if got is not None and got[1] <= n.start else None


def _lead(m: Matcher, text: str):
    """(row label, end of the label) when ``text`` opens with a row label of the spec."""
    hit = _LEAD.match(fold(text))
    if hit is None:
        return None
    label = (hit.group("q") or hit.group("b")).strip()
    return (label, hit.end()) if label in _labels(m) else None


def _labels(m: Matcher) -> set:
    got = m.__dict__.get("_row_labels")
    if got is None:
        got = m._row_labels = {str(r) for t in m.spec.tensors.values() for r in (t.rows or ())}
    return got


def _run(m: Matcher, line: int) -> list:
    """The lines next to ``line`` (it included) that open with a row label: [(line, label)]."""
    src = getattr(m, "source", None) or m.lines or {}
    out = []
    for step in (-1, 1):
        k = line if step == -1 else line + 1
        while k in src:
            lead = _lead(m, src[k].text)
            if lead is None:
                break
            out.append((k, lead[0]))
            k += step
    return sorted(set(out))


def _fits(m: Matcher, name: str, t, run: list, width: int, word: str | None) -> bool:
    if m.approx.get(name) is None or not t.rows or not {lab for _, lab in run} <= set(t.rows):
        return False
    if word is None:
        return t.shape[1] == width
    words = {w.lower() for w in re.split(r"[_\W]+", name) if w}
    return t.shape[1] == 1 and word in words


def _right_in_run(m: Matcher, name: str, run: list, word: str | None) -> int:
    """How many numbers of the run's lines print their row of ``name`` right."""
    src = getattr(m, "source", None) or m.lines or {}
    t = m.spec.tensors[name]
    right = 0
    for line, label in run:
        text = src[line].text
        i = list(t.rows).index(label)
        nums = [n for n in numbers_in(without_comment(src[line], labelled=False)) if n.start >= _lead(m, text)[1]]
        if word is not None:
            nums = [n for n in nums if (h := _NAMED.search(fold(text[:n.start]))) and h.group("w").lower() == word]
            right += sum(m.rounds_to(n, Cell(name, i, 0)) for n in nums[:1])
        elif len(nums) == t.shape[1]:
            right += sum(m.rounds_to(n, Cell(name, i, p)) for p, n in enumerate(nums))
    return right
