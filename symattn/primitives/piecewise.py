"""The piecewise elementwise functions: |x|, ReLU, the finite-entry indicator and the
integer parts floor, trunc and round.

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

declare(name="relu", arity=1, kind="function", builder="relu", search=True,
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


# -- the integer parts: floor, trunc, round (an integer-dtype computation) --------------------
# Piecewise constant: the derivative is 0 almost everywhere and does not exist at a jump
# (an integer for floor and trunc, a half-integer for round); 0 is taken, and said.

def _integer_part(name: str, of_fraction, exact_rule, ball_rule, float_name: str, tex, doc: str,
                  builder: str | None = None):
    def derivative(bp, v, x, o, arg, i, j):
        bp.note(f"{name}: derivative 0 almost everywhere (it does not exist where {name} "
                "jumps): 0 taken")
        return None

    def fold(c):
        return of_fraction(Fraction(int(c.p), int(c.q)))

    def float_rule(ctx, a):
        import numpy as np
        return getattr(np, float_name)(a)

    declare(name=name, arity=1, kind="function", builder=builder or name, doc=doc,
            exact=exact_rule, ball=ball_rule, float=float_rule, fold=fold,
            neg_inf=REFUSE, derivative=derivative,
            size=size_plus_one, cost="entry", rational=True, atom=True, latex=tex)


def _half_even(q: Fraction) -> int:
    return round(q)                           # Python's round of a Fraction: ties to even


def _trunc(q: Fraction) -> int:
    return int(q)                             # toward zero


def _exact_of(of_fraction, symbolic):
    def rule(ctx, x):
        if x.is_Rational:
            import sympy
            return sympy.Integer(of_fraction(Fraction(int(x.p), int(x.q))))
        return symbolic(ctx, x)
    return rule


def _floor_sym(ctx, x):
    import sympy
    return sympy.floor(x)


def _trunc_sym(ctx, x):
    import sympy
    s = ctx.s_sign(x)
    if s is None:
        return sympy.sign(x) * sympy.floor(sympy.Abs(x))
    return sympy.floor(x) if s >= 0 else sympy.ceiling(x)


def _round_sym(ctx, x):
    import sympy
    if not x.is_number:
        raise CertificationError(f"round of {x}: the tie rule needs a number, not a symbol")
    return sympy.floor(x + sympy.Rational(1, 2))     # an irrational number has no tie


def _floor_ball(ctx, x):
    return x.floor()


def _trunc_ball(ctx, x):
    if x > 0:
        return x.floor()
    if x < 0:
        return x.ceil()
    return x.floor().union(x.ceil())          # around 0: an enclosure of both sides


def _round_ball(ctx, x):
    half = type(x)(1) / 2
    return (x + half).floor().union((x - half).ceil())   # both tie directions enclosed


_integer_part("floor", lambda q: q.__floor__(), _exact_of(lambda q: q.__floor__(), _floor_sym),
              _floor_ball, "floor", Tex(wrap=r"\left\lfloor %s \right\rfloor"),
              "⌊x⌋, the largest integer ≤ x, elementwise.")
_integer_part("trunc", _trunc, _exact_of(_trunc, _trunc_sym), _trunc_ball, "trunc",
              Tex(fn=r"\operatorname{trunc}"),
              "x with its fraction dropped (toward zero), elementwise: an integer cast.")
_integer_part("round", _half_even, _exact_of(_half_even, _round_sym), _round_ball, "rint",
              Tex(fn=r"\operatorname{round}"),
              "x to the nearest integer, ties to even (torch.round, numpy.rint), elementwise.",
              builder="round_")                  # Python's round stays the builtin
