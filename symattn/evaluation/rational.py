"""The rational context: exact ``Fraction`` arithmetic without SymPy.

Many steps of a worked example are rational (products of printed decimals, means,
deviations). Their exact values, an exact 0 or an exact rounding tie among them, are
settled here cheaply; an operation that leaves the rationals (exp, sqrt, log, sin, cos)
raises :class:`NotRational` and the caller falls back to the SymPy context.
"""

from __future__ import annotations

from fractions import Fraction

from .base import ListContext


class NotRational(Exception):
    """The value is not rational (an exp, a square root, ... was reached)."""


class RationalContext(ListContext):
    name = "rational"
    zero = Fraction(0)
    one = Fraction(1)

    def scalar(self, x):
        if isinstance(x, Fraction):
            return x
        if getattr(x, "is_Rational", False):
            return Fraction(int(x.p), int(x.q))
        raise NotRational(x)

    def is_exact_zero(self, x) -> bool:
        return x == 0

    def s_add(self, x, y): return x + y
    def s_sub(self, x, y): return x - y
    def s_mul(self, x, y): return x * y
    def s_div(self, x, y): return x / y
    def s_neg(self, x): return -x
    def s_abs(self, x): return abs(x)
    def s_sign(self, x): return (x > 0) - (x < 0)
    def s_relu(self, x): return x if x > 0 else self.zero
    def s_max(self, xs): return max(xs)

    def s_pow(self, x, k: Fraction):
        if k.denominator != 1:
            raise NotRational(k)
        if x == 0 and k < 0:
            raise ZeroDivisionError
        return x ** int(k)

    def _irrational(self, *args):
        raise NotRational(args)

    s_exp = s_log = s_sqrt = s_sin = s_cos = _irrational
