"""The number a printed block is divided by: ``\\frac{[1, 1, 1, 1]}{2} = [0.5, …]`` or
``[1, 1] / 2 = […]`` prints the divisor of the step its result prints."""

from __future__ import annotations

import re

from .match import Cell, Found, Matcher
from .tokens import fold

_FRAC_DENOMINATOR = re.compile(r"\}\s*\{\s*$")
_OVER = re.compile(r"(?<![/\w])/\s*$")
_THEN_EQUALS = re.compile(r"^\s*\}?\s*=")


def divisors(m: Matcher, groups: list, got: dict, numbers: dict, found: Found):
    """``\\frac{[1, 1, 1, 1]}{2} = [0.5, …]`` or ``[1, 1] / 2 = […]``: a lone number left
    unassigned that divides a block whose result, right after ``=``, prints a step
    ``X / d`` with ``d`` a single number: it prints ``d`` (right or wrong)."""
    from ..spec.expr import BinOp, Name
    trees = {s.name: s.tree for s in m.spec.steps}
    for k, g in enumerate(groups[:-1]):
        if len(g.numbers) != 1 or id(g.numbers[0]) in got:
            continue
        n, h = g.numbers[0], groups[k + 1]
        text = fold(n.line_text)
        frac = _FRAC_DENOMINATOR.search(text[:n.start]) and text[n.end:].lstrip().startswith("}")
        if not (frac or _OVER.search(text[:n.start])) or not _THEN_EQUALS.match(text[n.end:]) or \
                not h.numbers or h.line != n.line:
            continue
        r = h.numbers[0]
        c = got.get(id(r)) if (r.line, r.column) not in found.pending else None
        tree = trees.get(c.name) if c is not None else None
        if not (isinstance(tree, BinOp) and tree.op == "/" and isinstance(tree.right, Name)):
            continue
        d = tree.right.id
        if m.spec.tensors[d].shape != (1, 1):
            continue
        numbers[id(n)] = n
        if d in m.spec.inputs:
            found.inputs.append(n)
        else:
            got[id(n)] = Cell(d, 0, 0)
