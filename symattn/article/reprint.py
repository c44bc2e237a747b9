r"""A corrected value printed the way the article prints the number it replaces.

The value is the record's ``expected`` (the correct print ``symattn check`` reports and
``symattn latex --corrections`` and the report's corrections show: its digits are the
precision as printed); only the *form* comes from the article: its minus sign (``-``,
``−``, ``－``), a ``+``, full-width digits, a thousands separator, a leading ``.``, torch's
trailing ``1.``, the percent suffix (``%``, `` %``, ``\%``, ``％``) and scientific notation
(``6.3379e-02``, ``1.2E+03``, ``1.2 \times 10^{-3}``) with the article's exponent width.

>>> reprint("−0.46", "-0.47"), reprint("58.7 %", "58.9"), reprint("6.3379e-02", "0.063380")
('−0.47', '58.9 %', '6.3380e-02')
>>> reprint(r"1.2 \times 10^{-3}", "0.0013"), reprint("0.5", "-0.4", minus="−")
('1.3 \\times 10^{-3}', '−0.4')
"""

from __future__ import annotations

import re
from fractions import Fraction

from ..errors import SymattnError
from ..numbers import parse_exact

_WIDE = str.maketrans({str(k): chr(0xFF10 + k) for k in range(10)} | {".": "．"})
_FORM = re.compile(r"""
    (?P<sign>[-+−－＋])?
    (?P<mant>[\d０-９,，.．]+)
    (?P<exp> [eE](?P<esign>[-+−]?)(?P<edigits>\d+)
      | (?P<times>\s*(?:\\times|\\cdot|×|·)\s*10\s*\^\s*)(?P<open>\{\s*)?(?P<tsign>[-+−]?)(?P<tdigits>\d+)(?P<close>\s*\})? )?
    (?P<pct>\s*(?:\\%|%|％))?
""", re.X)


class Unprintable(SymattnError):
    """The replacement cannot be written in the article's form (the number is left as it is)."""


def reprint(original: str, expected: str, minus: str = "-") -> str:
    """``expected`` (a decimal text, ``-0.47``) in the form of ``original`` (the number's text
    in the article); ``minus`` is the sign for a number the article printed without one."""
    m = _FORM.fullmatch(original.strip())
    if not m or expected in ("-inf", "finite"):
        raise Unprintable(f"cannot print {expected!r} in the form of {original!r}")
    value = parse_exact(expected)
    body = _scientific(m, expected, value) if m.group("exp") else _fixed(m, expected)
    if m.group("mant")[0] in "０１２３４５６７８９":
        body = body.translate(_WIDE)
    sign = m.group("sign") or ""
    if value < 0 or expected.startswith("-"):
        sign = sign if sign in ("-", "−", "－") else minus
    elif sign not in ("+", "＋"):
        sign = ""
    return sign + body + (m.group("pct") or "")


def _fixed(m: re.Match, expected: str) -> str:
    """The digits of ``expected`` as the article writes a decimal."""
    mant = m.group("mant")
    text = expected.lstrip("-")
    if "e" in text or "E" in text:            # format_units' form for many zeros: no decimal form
        raise Unprintable(f"{expected!r} has no short decimal form")
    whole, point, frac = text.partition(".")
    if "," in mant or "，" in mant:
        whole = f"{int(whole):,}".replace(",", "，" if "，" in mant else ",")
    if mant.startswith((".", "．")) and whole == "0" and point:
        whole = ""
    if mant.endswith((".", "．")) and not point:  # torch prints 1. for 1
        point = "."
    return whole + point + frac


def _scientific(m: re.Match, expected: str, value: Fraction) -> str:
    """``value`` with the mantissa digits of the article's number and its exponent form."""
    from ..evaluation.rounding import floor_log10
    mant = m.group("mant").replace(",", "").replace("，", "")
    digits = len(mant.replace(".", "").replace("．", "").lstrip("0")) or 1
    exp = floor_log10(value) if value else 0
    scaled = abs(value) / Fraction(10) ** exp
    units = scaled * 10 ** (digits - 1)
    if units.denominator != 1:
        raise Unprintable(f"{expected!r} has more than {digits} significant digits")
    u = str(units.numerator)
    body = u[0] + ("." + u[1:] if digits > 1 else ("." if "." in mant else ""))
    if m.group("edigits") is not None:
        e, esign, width = m.group("exp")[0], m.group("esign"), len(m.group("edigits"))
        neg = "−" if esign == "−" else "-"
        s = neg if exp < 0 else ("+" if esign == "+" else "")
        return f"{body}{e}{s}{abs(exp):0{width}d}"
    tsign = m.group("tsign")
    s = ("−" if tsign == "−" else "-") if exp < 0 else ("+" if tsign == "+" else "")
    power = f"{s}{abs(exp)}"
    opened = m.group("open")
    if opened or len(power) > 1:
        return f"{body}{m.group('times')}{opened or '{'}{power}{m.group('close') or '}'}"
    return f"{body}{m.group('times')}{power}"
