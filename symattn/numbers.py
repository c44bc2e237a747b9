"""Exact numbers from text: the whitelist number parser.

Every number that enters symattn from a spec, an article or the command line passes
through :func:`parse_exact`. It accepts decimal and fraction text only and returns a
``Fraction``; nothing is ever evaluated.

>>> parse_exact("0.1")
Fraction(1, 10)
>>> parse_exact("−1.2e-3")
Fraction(-3, 2500)
>>> parse_exact("1/3")
Fraction(1, 3)
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from numbers import Rational

from .errors import InputError, LimitError

MAX_DIGITS = 1000          # digits in one number's text
MAX_EXPONENT = 1000        # |e| in 1.5e-3
MAX_NUMBER_BITS = 100_000  # numerator or denominator of one exact number computed (any command)

_MINUSES = "\u2212\u2012\u2013\ufe63\uff0d"
SHOWN = 60                 # characters of input text an error message quotes
_DECIMAL = re.compile(r"([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?")
_FRACTION = re.compile(r"([+-]?)(\d+)\s*/\s*(\d+)")


def normalize_minus(text: str) -> str:
    """Replace the Unicode minus signs articles print with ASCII ``-``."""
    for m in _MINUSES:
        text = text.replace(m, "-")
    return text


def shown(text, limit: int = SHOWN) -> str:
    """Input text as an error message quotes it: on one line, control characters escaped,
    long text cut to ``limit`` characters (error messages stay one short line)."""
    text = str(text)
    cut = len(text) > limit
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[:limit])
    return text + "…" if cut else text


def parse_exact(text: str) -> Fraction:
    """Parse decimal (``-1.25e-3``) or fraction (``1/3``) text into an exact Fraction."""
    if not isinstance(text, str):
        raise InputError(f"expected number text, got {type(text).__name__}")
    s = normalize_minus(text.strip())
    if len(s) > MAX_DIGITS + 16:
        raise LimitError(f"number text of {len(s)} characters is longer than {MAX_DIGITS} digits",
                         hint="split it or raise symattn.numbers.MAX_DIGITS on purpose")
    m = _FRACTION.fullmatch(s)
    if m:
        sign, num, den = m.groups()
        if int(den) == 0:
            raise InputError(f"'{shown(text)}' divides by zero")
        value = Fraction(int(num), int(den))
        return -value if sign == "-" else value
    m = _DECIMAL.fullmatch(s)
    if not m:
        raise InputError(f"'{shown(text)}' is not a number",
                         hint="write a decimal such as 0.25 or -1.2e-3, or a fraction such as 1/3")
    sign, digits, exponent = m.groups()
    exp = int(exponent) if exponent else 0
    if abs(exp) > MAX_EXPONENT:
        raise LimitError(f"'{shown(text)}' has exponent {exp}, beyond ±{MAX_EXPONENT}",
                         hint="raise symattn.numbers.MAX_EXPONENT on purpose")
    value = Fraction(Decimal(digits)) * (Fraction(10) ** exp)
    return -value if sign == "-" else value


def exact(value) -> object:
    """One exact scalar from user input: Fraction, or a SymPy object passed through.

    Binary floats are refused: their value is not the decimal the user typed.
    """
    if isinstance(value, bool):
        raise InputError(f"{value!r} is a boolean, not a number")
    if isinstance(value, int):
        if value.bit_length() > 3 * MAX_DIGITS and abs(value) >= 10 ** MAX_DIGITS:
            raise LimitError(f"a whole number of more than {MAX_DIGITS} digits",
                             hint="raise symattn.numbers.MAX_DIGITS on purpose")
        return Fraction(value)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InputError(f"{value} is not a finite number")
        return parse_exact(str(value))           # the same digit and exponent limits as text
    if isinstance(value, str):
        return parse_exact(value)
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        raise InputError(f"the binary float {value!r} is not exact",
                         hint=f"pass the decimal string '{value!r}' instead")
    if isinstance(value, Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    sympy_basic = _sympy_basic()
    if sympy_basic is not None and isinstance(value, sympy_basic):
        if value.is_Rational:
            return Fraction(int(value.p), int(value.q))
        if value.is_Float:
            raise InputError(f"the SymPy Float {value} is not exact",
                             hint="use sympy.Rational or a decimal string")
        return value
    raise InputError(f"{shown(repr(value))} ({type(value).__name__}) is not an exact number",
                     hint="use a decimal string, an int, a Fraction or a SymPy number or symbol")


def check_bits(numerator: int, denominator: int = 1) -> None:
    """Refuse an exact number whose numerator or denominator has more than
    :data:`MAX_NUMBER_BITS` bits: the one guard on the growth of exact numbers (powers,
    products, chains of squarings), in the expression builder and in the exact context of
    every command, so that no number is computed that cannot then be written out."""
    bits = max(abs(numerator).bit_length(), denominator.bit_length())
    if bits > MAX_NUMBER_BITS:
        raise LimitError(f"a number of {bits} bits, more than {MAX_NUMBER_BITS}",
                         hint="raise symattn.numbers.MAX_NUMBER_BITS on purpose")


def check_power_bits(bits: int, k) -> None:
    """Refuse x**k before it is computed when x has ``bits`` bits and the result would
    pass :data:`MAX_NUMBER_BITS` (the size of a power is known from its exponent)."""
    import math
    size = math.ceil(max(bits, 1) * abs(k))
    if size > MAX_NUMBER_BITS:
        raise LimitError(f"a power of about {size} bits, more than {MAX_NUMBER_BITS}",
                         hint="raise symattn.numbers.MAX_NUMBER_BITS on purpose")


def max_written_digits() -> int:
    """Digits of the largest whole number symattn computes (:data:`MAX_NUMBER_BITS` bits):
    the interpreter's limit on integer-string conversion while a command runs."""
    import math
    return math.ceil(MAX_NUMBER_BITS * math.log10(2)) + 1


class conversion_limit:
    """While a command runs, Python's limit on integer-string conversion
    (``sys.set_int_max_str_digits``, 4,300 digits by default) is :func:`max_written_digits`:
    every number the exact path may compute can be written, and a larger one (a whole number
    of 50,000 digits in a notebook's JSON) is the one-line error of :func:`too_many_digits`."""

    def __enter__(self):
        import sys
        self.old = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else None
        if self.old is not None:
            sys.set_int_max_str_digits(max(max_written_digits(), 640))
        return self

    def __exit__(self, *exc):
        import sys
        if self.old is not None:
            sys.set_int_max_str_digits(self.old)
        return False


def too_many_digits(e: BaseException) -> str | None:
    """The one-line message for the interpreter's refusal to convert a whole number of more
    digits than its limit between text and ``int`` (a ``ValueError`` from ``int()``,
    ``str()``, ``json``), or None for any other error."""
    if not (isinstance(e, ValueError) and "integer string conversion" in str(e)):
        return None
    limit = re.search(r"\((\d+) digits\)", str(e))
    return (f"a whole number of more than {limit.group(1) if limit else 'the allowed'} digits "
            "cannot be read or written; "
            "raise symattn.numbers.MAX_NUMBER_BITS on purpose")


def _sympy_basic():
    import sys
    mod = sys.modules.get("sympy")
    return mod.Basic if mod is not None else None


# -- many numbers at once ------------------------------------------------------------------

CHUNK = 1 << 20            # entries read at once (bounds the temporary arrays)


def parse_exact_array(texts):
    """A matrix of number text read at once: a ``Scaled`` (integers with one power of ten,
    or one each) when every entry is plain ASCII decimal text of at most 18 digits, else
    rows of Fractions. ``texts``: a 2-D NumPy array of ``str``, or rows of ``str``.

    This is :func:`parse_exact` for a matrix, not a second grammar: a vectorised pass only
    *recognises* the entries that are plainly ``[+-]digits[.digits][e[+-]digits]`` (the
    pattern ``_DECIMAL`` without Unicode digits, spaces or minus signs, within the limits)
    and reads their digits; every other entry, and every error, is :func:`parse_exact`'s.
    """
    import numpy as np
    from .scaled import Scaled, common_exponent, INT64_DIGITS
    a = texts if isinstance(texts, np.ndarray) else text_array(texts)
    if a.dtype.kind not in "UO" or a.ndim != 2:
        raise InputError("parse_exact_array takes a 2-D array of text")
    flat = a.ravel()
    if flat.dtype.kind == "O" or flat.dtype.itemsize == 0:
        ok = np.zeros(flat.shape, dtype=bool)
        num = exp = np.zeros(flat.shape, dtype=np.int64)
    else:
        parts = [_plain(flat[k:k + CHUNK]) for k in range(0, flat.size, CHUNK)]
        ok, num, exp = (np.concatenate(p) for p in zip(*parts))
    if ok.all():
        num, exp = common_exponent(num, exp, _decimal_digits, INT64_DIGITS, 10)
        return Scaled(num.reshape(a.shape), 10,
                      exp if isinstance(exp, int) else exp.reshape(a.shape))
    values = [Fraction(n, 10 ** -e) if e < 0 else Fraction(n * 10 ** e)
              for n, e in zip(num.tolist(), exp.tolist())]
    for k in np.flatnonzero(~ok).tolist():
        values[k] = parse_exact(str(flat[k]))
    n = a.shape[1]
    return tuple(tuple(values[i:i + n]) for i in range(0, len(values), n))


def text_array(rows):
    """A NumPy ``str`` array of rows of ``str``. NumPy drops a string's trailing NUL
    characters, which :func:`parse_exact` refuses, so such text is kept as objects."""
    import numpy as np
    if any("\x00" in "".join(r) for r in rows):
        return np.array(rows, dtype=object)
    return np.array(rows, dtype=str)


_POW10 = [10 ** k for k in range(19)]


def _decimal_digits(n):
    """Decimal digits of each |n| (below 10^18), counted exactly in integers."""
    import numpy as np
    return np.searchsorted(np.array(_POW10, dtype=np.int64), np.abs(n.astype(np.int64)),
                           side="right")


def _plain(s):
    """(ok, numerator, exponent) of each entry of a 1-D ``str`` array: ok where the text is
    plain ASCII decimal text, its value numerator · 10^exponent. One pass over the
    characters' columns, each a vector operation over all entries."""
    import numpy as np
    from .scaled import INT64_DIGITS
    n, w = s.size, s.dtype.itemsize // 4
    c = s.view(np.uint32).reshape(n, w)
    false = np.zeros(n, dtype=bool)
    ok, ended, seen_e, after_dot, last_e, neg, xneg = (false.copy() for _ in range(7))
    ok[:] = True
    num, x = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    nm, nx, frac = (np.zeros(n, dtype=np.int32) for _ in range(3))
    for j in range(w):
        ch = c[:, j]
        d = ch.astype(np.int64) - 48
        isd = (d >= 0) & (d <= 9)
        end = ch == 0
        ok &= ~(ended & ~end)                # a NUL inside the text (NumPy keeps those)
        ended |= end
        m, xd = isd & ~seen_e, isd & seen_e
        num = np.where(m, num * 10 + d, num)
        nm += m
        frac += m & after_dot
        x = np.where(xd, x * 10 + d, x)
        nx += xd
        dot = ch == 46
        ok &= ~(dot & (seen_e | after_dot))
        after_dot |= dot
        e = (ch == 101) | (ch == 69)
        ok &= ~(e & seen_e)
        sign = (ch == 43) | (ch == 45)
        ok &= ~sign | (j == 0) | last_e
        if j == 0:
            neg = ch == 45
        xneg |= last_e & (ch == 45)
        ok &= isd | dot | e | sign | end
        seen_e |= e
        last_e = e
    ok &= (nm >= 1) & (nm <= INT64_DIGITS) & (~seen_e | ((nx >= 1) & (nx <= 4)))
    x = np.where(xneg, -x, x)
    ok &= np.abs(x) <= MAX_EXPONENT
    num = np.where(neg, -num, num)
    return ok, np.where(ok, num, 0), np.where(ok, x - frac, 0)
