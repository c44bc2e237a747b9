"""The certified context: Arb ball arithmetic (python-flint) at an explicit precision.

Every value is a ball that contains the exact value; digits read from a ball whose two
ends agree are certified. Matrix products go to ``arb_mat`` (C); the rest is the shared
list algorithm of :class:`~symattn.evaluation.base.ListContext`.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction

import flint
from flint import arb, arb_mat, fmpq

from ..errors import InputError, CertificationError
from .base import ListContext


@contextlib.contextmanager
def precision(bits: int):
    """Run with Arb's working precision set to ``bits`` (restored afterwards)."""
    old = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = old


def fraction_to_arb(q: Fraction) -> arb:
    return arb(fmpq(q.numerator, q.denominator))


class BallContext(ListContext):
    """Balls at ``prec`` bits; evaluation must run inside ``precision(prec)``."""

    name = "ball"

    def __init__(self, prec: int):
        self.prec = prec
        self.zero = arb(0)
        self.one = arb(1)

    def scalar(self, x):
        if isinstance(x, Fraction):
            return fraction_to_arb(x)
        return sympy_to_arb(x)

    def is_exact_zero(self, x) -> bool:
        return x.is_zero()

    def s_add(self, x, y): return x + y
    def s_sub(self, x, y): return x - y
    def s_mul(self, x, y): return x * y
    def s_div(self, x, y): return x / y
    def s_neg(self, x): return -x
    def s_exp(self, x): return x.exp()
    def s_log(self, x): return x.log()
    def s_sqrt(self, x): return x.sqrt()
    def s_sin(self, x): return x.sin()
    def s_cos(self, x): return x.cos()
    def s_abs(self, x): return abs(x)
    def s_pow(self, x, k: Fraction):
        if k.denominator == 1:
            return x ** int(k)
        return x ** fraction_to_arb(k)

    def s_sum(self, xs):
        total = xs[0]
        for x in xs[1:]:
            total += x
        return total

    def s_sign(self, x):
        if x.is_zero():
            return 0
        if x > 0:
            return 1
        if x < 0:
            return -1
        return None

    def s_relu(self, x):
        if x > 0:
            return x
        if x < 0 or x.is_zero():
            return self.zero
        hi = x.upper()                       # the ball straddles 0: relu lies in [0, hi]
        return arb(0).union(hi)

    def s_max(self, xs):
        best = xs[0]
        for x in xs[1:]:
            best = best.max(x)
        return best

    def op_matmul(self, node, a, b):
        self._no_mask(node, a, b)
        return (arb_mat(a) * arb_mat(b)).tolist()


def sympy_to_arb(expr) -> arb:
    """A ball containing a SymPy number (rationals, + × ÷, powers, exp, log, sqrt, sin, cos, π, e)."""
    import sympy
    if expr.is_Rational:
        return arb(fmpq(int(expr.p), int(expr.q)))
    if expr is sympy.pi:
        return arb.pi()
    if expr is sympy.E:
        return arb(1).exp()
    if expr.is_Add:
        total = arb(0)
        for a in expr.args:
            total += sympy_to_arb(a)
        return total
    if expr.is_Mul:
        total = arb(1)
        for a in expr.args:
            total *= sympy_to_arb(a)
        return total
    if expr.is_Pow:
        base, e = expr.args
        b = sympy_to_arb(base)
        if e.is_Integer:
            return b ** int(e)
        return b ** sympy_to_arb(e)
    funcs = {sympy.exp: "exp", sympy.log: "log", sympy.sin: "sin", sympy.cos: "cos",
             sympy.Abs: "__abs__"}
    f = funcs.get(type(expr))
    if f and len(expr.args) == 1:
        return getattr(sympy_to_arb(expr.args[0]), f)()
    if expr.is_Symbol or expr.free_symbols:
        raise InputError(f"'{expr}' is a symbol: certified digits need numbers",
                         hint="substitute values, or ask for the exact form")
    raise CertificationError(f"cannot enclose {expr} in a ball")
