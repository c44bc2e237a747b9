"""The operations a spec expression may call: a whitelist mapping names to the engine.

The declared operations (:data:`symattn.ops.OPERATIONS`) bring their own signature and
argument converters; :data:`FUNCTIONS` adds the elementwise functions, row statistics and
helpers that are not declared there. Anything else cannot be called.
"""

from __future__ import annotations

import inspect
from fractions import Fraction

from .. import ops
from ..errors import SpecError
from ..numbers import shown
from ..ops import primitives as P


check_entries = P.check_entries     # refuse an m×n matrix beyond MAX_ENTRIES before it is built


def _argmax(x):
    """The index of the largest entry of each row: a number for one row, a column for several."""
    from ..evaluation.decide import argmax
    from ..evaluation.evaluator import Evaluator
    t, ev = P.as_tensor(x), Evaluator()
    if t.shape[0] == 1:
        return Fraction(argmax(t, ev))
    return P.const([[Fraction(argmax(t, ev, row=i))] for i in range(t.shape[0])], t.rows)


def _declared_functions() -> dict:
    """exp, log, sqrt, ..., erf, tanh and pi() under their declared names (symattn.primitives);
    ``finite`` is read as the articles' ``keep_mask``."""
    from ..primitives import PRIMITIVES
    out = {p.name: P.BUILDERS[p.builder] for p in PRIMITIVES.values() if p.builder in P.BUILDERS}
    out["keep_mask"] = out.pop("finite")
    return out


FUNCTIONS = {
    **_declared_functions(),
    "sum": ops.row_sum, "mean": ops.mean,
    "max": ops.row_max, "width": lambda x: Fraction(P.as_tensor(x).shape[1]), "argmax": _argmax, "transpose": ops.transpose,
}
# Python's names row_sum, row_max and matmul(a, b) are read as sum, max and a @ b by the
# parser (symattn.spec.expr.CALL_ALIASES): one vocabulary, one name per operation here.

_SIGNATURES = {name: inspect.signature(f) for name, f in FUNCTIONS.items()}


def names() -> list[str]:
    """Every name an expression may call."""
    return sorted({*FUNCTIONS, *ops.OPERATIONS})


def signature(name: str) -> inspect.Signature:
    op = ops.OPERATIONS.get(name)
    if op is None:
        return _SIGNATURES[name]
    if (name, op) not in _SIGNATURES:
        _SIGNATURES[name, op] = op.signature()
    return _SIGNATURES[name, op]


def call(name: str, args: list, kwargs: dict):
    op = ops.OPERATIONS.get(name)
    if op is None and name not in FUNCTIONS:
        from ..suggest import with_suggestion
        raise SpecError(f"unknown operation '{shown(name)}'",
                        hint=with_suggestion(f"known: {', '.join(names())}", name, names()))
    sig = signature(name)
    try:
        sig.bind(*args, **kwargs)
    except TypeError as e:
        params = ", ".join(str(p) for p in sig.parameters.values())
        raise SpecError(f"{name}(): {shown(e, 120)}", hint=f"it takes ({params})") from None
    return op.call(args, kwargs) if op is not None else FUNCTIONS[name](*args, **kwargs)
