"""The smooth elementwise functions: exp, log, sqrt, sin, cos, erf, tanh.

Each is exact in SymPy, a ball in Arb (an exact ``fmpq`` where ``fold`` gives the value
at a rational point), vectorised in NumPy, an unknown of the formal proof of zeros unless
it folds, and differentiated by the rule beside it.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..errors import DomainError
from . import REFUSE, Tex, declare, size_plus_one


def _sqrt_fold(c):
    p, q = c.p, c.q
    if p >= 0 and p.is_square() and q.is_square():
        return type(c)(p.isqrt(), q.isqrt())
    return None


def _sqrt_domain(ctx, node, x):
    if ctx.s_sign(x) == -1:
        raise DomainError("square root of a negative number")


def _log_domain(ctx, node, x):
    s = ctx.s_sign(x)
    if s == 0 and ctx.is_exact_zero(x):
        raise DomainError(node.params.get("zero", "log of 0"))
    if s == -1:
        raise DomainError("log of a negative number")


def _log_float(node, a):
    if (a == 0).any():
        raise DomainError(node.params.get("zero", "log of 0"))


def _d_sqrt(bp, v, x, o, arg, i, j):
    if bp.sign(arg, i, j, x) == 0:
        raise DomainError(f"√ at exactly 0 ({bp.where(arg, i, j)}) has no derivative",
                          hint="a constant row in LayerNorm needs eps > 0")
    s = bp.ctx
    return s.s_div(v, s.s_add(o, o))


def _d_erf(bp, v, x, o, arg, i, j):
    """d erf(x)/dx = 2/√π · exp(−x²)."""
    s = bp.ctx
    e = s.call("exp", s.s_neg(s.s_mul(x, x)))
    return s.s_mul(v, s.s_div(s.s_mul(s.scalar(Fraction(2)), e), s.call("sqrt", s.call("pi"))))


def _d_tanh(bp, v, x, o, arg, i, j):
    """d tanh(x)/dx = 1 − tanh(x)²."""
    s = bp.ctx
    return s.s_mul(v, s.s_sub(s.one, s.s_mul(o, o)))


def _erf_float(ctx, a):
    import numpy as np
    return np.frompyfunc(math.erf, 1, 1)(a).astype(a.dtype)


declare(name="exp", arity=1, kind="function", builder="exp", search=True, doc="e^x elementwise.",
        exact="exp", ball="exp", float="exp", fold=(0, 1),
        neg_inf=Fraction(0),                  # exp(−∞) = 0: how a mask reaches softmax
        derivative=lambda bp, v, x, o, arg, i, j: bp.ctx.s_mul(v, o),
        size=size_plus_one, cost="function", rational=False, atom=True,
        latex=Tex(fn=r"\exp", power="e^{%s}"))

declare(name="log", arity=1, kind="function", builder="log", doc="Natural logarithm, elementwise.",
        exact="log", ball="log", float="log", fold=(1, 0),
        neg_inf=REFUSE, domain=_log_domain, float_check=_log_float,
        derivative=lambda bp, v, x, o, arg, i, j: bp.ctx.s_div(v, x),
        size=size_plus_one, cost="function", rational=False, atom=True,
        latex=Tex(fn=r"\log"))

declare(name="sqrt", arity=1, kind="function", builder="sqrt", doc="Square root, elementwise.",
        exact="sqrt", ball="sqrt", float="sqrt", fold=_sqrt_fold,
        neg_inf=REFUSE, domain=_sqrt_domain, derivative=_d_sqrt,
        size=size_plus_one, cost="function", rational=False, atom=True,
        latex=Tex(wrap=r"\sqrt{%s}"))

declare(name="sin", arity=1, kind="function", builder="sin", search="last", doc="Sine, elementwise.",
        exact="sin", ball="sin", float="sin", fold=(0, 0),
        neg_inf=REFUSE,
        derivative=lambda bp, v, x, o, arg, i, j: bp.ctx.s_mul(v, bp.ctx.call("cos", x)),
        size=size_plus_one, cost="function", rational=False, atom=True,
        latex=Tex(fn=r"\sin"))

declare(name="cos", arity=1, kind="function", builder="cos", search="last", doc="Cosine, elementwise.",
        exact="cos", ball="cos", float="cos", fold=(0, 1),
        neg_inf=REFUSE,
        derivative=lambda bp, v, x, o, arg, i, j:
            bp.ctx.s_neg(bp.ctx.s_mul(v, bp.ctx.call("sin", x))),
        size=size_plus_one, cost="function", rational=False, atom=True,
        latex=Tex(fn=r"\cos"))

declare(name="erf", arity=1, kind="function", builder="erf",
        doc="The error function erf(x) = 2/√π ∫₀ˣ e^(−t²) dt, elementwise (exact GELU).",
        exact="erf", ball="erf", float=_erf_float, fold=(0, 0),
        neg_inf=Fraction(-1),                 # erf(−∞) = −1, as NumPy/math give
        derivative=_d_erf, size=size_plus_one, cost="function", rational=False, atom=True,
        latex=Tex(fn=r"\operatorname{erf}"))

declare(name="tanh", arity=1, kind="function", builder="tanh",
        doc="Hyperbolic tangent, elementwise.",
        exact="tanh", ball="tanh", float="tanh", fold=(0, 0),
        neg_inf=Fraction(-1),                 # tanh(−∞) = −1
        derivative=_d_tanh, size=size_plus_one, cost="function", rational=False, atom=True,
        latex=Tex(fn=r"\tanh"))


def _sigmoid_exact(ctx, x):
    import sympy
    return 1 / (1 + sympy.exp(-x))


def _sigmoid_ball(ctx, x):
    return 1 / (1 + (-x).exp())


def _sigmoid_float(ctx, a):
    import numpy as np
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-a))).astype(a.dtype)


def _d_sigmoid(bp, v, x, o, arg, i, j):
    """d σ(x)/dx = σ(x)·(1 − σ(x))."""
    s = bp.ctx
    return s.s_mul(v, s.s_mul(o, s.s_sub(s.one, o)))


declare(name="sigmoid", arity=1, kind="function", builder="sigmoid",
        doc="The logistic sigmoid σ(x) = 1/(1 + e^(−x)), elementwise (SwiGLU's GLU form, gates).",
        exact=_sigmoid_exact, ball=_sigmoid_ball, float=_sigmoid_float,
        fold=lambda c: type(c)(1, 2) if c == 0 else None,      # σ(0) = 1/2
        neg_inf=Fraction(0),                  # σ(−∞) = 0
        derivative=_d_sigmoid, size=size_plus_one, cost="function", rational=False, atom=True,
        latex=Tex(fn=r"\sigma"))
