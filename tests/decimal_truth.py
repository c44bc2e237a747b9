"""The truth for tests of rounding, computed without symattn: the decimal module's rounding
of exact Fractions, of mpmath values (SymPy's evalf) at high precision, and of the exact
ends of an Arb ball."""

from dataclasses import dataclass
from decimal import Context, Decimal, Inexact, ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP
from fractions import Fraction

DECIMAL_MODES = {"half-up": ROUND_HALF_UP, "half-even": ROUND_HALF_EVEN, "truncate": ROUND_DOWN}


@dataclass(frozen=True)
class Expected:
    """A rounding computed by the decimal module; equal to a symattn ``Rounded`` with the same
    units × 10^-decimals and tie flag, and printed by the decimal module."""
    value: Decimal
    tie: bool = False

    @property
    def decimals(self) -> int:
        return -self.value.as_tuple().exponent

    @property
    def units(self) -> int:
        sign, digits, _ = self.value.as_tuple()
        units = 0
        for digit in digits:
            units = 10 * units + digit
        return -units if sign else units

    def __eq__(self, other):
        if not all(hasattr(other, a) for a in ("units", "decimals", "tie")):
            return NotImplemented
        return (self.units, self.decimals, self.tie) == (other.units, other.decimals, other.tie)

    def __str__(self) -> str:
        return format(self.value.copy_abs() if self.value.is_zero() else self.value, "f")


def decimal_round(q: Fraction, *, digits=None, decimals=None, mode="half-even") -> Expected:
    """``q`` correctly rounded by the decimal module: to ``decimals`` places or ``digits``
    significant digits. An inexact quotient is truncated with a sticky digit appended, which
    lies strictly between the truncation and the next decimal, as ``q`` does, and so rounds
    as ``q`` does; ``tie`` when ``q`` lies exactly halfway."""
    if q == 0:
        return Expected(Decimal((0, (0,), -(decimals or 0))))
    n, d = q.numerator, q.denominator
    width = (abs(n).bit_length() + d.bit_length()) * 302 // 1000 + 4
    big = Context(prec=width + (digits or 0) + abs(decimals or 0) + 20, rounding=ROUND_DOWN,
                  Emax=10**9, Emin=-10**9)
    approx = big.divide(Decimal(n), Decimal(d))
    inexact = bool(big.flags[Inexact])
    if inexact:
        sign, ds, exp = approx.as_tuple()
        approx = Decimal((sign, ds + (1,), exp - 1))
    exponent = -decimals if decimals is not None else approx.adjusted() - digits + 1
    unit = Decimal((0, (1,), exponent))
    rounded = approx.quantize(unit, rounding=DECIMAL_MODES[mode], context=big)
    if digits is not None and rounded.adjusted() > approx.adjusted():      # 9.995 -> 10.0
        rounded = rounded.quantize(Decimal((0, (1,), exponent + 1)), context=big)
    below = approx.quantize(unit, rounding=ROUND_DOWN, context=big)
    tie = not inexact and 2 * abs(approx - below) == unit
    return Expected(rounded, tie)


def mpmath_round(v, *, digits=None, decimals=None, mode="half-even") -> Expected:
    """An irrational SymPy value rounded from mpmath (SymPy's evalf, strict) at rising
    precision: the value known to ``prec`` digits is widened by 10^(5 - prec) relative,
    and both ends must round alike."""
    prec = (digits or 0) + max(decimals or 0, 0) + 30
    while True:
        approx = v.evalf(prec, maxn=4 * prec, strict=True)
        sign, man, exp, _ = approx._mpf_
        f = Fraction(-man if sign else man) * Fraction(2) ** exp
        err = abs(f) / 10 ** (prec - 5)
        lo = decimal_round(f - err, digits=digits, decimals=decimals, mode=mode)
        hi = decimal_round(f + err, digits=digits, decimals=decimals, mode=mode)
        if lo == hi and not lo.tie:
            return lo
        prec *= 2
        assert prec < 40_000, v


def ball_ends(x) -> tuple[Fraction, Fraction]:
    """The exact ends of a ball: its dyadic midpoint minus and plus its dyadic radius."""
    (m, e), (r, f) = x.mid().man_exp(), x.rad().man_exp()
    mid = Fraction(int(m)) * Fraction(2) ** int(e)
    rad = Fraction(int(r)) * Fraction(2) ** int(f)
    return mid - rad, mid + rad


def truth(lo: Fraction, hi: Fraction, **kw):
    """The rounding every point of [lo, hi] has (rounding is monotone, so that of its ends)
    by the decimal module, or None when the ends round apart; a tie only for a point."""
    a, b = decimal_round(lo, **kw), decimal_round(hi, **kw)
    if (a.units, a.decimals) != (b.units, b.decimals):
        return None
    return Expected(a.value, tie=lo == hi and a.tie)
