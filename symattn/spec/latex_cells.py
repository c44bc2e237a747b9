"""One LaTeX matrix cell as an exact number (:func:`cell_value`): a decimal (``-0.3``,
``−0.3``, ``.5``, ``1.2e-3``, ``1.2 \\times 10^{-3}``, ``1{,}000``), a fraction
(``\\frac{1}{3}``, ``\\tfrac12``, ``1/3``) or ``-\\infty``, optionally wrapped in ``{}``,
``\\mathbf{}``, ``\\text{}``, a colour and the like, spacing (``\\,``, ``\\phantom{-}``)
dropped. Nothing is evaluated: every number goes through :func:`symattn.numbers.parse_exact`.
The matrices around the cells are :mod:`.latex_import`'s.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

from ..errors import LimitError, ParseError
from ..numbers import normalize_minus, parse_exact
from ..tensor import NEG_INF

SPACING = re.compile(r"\\[,;:! ]|\\q?quad\b|~|\\(?:hline|midrule|toprule|bottomrule|hdashline)\b"
                     r"|\\[hv]?phantom\{[^{}]*\}")          # \phantom{-}1.0: room for a sign, no sign
_DECIMAL = r"(?:\d+(?:\.\d*)?|\.\d+)"
_FRAC = re.compile(r"\\[dt]?frac\s*(\{[^{}]*\}|\d)\s*(\{[^{}]*\}|\d)")
_SCI = re.compile(rf"(?:({_DECIMAL})\s*(?:\\times|\\cdot)\s*)?10\s*\^\s*(\{{[+-]?\d+\}}|\d)")   # 10^9 alone: a mask's fill


class NotANumber(ParseError):
    """A cell that is not a number (a symbol, a formula): its matrix is skipped, not fatal."""


_WRAPPED = re.compile(r"(?:\\(?:mathbf|boldsymbol|bm|mathrm|mathit|text|textbf|textrm|mathsf|"
                      r"underline))?\s*\{(.*)\}", re.S)


_TEXTCOLOR = re.compile(r"\\textcolor\s*(?:\[[^\]]*\])?\s*\{[^{}]*\}\s*\{(.*)\}", re.S)
_COLOR = re.compile(r"\\color\s*(?:\[[^\]]*\])?\s*\{[^{}]*\}")


def _unwrap(s: str) -> str:
    """Spacing commands dropped; an outer ``{x}``, ``\\mathbf{x}``, ``\\text{x}`` unwrapped."""
    s = SPACING.sub(" ", s).replace(r"\left", "").replace(r"\right", "")
    s = re.sub(r"\\(?:displaystyle|textstyle)\b", "", s)
    s = _COLOR.sub("", s)
    while True:
        s = s.strip()
        m = _TEXTCOLOR.fullmatch(s) or _WRAPPED.fullmatch(s)
        if not m or not _balanced(m.group(1)):
            return s
        s = m.group(1)


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += ch == "{"
        depth -= ch == "}"
        if depth < 0:
            return False
    return depth == 0


def _number(s: str) -> Fraction:
    s = s.strip()
    if s.startswith("{") and s.endswith("}"):
        s = s[1:-1].strip()
    s = s.replace("{,}", "") if re.fullmatch(r"[+-]?\d{1,3}(\{,\}\d{3})+(\.\d+)?", s) else s
    return parse_exact(s)


MAX_BRACE_DEPTH = 64


def cell_value(cell: str) -> tuple[object, str]:
    """One cell's exact value (Fraction or NEG_INF) and its TOML text."""
    depth = deepest = 0
    for ch in cell:
        if ch == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == "}":
            depth -= 1
    if deepest > MAX_BRACE_DEPTH:
        raise LimitError(f"braces nested {deepest} deep in a cell (limit {MAX_BRACE_DEPTH})",
                         hint="raise symattn.spec.latex_cells.MAX_BRACE_DEPTH on purpose")
    raw = " ".join(cell.split())
    s = normalize_minus(_unwrap(cell))
    if not s:
        raise ParseError("an empty cell", hint="write 0 for zero")
    sign = 1
    body = s
    if body[0] in "+-":
        sign = -1 if body[0] == "-" else 1
        body = body[1:].strip()
        body = _unwrap(body)
        if body.startswith("-") or body.startswith("+"):
            raise ParseError(f"'{raw}' has two signs")
    if body in (r"\infty", r"\infin", "∞"):
        if sign > 0:
            raise ParseError("+∞ cannot be an input; a mask entry is -\\infty")
        return NEG_INF, '"-inf"'
    m = _FRAC.fullmatch(body)
    if m:
        a, b = (_number(g) for g in m.groups())
        if b == 0:
            raise ParseError(f"'{raw}' divides by zero")
        return _exact_text(sign * a / b, fraction=True)
    m = _SCI.fullmatch(body)
    if m:
        mant, exp = m.group(1) or "1", m.group(2).strip("{}")
        v = parse_exact(f"{mant}e{exp}")
        return _exact_text(sign * v, text=("-" if sign < 0 else "") + f"{_toml_decimal(mant)}e{int(exp)}")
    if re.fullmatch(rf"{_DECIMAL}(?:[eE][+-]?\d+)?", body):
        v = parse_exact(body)
        return _exact_text(sign * v, text=("-" if sign < 0 and v != 0 else "") + _toml_decimal(body))
    if re.fullmatch(r"\d+\s*/\s*\d+", body):
        v = parse_exact(body)
        return _exact_text(sign * v, fraction=True)
    if re.fullmatch(r"\d{1,3}(\{,\}\d{3})+(\.\d+)?", body):
        v = _number(body)
        return _exact_text(sign * v)
    raise NotANumber(f"'{raw}' is not a number",
                     hint="cells are decimals, \\frac{a}{b}, a/b, 10^k or -\\infty")


def _toml_decimal(s: str) -> str:
    """A decimal as TOML accepts it: ``.5`` → ``0.5``, ``2.`` → ``2.0``, ``007`` → ``7``."""
    s = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in s)   # ١.٥ → 1.5
    mant, _, exp = s.lower().partition("e")
    if mant.startswith("."):
        mant = "0" + mant
    if mant.endswith("."):
        mant += "0"
    ip, dot, fp = mant.partition(".")
    ip = ip.lstrip("0") or "0"
    mant = ip + (dot + fp if dot else "")
    if exp:
        if not dot:
            mant += ".0"
        return f"{mant}e{int(exp)}"
    return mant


def _exact_text(v: Fraction, text: str | None = None, fraction: bool = False):
    if fraction:
        if v.denominator == 1:
            return v, str(v.numerator)
        return v, f'"{v.numerator}/{v.denominator}"'
    return v, text if text is not None else (str(v) if v.denominator == 1 else f'"{v}"')
