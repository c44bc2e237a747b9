"""Printed numbers as articles print them: the parser for a claim's ``printed`` text.

Accepts a number, a vector ``[0.92, 1.24]`` or a matrix ``[[1, 0], [0.5, 1]]`` (rows may
also be separated by ``;``), with ``≈``, Unicode minus, ``%``/``％``, a thousands
separator in a lone number (``357,911``) and ``−∞``. The printed digits define the
precision: ``0.8188`` has 4 decimals, ``58.7%`` has 1 (of percent), ``1.34e3`` has 3
significant digits.

>>> p = parse_printed("≈ [0.1688, 0.2472]")
>>> [(x.text, x.value, x.decimals) for x in p.entries]
[('0.1688', Fraction(211, 1250), 4), ('0.2472', Fraction(309, 1250), 4)]
"""

from __future__ import annotations

import re
from fractions import Fraction
from dataclasses import dataclass

from ..errors import ParseError, LimitError
from ..numbers import normalize_minus, parse_exact, shown
from ..tensor import NEG_INF

MAX_PRINTED = 20_000
_NUM = re.compile(r"[+-]?(\d+(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?")
_THOUSANDS = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_FRACTION = re.compile(r"[+-]?\d+/\d+")
_APPROX = ("≈", "~", "≒", "\\approx")
ROUND_ZEROS = 3                # trailing zeros of a whole number after ≈ that are no digits of it
FRACTION_DECIMALS = 6          # how a fraction's expected value is shown (it is checked exactly)


@dataclass(frozen=True)
class PrintedNumber:
    text: str                  # the entry exactly as printed
    value: object              # Fraction, or NEG_INF
    decimals: int              # places after the point, in the printed unit
    percent: bool = False
    digits: int | None = None  # significant digits, for scientific notation (1.34e3: 3) and ≈ 39000 (2)
    negative: bool = False     # printed with a minus sign (also -0.0)
    point: bool = False        # printed with a decimal point or exponent (0.0, 1e3), not 0
    fraction: bool = False     # 1/3: exactly this rational, not a rounding
    approximate: bool = False  # ≈ 1 (or the block it stands in, ≈ [1, 0]): rounded, not exact

    @property
    def integer(self) -> bool:
        """Printed as a whole number without point or exponent (``1``, ``0``, ``-3``)."""
        return not self.point and not self.percent and not self.fraction and self.value is not NEG_INF


@dataclass(frozen=True)
class Printed:
    entries: tuple             # PrintedNumber, row-major
    shape: tuple               # (rows, cols); a lone number is (1, 1); a vector (1, n)
    vector: bool = False


def parse_number(text: str, approximate: bool = False) -> PrintedNumber:
    """One printed number; ``approximate``: it stands in a block printed after ``≈``."""
    raw = text.strip()
    s = normalize_minus(raw)
    for mark in _APPROX:                      # "≈ 0.5": a mark in front, never inside a number
        if s.startswith(mark):
            s, approximate = s.removeprefix(mark).strip(), True
    if s in ("-∞", "-inf", "-infinity"):
        return PrintedNumber(raw, NEG_INF, 0)
    f = _FRACTION.fullmatch(s)
    if f:                                     # 1/3: the rational itself
        return PrintedNumber(raw, _exact(s, raw), FRACTION_DECIMALS, negative=s.startswith("-"),
                             fraction=True, approximate=approximate)
    percent = s.endswith("%") or s.endswith("％")
    if percent:
        s = s[:-1].strip()
    if _THOUSANDS.fullmatch(s):
        s = s.replace(",", "")
    m = _NUM.fullmatch(s)
    if not m:
        raise ParseError(f"'{shown(raw)}' is not a printed number",
                         hint="print numbers like 0.8188, −0.5, 58.7% or [0.92, 1.24]")
    frac = m.group(2) if m.group(2) is not None else (m.group(3) or "")
    exp = int(m.group(4)) if m.group(4) else 0
    value = _exact(s, raw)
    digits = None
    if m.group(4):                                 # 1.34e3: 3 significant digits
        mant = (m.group(1).split(".")[0] + frac).lstrip("0")
        digits = max(len(mant), 1)
    elif approximate and "." not in m.group(1) and not percent:
        whole = m.group(1).lstrip("0")             # ≈ 39,000: its zeros only place the 39
        if len(whole) - len(whole.rstrip("0")) >= ROUND_ZEROS:
            digits = len(whole.rstrip("0"))
    return PrintedNumber(raw, value, max(len(frac) - exp, 0), percent, digits,
                         s.startswith("-"), m.group(1) != m.group(1).split(".")[0] or bool(m.group(4)),
                         approximate=approximate)


def _split_top(s: str, seps: str) -> list[str]:
    out, depth, cur = [], 0, []
    for ch in s:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ParseError("unbalanced ']'")
        if ch in seps and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise ParseError("unbalanced '['")
    out.append("".join(cur))
    return out


def parse_printed(text: str) -> Printed:
    """Parse a claim's printed text into entries and a shape."""
    if not isinstance(text, str):
        raise ParseError("printed must be text")
    if len(text) > MAX_PRINTED:
        raise LimitError(f"printed text of {len(text)} characters is longer than {MAX_PRINTED}",
                         hint="split the claim or raise symattn.claims.printed.MAX_PRINTED on purpose")
    s = text.strip()
    approx = False
    for prefix in ("=",) + _APPROX:
        if s.startswith(prefix):
            s, approx = s.removeprefix(prefix).strip(), approx or prefix != "="
    if not s.startswith("["):
        return Printed((parse_number(s, approx),), (1, 1))
    if not s.endswith("]"):
        raise ParseError(f"'{shown(text)}': a printed vector ends with ']'")
    inner = s[1:-1].strip()
    if not inner:
        raise ParseError("an empty printed vector")
    if inner.startswith("["):
        rows = [r.strip() for r in _split_top(inner, ",")]
        parsed = []
        for r in rows:
            if not (r.startswith("[") and r.endswith("]")):
                raise ParseError(f"'{shown(text)}': mixed rows and numbers")
            parsed.append([parse_number(x, approx) for x in _split_top(r[1:-1], ",")])
    elif ";" in inner:
        parsed = [[parse_number(x, approx) for x in _split_top(r, ",")] for r in _split_top(inner, ";")]
    else:
        parts = _split_top(inner, ",")
        if any("[" in p for p in parts):
            raise ParseError(f"'{shown(text)}': nested brackets inside a vector")
        return Printed(tuple(parse_number(x, approx) for x in parts), (1, len(parts)), vector=True)
    width = len(parsed[0])
    for i, r in enumerate(parsed):
        if len(r) != width:
            raise ParseError(f"'{shown(text)}': row {i} has {len(r)} entries, row 0 has {width}")
    return Printed(tuple(x for r in parsed for x in r), (len(parsed), width))


FLOAT_DIGITS = 15           # a print of this many significant digits or more: a binary float's repr
FLOAT_BITS = 40             # the bits of 53 that a short float64 computation keeps at least


def float_print(text: str) -> bool:
    """Is ``text`` a binary float printed in full (``2.3575999999999997``, Python's repr of
    ``sum(x) / n``: 15 significant digits or more)? Its last digits are the float
    arithmetic's rounding."""
    mantissa = text.strip().lstrip("+-−").lower().split("e")[0].replace(".", "")
    return mantissa.isdigit() and len(mantissa.lstrip("0")) >= FLOAT_DIGITS


def float_slack(x):
    """How far float64 arithmetic may carry a value ``x``: the last bits of 53 beyond
    :data:`FLOAT_BITS` (a difference of means, a root); a Fraction or a float, as ``x``."""
    return abs(x) / 2 ** FLOAT_BITS


def float_noise(printed: Fraction, exact: Fraction, slack: Fraction = Fraction(0)) -> bool:
    """Does ``printed`` differ from a non-zero ``exact`` (± ``slack``) by float64 rounding only
    (:func:`float_slack`)? Agreement to 12 significant digits is no coincidence."""
    return exact != 0 and abs(printed - exact) <= float_slack(exact) + slack


FLOAT32_TINY = Fraction(1, 2 ** 126)       # float32's smallest normal number
FLOAT32_STEP = Fraction(1, 2 ** 149)       # the spacing of its subnormal numbers


def float32_underflow(value: Fraction, ball) -> bool:
    """Is ``value`` (a print) within one subnormal spacing of the ball's value (a ``flint.arb``
    entry), which lies below float32's normal range? There float32 holds multiples of
    2⁻¹⁴⁹ only (``1.5414e-44`` for 1.5518e-44, ``0.0000e+00`` for 7.1e-51): a program that
    computes in float32 (PyTorch's default) prints such a number, and no print can say
    more than that."""
    if ball is NEG_INF or not ball.is_finite():
        return False
    exact = Fraction(ball.mid().str(40, radius=False))
    return abs(exact) < FLOAT32_TINY and abs(value - exact) <= FLOAT32_STEP


def float_noise_of(text: str, value: Fraction, ball) -> bool:
    """Is ``text`` (of ``value``) a binary float printed in full whose value is the ball's
    (a ``flint.arb`` entry, or ``NEG_INF``) but for float64 rounding, and not the ball's
    exact value? The one test of the matcher (placing it) and of the diagnosis (naming it)."""
    if ball is NEG_INF or not float_print(text) or not ball.is_finite():
        return False
    exact = Fraction(ball.mid().str(40, radius=False))
    return value != exact and float_noise(value, exact, Fraction(ball.rad().str(5, radius=False)))


def last_place(number: PrintedNumber):
    """The value of one unit in the last printed place, in the printed unit: ``0.8188`` →
    10⁻⁴, ``1.5e3`` (2 significant digits) → 100, ``0`` → 1. The one rule for the precision a
    printed number claims, for a claim's number and for an input declared a printout."""
    from fractions import Fraction
    from ..evaluation.rounding import floor_log10
    if number.digits and number.value:
        return Fraction(10) ** (floor_log10(number.value) - number.digits + 1)
    return Fraction(1, 10 ** number.decimals)


def rounding_interval(number: PrintedNumber, mode: str, unit=None) -> tuple:
    """The closed interval ``(lo, hi)`` of the values that print as ``number`` when rounded
    with ``mode`` at ``unit`` (default :func:`last_place`); ``mode=None``: whatever the mode.
    A zero printed with its sign (``-0.0``) stands for values on its side of 0 only."""
    p = number.value
    u = last_place(number) if unit is None else unit
    if mode == "truncate":                 # toward zero: |x| in [|p|, |p| + u)
        lo, hi = (p, p + u) if p > 0 else (p - u, p) if p < 0 else (-u, u)
    elif mode is None:
        lo, hi = p - u, p + u
    else:
        lo, hi = p - u / 2, p + u / 2
    if p == 0 and number.negative:
        hi = min(hi, 0)
    return lo, hi


def _exact(s: str, raw: str):
    """The exact value of the number text ``s`` (``raw`` as printed, for the message)."""
    try:
        return parse_exact(s)
    except LimitError:
        raise
    except Exception:
        raise ParseError(f"'{shown(raw)}' is not a printed number") from None
