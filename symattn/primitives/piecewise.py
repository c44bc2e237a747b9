"""The piecewise elementwise functions: |x|, ReLU and the finite-entry indicator.

They keep rationals rational (``fold`` is total on rationals). Where they have no
derivative (|x| and ReLU at exactly 0) the rule takes slope 0 and says so, as PyTorch does.
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import CertificationError
from . import Tex, declare, size_plus_one, same_size, REFUSE


def _relu_exact(ctx, x):
    s = ctx.s_sign(x)
    if s is None:
        if x.is_number:
            raise CertificationError(f"cannot decide the sign of {x} for ReLU")
        import sympy
        return sympy.Max(0, x)
    return x if s > 0 else ctx.zero


def _relu_ball(ctx, x):
    if x > 0:
        return x
    if x < 0 or x.is_zero():
        return ctx.zero
    return type(x)(0).union(x.upper())          # the ball straddles 0: relu lies in [0, hi]


def _d_relu(bp, v, x, o, arg, i, j):
    sg = bp.sign(arg, i, j, x)
    if sg is None:                                       # symbols: exact context only
        import sympy
        return bp.ctx.s_mul(v, sympy.Heaviside(x, 0))
    if sg == 0:
        bp.note(f"ReLU at exactly 0 ({bp.where(arg, i, j)}): slope 0 taken, "
                "as PyTorch does (the derivative does not exist there)")
    return v if sg > 0 else None


def _d_abs(bp, v, x, o, arg, i, j):
    sg = bp.sign(arg, i, j, x)
    if sg is None:
        import sympy
        return bp.ctx.s_mul(v, sympy.sign(x))
    if sg == 0:
        bp.note(f"|x| at exactly 0 ({bp.where(arg, i, j)}): slope 0 taken, "
                "as PyTorch does (the derivative does not exist there)")
        return None
    return v if sg > 0 else bp.ctx.s_neg(v)


def _relu_float(ctx, a):
    import numpy as np
    return np.maximum(a, 0)


def _finite_float(ctx, a):
    import numpy as np
    return np.isfinite(a).astype(ctx.dtype)


declare(name="abs", arity=1, kind="function", builder="abs_", doc="|x| elementwise.",
        exact="Abs", ball="__abs__", float="abs", fold=abs,
        neg_inf=REFUSE, derivative=_d_abs,
        size=size_plus_one, cost="entry", rational=True, atom=True,
        latex=Tex(wrap=r"\left\lvert %s \right\rvert"))

declare(name="relu", arity=1, kind="function", builder="relu",
        doc="max(0, x) elementwise; the sign of an exact value is decided with certainty.",
        exact=_relu_exact, ball=_relu_ball, float=_relu_float,
        fold=lambda c: c if c.numerator > 0 else 0,      # fmpq's own > is 4× slower
        neg_inf=Fraction(0), derivative=_d_relu,
        size=size_plus_one, cost="entry", rational=True, atom=True,
        latex=Tex(fn=r"\operatorname{ReLU}", entry=r"\max\left(0,\ %s\right)"))

declare(name="finite", arity=1, kind="function", builder="finite",
        doc="1 where an entry is finite, 0 where it is −∞ (which entries a mask keeps).",
        exact=lambda ctx, x: ctx.one, ball=lambda ctx, x: ctx.one, float=_finite_float,
        fold=lambda c: 1, neg_inf=Fraction(0),
        derivative=lambda bp, v, x, o, arg, i, j: None,      # piecewise constant
        size=same_size, cost="entry", rational=True, atom=False,
        latex=Tex(fn=r"\mathbb{1}_{\mathrm{finite}}"))
