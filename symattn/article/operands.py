"""What a spec's steps are computed from, as the matcher asks it: the steps of numbers only
(``0.364 ** 2``, arithmetic the article writes out) and their decimals, the numbers written
into a step on the lines it is said to be printed on (operands, no claims), and the steps
that only select from an input (a print of them restates the input)."""

from __future__ import annotations

from ..spec import expr as E
from ..spec.load import Spec


def written_numbers(spec: Spec) -> dict:
    """Steps computed from numbers written in the spec only (``0.364 ** 2``, a relation the
    article checks as written): step -> the numbers with decimals it is computed from."""
    out = {}
    for step in of_numbers(spec):
        nums = {x for x in E.numbers(step.tree) if x.denominator != 1}
        if nums:
            out[step.name] = frozenset(nums)
    return out


WORKED_ABOVE = 4            # lines above its result an equation of numbers may run on
                            # (``= (0.3 × 0.9) + (0.6 × 0.1)`` over ``= 0.33``)


def operands(spec: Spec) -> set:
    """(article line, value) of each number a step of numbers only is computed from, and of
    each decimal written into a step of tensors (``q[0, 0] * (0.6)`` of ``(1.0)(0.6) + …``),
    on the line the step is said to be printed (``e^{1.0} = 2.718``: the 1.0) or the few
    above it its equation runs on, signs apart."""
    alone = {s.name for s in of_numbers(spec)}
    return {(line, x) for step in spec.steps if step.article_line
            for x in map(abs, E.numbers(step.tree)) if step.name in alone or x.denominator != 1
            for line in range(max(1, step.article_line - WORKED_ABOVE), step.article_line + 1)}


def of_numbers(spec: Spec) -> list:
    """The steps computed from numbers written in the spec only, no tensor."""
    return [s for s in spec.steps if not E.names(s.tree) & set(spec.tensors)]


def selections(spec: Spec) -> set:
    """The inputs and the steps that only pick part of one (``hello = emb["Hello"]``): a
    print of them restates an input, it is no step worked out."""
    out = set(spec.inputs)
    for step in spec.steps:
        t = step.tree
        while isinstance(t, E.Index):
            t = t.target
        if isinstance(t, E.Name) and (t.id in out or t.id in spec.inputs):
            out.add(step.name)
    return out
