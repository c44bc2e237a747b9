"""Concatenation side by side (the heads' outputs, Concat) and one above the other, as the
spec language calls them: ``concat(z1, z2)``, ``stack(X, Y)``; Python passes one list.
(Not ``concat.py``: a submodule of that name would hide the function ``symattn.ops.concat``.)"""

from __future__ import annotations

from . import primitives as P
from .operation import declare, Presentation, Search


def _show(v, a) -> list[str]:
    """Each part's columns under its symbol, and which columns came from which part."""
    d = v.Display().add(v.lhs, "=", v.show(v.tree).text)
    blocks, where, col = [], [], 1
    for part in a["parts"]:
        t = v.value(part)
        rows = [v.f.texts(r) for r in v.cells(t, part)]
        sym = v.tex(part).text
        body = r"\begin{matrix} " + r" \\ ".join(" & ".join(r) for r in rows) + r" \end{matrix}"
        blocks.append(rf"\underbrace{{{body}}}_{{{sym}}}")
        last = col + t.shape[1] - 1
        span = str(col) if last == col else rf"{col}\text{{ to }}{last}"
        where.append(rf"{sym}\colon\ \text{{columns }}{span}")
        col = last + 1
    d.cont("=", r"\left[" + r" \;\middle|\; ".join(blocks) + r"\right]")
    v.finish(d, own=True)
    d.add("", "", r"\quad\left(" + r",\ ".join(where) + r"\right)")
    return [d.latex()]


CONCAT = declare("concat", P.hcat, variadic="parts", latex=Presentation("Concat", _show, rows="all"),
                 search=Search("n a, n b -> n a+b"))
STACK = declare("stack", P.vcat, variadic="parts", latex=Presentation("Stack"))
