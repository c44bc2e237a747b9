"""Rounding exact values to decimals, certified: the arithmetic behind every printed digit.

A value is known as a ball (an interval with exact dyadic ends). Rounding is monotone, so
when both ends round to the same decimal, that decimal is the correctly rounded value.
When they do not, the caller refines the ball; an exact tie is settled from the exact
value, never from a float.
"""

from __future__ import annotations

from typing import NamedTuple
from fractions import Fraction
import math

MODES = ("half-up", "half-even", "truncate")
FIXED_ZEROS = 1000     # more zeros than this before or after the digits: scientific notation


def check_mode(mode: str) -> str:
    from ..errors import InputError
    if mode not in MODES:
        raise InputError(f"rounding mode {mode!r}: use one of {', '.join(MODES)}")
    return mode


def round_units(q: Fraction, decimals: int, mode: str) -> int:
    """``q`` rounded to ``decimals`` places, as an integer count of 10^-decimals units.

    >>> round_units(Fraction(5, 8), 2, "half-up"), round_units(Fraction(5, 8), 2, "half-even")
    (63, 62)
    >>> round_units(Fraction(-5, 8), 2, "half-up"), round_units(Fraction(-5, 8), 2, "truncate")
    (-63, -62)
    """
    x = q * (Fraction(10) ** decimals)
    if mode == "half-even":
        return round(x)
    if mode == "truncate":
        return math.trunc(x)
    a = abs(x)
    u = math.floor(a + Fraction(1, 2))
    return u if x >= 0 else -u


def is_tie(q: Fraction, decimals: int) -> bool:
    """True when ``q`` lies exactly halfway between two decimals at that precision."""
    x = q * (Fraction(10) ** decimals)
    return (x - math.floor(x)) == Fraction(1, 2)


def floor_log10(q: Fraction) -> int:
    """floor(log10 |q|) for q != 0, exactly."""
    q = abs(q)
    n, d = q.numerator, q.denominator
    e = math.floor((n.bit_length() - d.bit_length()) * 0.30102999566398120)
    while _pow10_le(e + 1, n, d):        # 10^(e+1) <= q
        e += 1
    while not _pow10_le(e, n, d):        # 10^e > q
        e -= 1
    return e


def _pow10_le(e: int, n: int, d: int) -> bool:
    """10^e <= n/d for integers n, d > 0."""
    return d * 10 ** e <= n if e >= 0 else d <= n * 10 ** (-e)


# -- integer rounding: cost in the digits asked for, never in the exponent -------------------

_SMALL_POW10 = tuple(10 ** k for k in range(512))


def pow10(k: int) -> int:
    """10**k for k >= 0 (a fixed table for small k; no table grows with the exponent)."""
    return _SMALL_POW10[k] if k < 512 else 10 ** k


def ndigits(v: int) -> int:
    """Decimal digits of the integer v > 0."""
    k = ((v.bit_length() - 1) * 1233) >> 12             # <= floor(log10 v)
    while v >= pow10(k + 1):
        k += 1
    return k + 1


def div_round(v: int, p: int, mode: str) -> int:
    """v / p rounded to an integer (p > 0), as :func:`round_units` rounds."""
    if mode == "half-even":
        q, r = divmod(v, p)
        t = 2 * r
        if t > p or (t == p and q & 1):
            q += 1
        return q
    a = -v if v < 0 else v
    q, r = divmod(a, p)
    if mode == "half-up" and 2 * r >= p:
        q += 1
    return q if v >= 0 else -q


def units(v: int, s: int, mode: str) -> int:
    """v × 10^-s rounded to an integer.

    |v| < 10^(s-1) rounds to 0 in every mode; that is decided from the bit length, so a
    tiny value (s in the millions: exp(−10⁹)) costs nothing.

    >>> units(123456, 3, "half-up"), units(-5, 1, "half-even"), units(7, 10**9, "half-up")
    (123, 0, 0)
    """
    if s <= 0:
        return v * pow10(-s)
    if v.bit_length() <= 3 * (s - 1):                   # |v| < 8^(s-1) <= 10^(s-1)
        return 0
    return div_round(v, pow10(s), mode)


def format_units(units: int, decimals: int) -> str:
    """The decimal text of ``units`` × 10^-decimals (``decimals`` may be negative)."""
    sign = "-" if units < 0 else ""
    u = -units if units < 0 else units
    t = _digits(u)
    if u and max(decimals - len(t), -decimals) > FIXED_ZEROS:
        return sign + _scientific(t, decimals)
    if decimals <= 0:
        return sign + t + "0" * (-decimals)
    t = t.rjust(decimals + 1, "0")
    return f"{sign}{t[:-decimals]}.{t[-decimals:]}"


def _digits(u: int) -> str:
    """The decimal digits of u >= 0 (``str`` refuses integers of more than 4300 digits)."""
    if u.bit_length() < 14_000:
        return str(u)
    from decimal import Decimal
    return format(Decimal(u), "f")


def _scientific(t: str, decimals: int) -> str:
    """The digits ``t`` of u > 0, times 10^-decimals, as d.ddd…e±N.

    >>> _scientific("1234", 2000), _scientific("5", -3000)
    ('1.234e-1997', '5e+3000')
    """
    exp = len(t) - 1 - decimals
    t = t.rstrip("0")
    return f"{t[0]}{'.' + t[1:] if len(t) > 1 else ''}e{exp:+d}"


class Rounded(NamedTuple):
    """A certified rounding: ``units`` × 10^-``decimals``; ``tie`` if the value was exactly halfway."""
    units: int
    decimals: int
    tie: bool = False

    @property
    def value(self) -> Fraction:
        """The rounded value (see :func:`symattn.evaluation.certified.value_of`, which
        refuses one beyond 2^±MAX_EXPONENT_BITS before 10^decimals is computed)."""
        return Fraction(self.units) / Fraction(10) ** self.decimals

    def __str__(self) -> str:
        return format_units(self.units, self.decimals)


def round_interval(lo: Fraction, hi: Fraction, decimals: int, mode: str) -> Rounded | None:
    """The rounding of every point of [lo, hi] if they all agree, else None."""
    a, b = round_units(lo, decimals, mode), round_units(hi, decimals, mode)
    if a != b:
        return None
    return Rounded(a, decimals, tie=lo == hi and is_tie(lo, decimals))


def round_point_significant(q: Fraction, digits: int, mode: str) -> Rounded:
    """``q`` (nonzero) rounded to ``digits`` significant digits."""
    d = digits - 1 - floor_log10(q)
    u = round_units(q, d, mode)
    if abs(u) == 10 ** digits:                               # 9.995 -> 10.0
        return Rounded(u // 10, d - 1)
    return Rounded(u, d)


def round_significant(lo: Fraction, hi: Fraction, digits: int, mode: str) -> Rounded | None:
    """The ``digits``-significant rounding of every point of [lo, hi] if they all agree.

    Rounding to significant digits is monotone, so agreeing ends settle the interval even
    when it straddles a power of ten.
    """
    if lo <= 0 <= hi:
        return None
    a, b = round_point_significant(lo, digits, mode), round_point_significant(hi, digits, mode)
    return a if (a.units, a.decimals) == (b.units, b.decimals) else None   # both normalised
