"""The numbers an article prints, as it prints them, each at its line and column.

Reads decimals and integers, a Unicode or full-width minus, full-width digits, ``%``/``％``/
``\\%``, scientific notation (``6.3379e-02``, ``1.2 \\times 10^{-3}``), thousands separators
(``357,911``), the torch/NumPy print forms (``1.``, ``-0.``, ``1.0000e+00``) and a number
in the exponent of ``e`` (``e^{0.8188}``). Not numbers of the computation, and skipped:
digits inside a word or an identifier (``W_1``, ``x2``, ``#245b97``), subscripts and
other superscripts (``d_{k}``, ``x^2``), list and heading numbers (``1.`` at the start
of a line, ``Step 4``, ``第5章``).

>>> line = Line(7, "softmax = [0.1688, 0.2472] ≈ −1.2e-3 and e^{0.8188}")
>>> [(n.printed, n.column, n.exponent) for n in numbers_in(line)]
[('0.1688', 12, False), ('0.2472', 20, False), ('-1.2e-3', 30, False), ('0.8188', 45, True)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from .source import Line
from ..numbers import parse_exact

# One character for one: columns survive the normalisation.
_FOLD = str.maketrans({**{chr(0xFF10 + k): str(k) for k in range(10)},
                       "−": "-", "－": "-", "＋": "+", "．": ".", "，": ",", "％": "%",
                       "\u2009": " ", "\u00a0": " ", "\u3000": " "})

_NUMBER = re.compile(r"""
    (?<![A-Za-z_\d.\#])                    # not inside a word, an identifier or a colour
    (?P<sign>[-+])?
    (?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,]) | \d+\.\d+ | \d+\.(?![\d.]) | \.\d+ | \d+)
    (?: (?P<e>[eE][-+]?\d+)
      | \s*(?:\\times|\\cdot|×|·)\s*10\s*\^\s*(?:\{\s*(?P<e2>[-+]?\d+)\s*\}|(?P<e3>[-+]?\d)) )?
    (?P<pct>\s*(?:\\%|%))?
    (?![A-Za-z_\d])
""", re.X)

_SIGN_AFTER = set("([{,=&|:;<>~≈≒\\ \t/*×·÷+") | {"", "\n"}
_LIST_MARK = re.compile(r"\s*(?:[-*+]\s+)?\d+[.)]\s")
_HEADING = re.compile(r"(?:step|chapter|section|fig(?:ure)?|table|eq|ex(?:ample)?|exercise|"
                      r"part|lesson|ch|no|#|§|第|図|表|式|例|問|章|節)\.?\s*$", re.I)


@dataclass
class Number:
    """One printed number. ``printed`` is its text in the form claims are written in
    (``-1.2e-3``, ``58.7%``); ``start``/``end`` index the reader's line text."""
    text: str
    printed: str
    value: Fraction
    line: int
    column: int
    start: int
    end: int
    kind: str
    exponent: bool = False          # the exponent of e: prints an operand
    integer: bool = False


def fold(text: str) -> str:
    """Full-width digits and signs, minus signs and odd spaces as ASCII, same length."""
    return text.translate(_FOLD)


def numbers_in(line: Line) -> list[Number]:
    """The numbers printed on one line, left to right."""
    s = fold(line.text)
    out = []
    for m in _NUMBER.finditer(s):
        n = _number(line, s, m)
        if n is not None:
            out.append(n)
    return out


def _number(line: Line, s: str, m: re.Match) -> Number | None:
    start = m.start()
    sign = m.group("sign") or ""
    if sign and s[start - 1:start].strip() not in _SIGN_AFTER and start > 0 \
            and s[start - 1] not in _SIGN_AFTER:
        start += 1                              # 3-4: a subtraction, not a sign
        sign = ""
    before = s[:start]
    exponent = _in_exponent(before)
    if exponent is None or _is_label(before, m, s):
        return None
    digits = m.group("digits")
    e = m.group("e") or ""
    e2 = m.group("e2") or m.group("e3")
    if e2 is not None:
        e = f"e{e2}"
    pct = "%" if m.group("pct") else ""
    plain = digits.replace(",", "").removesuffix(".")     # torch's "1." is the integer 1
    printed = f"{'-' if sign == '-' else ''}{plain}{e}{pct}"
    try:
        value = parse_exact(printed.rstrip("%"))
    except Exception:                           # noqa: BLE001 - a huge exponent: not a claim
        return None
    return Number(line.text[start:m.end()].strip(), printed, value, line.number,
                  line.column(start), start, m.end(), line.kind, exponent,
                  integer="." not in digits and not e)


def _in_exponent(before: str) -> bool | None:
    """True in the exponent of e (an operand), None in another sub- or superscript."""
    t = before.rstrip().removesuffix("{").rstrip()
    if t.endswith("_"):
        return None
    if t.endswith("^"):
        return _e_base(t[:-1])
    inner = re.search(r"([_^])\{[^{}]*$", before)
    if inner:
        return _e_base(before[:inner.start()]) if inner.group(1) == "^" else None
    return False


def _e_base(base: str) -> bool | None:
    base = base.rstrip()
    return True if base.endswith("e") or base.endswith("\\exp") else None


def _is_label(before: str, m: re.Match, s: str) -> bool:
    """A list marker, or the number of a step, section or figure: not a claim."""
    digits = m.group("digits")
    if m.group("e") or m.group("e2") or m.group("e3") or m.group("pct"):
        return False
    if not before.strip() and (digits.endswith(".") or s[m.end():m.end() + 1] == ")") \
            and s[m.end():m.end() + 1] in (" ", ")", ""):
        return True
    if before.rstrip().endswith(("§", "Section", "section", "Sec.", "Eq.", "Fig.")):
        return True                              # §3.5: a section, whatever its digits
    return "." not in digits.rstrip(".") and bool(_HEADING.search(before[-12:]))
