"""The operations a spec expression may call: a whitelist mapping names to the engine.

The declared operations (:data:`symattn.ops.OPERATIONS`) bring their own signature and
argument converters; :data:`FUNCTIONS` adds the elementwise functions, row statistics and
helpers that are not declared there. Anything else cannot be called.
"""

from __future__ import annotations

import inspect
from fractions import Fraction

from .. import ops
from ..errors import SpecError, InputError, LimitError
from ..numbers import shown
from ..ops import primitives as P
from ..tensor import Tensor


def check_entries(m: int, n: int) -> None:
    """Refuse an m×n matrix beyond ``symattn.ops.primitives.MAX_ENTRIES`` (before it is built)."""
    if m * n > P.MAX_ENTRIES:
        raise LimitError(f"a {m}×{n} matrix has more than {P.MAX_ENTRIES} entries",
                         hint="raise symattn.ops.primitives.MAX_ENTRIES on purpose")


def _show(v) -> str:
    """A value of an expression as a message shows it."""
    if isinstance(v, Fraction):
        return str(v)
    if isinstance(v, Tensor):
        return f"a {v.shape[0]}×{v.shape[1]} matrix"
    if isinstance(v, list):
        return shown("[" + ", ".join(_show(x) for x in v[:10]) + (", ..." if len(v) > 10 else "") + "]")
    if isinstance(v, str):
        return f"the label \"{shown(v)}\""
    return shown(repr(v))


def _int(v, what: str) -> int:
    if isinstance(v, Tensor) and v.op == "const" and v.shape == (1, 1):
        v = v.params["entries"][0][0]
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    raise InputError(f"{what} must be a whole number, got {_show(v)}")


def _flags(v) -> list:
    if isinstance(v, list):
        return [_int(x, "a padding flag") for x in v]
    if isinstance(v, Tensor) and v.op == "const" and v.shape[0] == 1:
        return [_int(x, "a padding flag") for x in v.params["entries"][0]]
    raise InputError("padding_mask takes a list of 0/1 flags such as [1, 1, 0]")


def _labels(v) -> list:
    items = v if isinstance(v, list) else [v]
    return [x if isinstance(x, str) else _int(x, "a token id") for x in items]


def _target(v):
    if isinstance(v, list):
        return [x if isinstance(x, str) else _int(x, "a target index") for x in v]
    return v if isinstance(v, str) else _int(v, "a target index")


def _argmax(x):
    """The index of the largest entry of each row: a number for one row, a column for several."""
    from ..evaluation.decide import argmax
    from ..evaluation.evaluator import Evaluator
    t, ev = P.as_tensor(x), Evaluator()
    if t.shape[0] == 1:
        return Fraction(argmax(t, ev))
    return P.const([[Fraction(argmax(t, ev, row=i))] for i in range(t.shape[0])], t.rows)


FUNCTIONS = {
    "exp": ops.exp, "log": ops.log, "sqrt": ops.sqrt, "sin": ops.sin, "cos": ops.cos,
    "relu": ops.relu, "abs": ops.abs_,
    "sum": ops.row_sum, "mean": ops.mean,
    "var": lambda x, ddof=0: ops.var(x, _int(ddof, "ddof")),
    "max": ops.row_max, "width": lambda x: Fraction(P.as_tensor(x).shape[1]), "argmax": _argmax, "transpose": ops.transpose,
    "keep_mask": P.finite,
    "concat": lambda *parts: ops.concat(parts),
    "stack": lambda *parts: ops.stack(parts),
    "linear": lambda x, W, b=None: ops.linear(x, W, b),
    "ffn": ops.ffn,
    "residual": ops.residual,
}
# Python's names row_sum, row_max and matmul(a, b) are read as sum, max and a @ b by the
# parser (symattn.spec.expr.CALL_ALIASES): one vocabulary, one name per operation here.

_SIGNATURES = {name: inspect.signature(f) for name, f in FUNCTIONS.items()}
_SIGNATURES.update({name: op.signature() for name, op in ops.OPERATIONS.items()})
NAMES = sorted(_SIGNATURES)          # every name an expression may call


def call(name: str, args: list, kwargs: dict):
    op = ops.OPERATIONS.get(name)
    f = op.call if op is not None else FUNCTIONS.get(name)
    if f is None:
        raise SpecError(f"unknown operation '{shown(name)}'", hint=f"known: {', '.join(NAMES)}")
    try:
        _SIGNATURES[name].bind(*args, **kwargs)
    except TypeError as e:
        params = ", ".join(str(p) for p in _SIGNATURES[name].parameters.values())
        raise SpecError(f"{name}(): {shown(e, 120)}", hint=f"it takes ({params})") from None
    return f(args, kwargs) if op is not None else f(*args, **kwargs)
