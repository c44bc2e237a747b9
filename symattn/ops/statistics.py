"""The row variance as the spec language calls it, ``var(x, ddof=0)``, declared with its
common mistake: the other divisor (÷(d−1) for ÷d, or back). The function itself is
:func:`symattn.ops.elementwise.var`, a short composition of primitives."""

from __future__ import annotations

from .elementwise import var
from .operation import declare, Presentation, Search


def _mistakes(call, spec) -> list:
    from ..spec import calls as C
    ddof = C.get(call, "ddof")
    if ddof is None or ddof == C.ZERO:
        return [("unbiased variance (÷(d−1)) instead of the biased one (÷d)",
                 C.with_kw(call, "ddof", C.ONE))]
    return [("biased variance (÷d) instead of the unbiased one (÷(d−1))",
             C.with_kw(call, "ddof", C.ZERO))]


VAR = declare("var", var, convert={"ddof": "whole"}, mistakes=_mistakes,
              latex=Presentation("var", rows="first"), search=Search("n d -> n 1", params={"ddof": ("0", "1")}))
