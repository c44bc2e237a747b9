"""The certified rounding of one entry of the ball context (a ball, an exact rational or −∞).

An entry the ball context keeps as an exact rational is rounded exactly at once; a ball is
rounded from its decimal enclosure (``arb.mid_rad_10exp``) in integer arithmetic, with the
exact dyadic ends (:func:`ball_bounds`) as the fallback near a rounding boundary. Both are
certified: every point of the enclosure rounds to the digits returned. The limits on
precision and exponent that every certified evaluation (values and gradients) obeys are
here.
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import CertificationError, LimitError
from ..tensor import NEG_INF
from . import rounding as R

MAX_PREC_BITS = 1 << 17            # ~40,000 digits; raise on purpose
START_PREC = 64
GUARD_DIGITS = 10                  # decimal digits read beyond those rounded to


MAX_EXPONENT_BITS = 1 << 18


def ball_bounds(b) -> tuple[Fraction, Fraction]:
    """The exact ends of an Arb ball (or an exact FLINT rational) as Fractions."""
    if type(b) is _fmpq():                               # an exact rational
        q = Fraction(int(b.p), int(b.q))
        return q, q
    if not b.is_finite():
        raise CertificationError("a ball grew unbounded (division by a value near 0?)")
    m, e = b.mid().man_exp()
    r, f = b.rad().man_exp()
    if max(abs(int(e)), abs(int(f))) > MAX_EXPONENT_BITS:
        raise exponent_limit()
    mid = Fraction(int(m)) * (Fraction(2) ** int(e))
    rad = Fraction(int(r)) * (Fraction(2) ** int(f))
    return mid - rad, mid + rad


def exponent_limit() -> LimitError:
    """The one refusal for a value too large, or too small for the digits asked, to round."""
    return LimitError(f"a value beyond 2^±{MAX_EXPONENT_BITS} in size cannot be rounded to "
                      "the digits asked", hint="raise symattn.evaluation.certified."
                      "MAX_EXPONENT_BITS on purpose")


def max_decimal_exponent() -> int:
    """The decimal exponent of 2^MAX_EXPONENT_BITS (78,913)."""
    return MAX_EXPONENT_BITS * 1233 // 4096 + 1


def value_of(r: R.Rounded) -> Fraction:
    """``r.value``, refused beyond 2^±MAX_EXPONENT_BITS in size: Arb gives the digits of
    e^-5e29 at no cost (its record's exact text is written in scientific notation), but
    10^(2e29), its value's denominator, is no number anything could hold."""
    if abs(r.decimals) > max_decimal_exponent() + len(str(abs(r.units))):
        raise exponent_limit()
    return r.value


def beyond_exponent_limit(x) -> bool:
    """True when a ball's midpoint or radius lies beyond 2^±MAX_EXPONENT_BITS in size (read
    from the exponents, in time independent of them)."""
    if not x.is_finite():
        return False
    for part in (x.mid(), x.rad()):
        m, e = part.man_exp()
        if m != 0 and abs(int(e) + int(m).bit_length()) > MAX_EXPONENT_BITS:
            return True
    return False


def start_precision(decimals: int | None = None, digits: int | None = None) -> int:
    """The first precision (bits) :meth:`Evaluator.rounded` tries for that many digits."""
    need = (decimals if decimals is not None else digits) or 0
    return max(START_PREC, int(need * 3.33) + 40)


# -- rounding one entry of the ball context ------------------------------------------------

_UNDECIDED = object()
_FMPQ = _ARB = None


def _fmpq():
    global _FMPQ, _ARB
    if _FMPQ is None:
        from flint import fmpq, arb
        _FMPQ, _ARB = fmpq, arb
    return _FMPQ


def round_entry(x, decimals, digits, mode, scale):
    """The certified rounding of one entry (a ball, an exact rational or −∞); ``None`` for
    −∞, ``_UNDECIDED`` when the ball is too wide to tell."""
    if x is NEG_INF:
        return None
    if type(x) is _FMPQ:                                  # an exact rational
        return round_rational(Fraction(int(x.p), int(x.q)) * scale, decimals, digits, mode)
    if x.is_zero():
        return R.Rounded(0, max(decimals or 0, 0))
    if not x.is_finite():
        return _UNDECIDED
    if type(scale) is int and scale > 0:
        r = _round_decimal_enclosure(x, scale, decimals, digits, mode)
        if r is not None:
            return r
    if beyond_exponent_limit(x):         # huge: every digit needed; tiny: refine the ball
        if decimals is not None:
            raise exponent_limit()
        return _UNDECIDED
    lo, hi = ball_bounds(x)
    lo, hi = lo * scale, hi * scale
    if lo > hi:
        lo, hi = hi, lo
    if lo == hi:                         # a point: exactly that value, ties reported
        return round_rational(lo, decimals, digits, mode)
    r = (R.round_interval(lo, hi, decimals, mode) if decimals is not None
         else R.round_significant(lo, hi, digits, mode))
    return _UNDECIDED if r is None else r


def round_rational(q: Fraction, decimals, digits, mode) -> R.Rounded:
    """An exact value rounded; ``tie`` tells that it lay exactly halfway."""
    if q == 0:
        return R.Rounded(0, max(decimals or 0, 0))
    d = decimals if decimals is not None else digits - 1 - R.floor_log10(q)
    r = (R.Rounded(R.round_units(q, d, mode), d) if decimals is not None
         else R.round_point_significant(q, digits, mode))
    return R.Rounded(r.units, r.decimals, tie=R.is_tie(q, d))


_pow10, _ndigits, _units = R.pow10, R.ndigits, R.units


def _significant(v: int, e: int, digits: int, mode: str) -> tuple[int, int]:
    """v × 10^e (v != 0) rounded to ``digits`` significant digits: (units, decimals),
    exactly as :func:`rounding.round_point_significant`."""
    k = _ndigits(-v if v < 0 else v)
    u = _units(v, k - digits, mode)
    d = digits - k - e
    if u == _pow10(digits) or u == -_pow10(digits):      # 9.995 -> 10.0
        return u // 10, d - 1
    return u, d


def _round_significant_fast(x, digits: int, mode: str):
    """A ball rounded to ``digits`` significant digits from Arb's decimal enclosure
    [m ± r]·10^e, in integer arithmetic; None when that cannot decide (the caller then
    takes the general path). Every rounding mode is symmetric under negation, so the
    magnitudes are rounded and the sign put back."""
    n = digits + GUARD_DIGITS
    P = R._SMALL_POW10
    if len(P) <= n + 8:
        return None
    m, r, e = x.mid_rad_10exp(n)
    m = int(m)
    r = int(r)
    if r == 0:                       # an exact ball: the general path reports exact ties
        return None
    if m > r:
        lo, hi, neg = m - r, m + r, False
    elif m < -r:
        lo, hi, neg = -m - r, r - m, True
    else:
        return None                                        # 0 is in the enclosure
    k = ((hi.bit_length() - 1) * 1233) >> 12               # <= floor(log10 hi)
    if k + 1 >= len(P):
        return None
    while hi >= P[k + 1]:
        k += 1
        if k + 1 >= len(P):
            return None
    k += 1                                                 # the digits of hi
    s = k - digits
    if s <= 0 or lo < P[k - 1]:                            # short, or across a power of ten
        return None
    p = P[s]
    q1, r1 = divmod(lo, p)
    q2, r2 = divmod(hi, p)
    if mode == "half-even":
        if 2 * r1 > p or (2 * r1 == p and q1 & 1):
            q1 += 1
        if 2 * r2 > p or (2 * r2 == p and q2 & 1):
            q2 += 1
    elif mode == "half-up":
        if 2 * r1 >= p:
            q1 += 1
        if 2 * r2 >= p:
            q2 += 1
    if q1 != q2:
        return None
    d = digits - k - int(e)
    if q1 == P[digits]:                                    # 9.995 -> 10.0
        q1, d = q1 // 10, d - 1
    return R.Rounded(-q1 if neg else q1, d)


def _round_decimal_enclosure(x, scale: int, decimals, digits, mode):
    """Round from Arb's decimal enclosure [m ± r]·10^e of ``x``; None if its ends disagree."""
    if decimals is None:
        m, r, e = x.mid_rad_10exp(digits + GUARD_DIGITS)
        m, r, e = int(m), int(r), int(e)
        if r == 0:                   # an exact ball: the general path reports exact ties
            return None
        lo, hi = (m - r) * scale, (m + r) * scale
        if lo <= 0 <= hi:
            return None
        a, b = _significant(lo, e, digits, mode), _significant(hi, e, digits, mode)
        return R.Rounded(*a) if a == b else None
    m, r, e = x.mid_rad_10exp(max(decimals, 0) + GUARD_DIGITS)
    m, r, e = int(m), int(r), int(e)
    if r == 0 or e > -decimals - 2:          # exact (ties), or too coarse: the exact ends
        return None
    s = -(e + decimals)
    a, b = _units((m - r) * scale, s, mode), _units((m + r) * scale, s, mode)
    return R.Rounded(a, decimals) if a == b else None


