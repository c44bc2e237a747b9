"""The exact context: SymPy numbers, so exp and sqrt stay symbolic and rationals rational."""

from __future__ import annotations

import functools
from fractions import Fraction

import sympy

from ..numbers import check_bits, check_power_bits
from ..tensor import NEG_INF
from .base import ListContext


class ExactContext(ListContext):
    name = "exact"
    zero = sympy.Integer(0)
    one = sympy.Integer(1)

    def scalar(self, x):
        if isinstance(x, Fraction):
            return sympy.Rational(x.numerator, x.denominator)
        if isinstance(x, sympy.Basic):
            return x
        raise TypeError(f"not an exact scalar: {x!r}")

    def is_exact_zero(self, x) -> bool:
        # structural: SymPy folds rational zeros; a symbolic zero in disguise is caught
        # by the certified ball evaluation instead
        return x == 0

    def s_add(self, x, y): return sized(x + y)
    def s_sub(self, x, y): return sized(x - y)
    def s_mul(self, x, y): return sized(x * y)
    def s_div(self, x, y): return sized(x / y)
    def s_neg(self, x): return -x
    def s_sum(self, xs): return sized(sympy.Add(*xs))

    def s_pow(self, x, k: Fraction):
        if x.is_Rational:                        # its size is known before it is computed
            check_power_bits(max(abs(x.p).bit_length(), x.q.bit_length()), k)
        return sized(x ** sympy.Rational(k.numerator, k.denominator))

    def s_sign(self, x):
        """Sign decided by exact comparison for rationals, by balls otherwise (never a float)."""
        if x.is_Rational:
            return 1 if x.p > 0 else -1 if x.p < 0 else 0
        if not x.is_number:
            return None
        return sign_by_balls(x)

    def resolve(self, p):
        """SymPy's function of the declared name (``sympy.exp``), or the declared rule."""
        rule = p.exact
        if p.arity == 0:
            value = getattr(sympy, rule)
            return lambda: value
        return getattr(sympy, rule) if isinstance(rule, str) else functools.partial(rule, self)

    def s_max(self, xs):
        return sympy.Max(*xs)


def sized(x):
    """``x``, if it is no rational number beyond :data:`symattn.numbers.MAX_NUMBER_BITS`
    (a chain of squarings doubles the digits at each step: refused where it passes the
    limit, whatever the machine's speed)."""
    if x.is_Rational:
        check_bits(x.p, x.q)
    return x


def sign_by_balls(x, max_prec: int = 4096):
    """Sign of a SymPy number by ball arithmetic at rising precision; None when undecided.

    SymPy's simplify is not called: with python-flint installed its polynomial code can
    abort the process (SIGFPE) on sums of exponentials, and it can also take minutes.
    """
    from .ball import sympy_to_arb, precision
    prec = 64
    while prec <= max_prec:
        with precision(prec):
            b = sympy_to_arb(x)
            if b > 0:
                return 1
            if b < 0:
                return -1
        prec *= 4
    return None          # indistinguishable from 0 at max_prec; no SymPy simplify (see below)


def is_rational_zero(x) -> bool:
    return x.is_Rational and x == 0


def to_sympy_matrix(value) -> "sympy.ImmutableMatrix":
    return sympy.ImmutableMatrix([[-sympy.oo if x is NEG_INF else x for x in row] for row in value])
