"""Arithmetic written out on numbers, read into the spec language: ``1 / 1.732``,
``(0.5 + 1.2) × 2``, ``\\frac{12.182}{16.721}``, ``0.01 × 0.707``, ``e^{0.5} / 2.5``.

A small reader, as einops reads its patterns: the text right before an ``=`` or ``≈`` is
cut into tokens (numbers, ``+ - × · * / ÷``, parentheses, ``\\frac{…}{…}``, ``e^``, ``exp``,
``sqrt``/``√``, ``sin``, ``cos``, ``²``, ``^``; ``(1.0)(0.2)`` a product), the longest tail of
them that is one expression is kept, and it is
written as a spec-language template over its numbers (``{0} / {1}``). Nothing is evaluated
here: the template goes through :func:`symattn.spec.expr.parse` like any spec's.
"""

from __future__ import annotations

import re

from ..errors import SymattnError
from ..spec import expr as E

_TOKEN = re.compile(r"\s*(\d+(?:\.\d+)?|\\frac\s*\{|\}\s*\{|\\left\s*\(|\\right\s*\)|\\times|\\cdot|\\div|"
                    r"\\sqrt\s*\{|\\exp|e\s*\^|exp|sqrt|\\?sin|\\?cos|√|²|\^\s*\{?\s*2\s*\}?(?![\d./])|\^|"
                    r"[-+*/×·÷(){}])")
_SPEC = {"×": "*", "·": "*", "\\times": "*", "\\cdot": "*", "÷": "/", "\\div": "/", "²": " ** 2",
         "{": "(", "}": ")", "exp": "exp", "\\exp": "exp", "sqrt": "sqrt", "√": "sqrt", "^": "**",
         "sin": "sin", "\\sin": "sin", "cos": "cos", "\\cos": "cos"}
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_CALLS = "exp|sqrt|sin|cos"                 # the functions of the spec language it writes
_BEFORE_SIGN = {"(", "{", "*", "/", "×", "·", "÷", "\\times", "\\cdot", "\\div", "+", "-"}
MAX_TOKENS = 60             # a longer run before an equals sign is no hand-worked arithmetic


def tokens_before(text: str) -> list[tuple[str, int]]:
    """The tokens of the arithmetic that ends ``text`` (each with its start), the last run
    of them with nothing else between."""
    out, at = [], 0
    for m in _TOKEN.finditer(text):
        if m.start() != at:                          # something else between: a new run
            out = []
        out.append((m.group(1), m.start(1)))
        at = m.end()
    return out[-MAX_TOKENS:] if at == len(text.rstrip()) and text[at:].strip() == "" else []


def template(tokens: list[str]) -> tuple[str, tuple[str, ...]] | None:
    """(spec template over ``{0}``, ``{1}``…, the numbers as written) of the tokens, or None
    when they are no one expression with an operation."""
    out, numbers, sign = [], [], ""
    tokens = [re.sub(r"\s+", "", t) for t in tokens]
    for k, t in enumerate(tokens):
        if t == "(" and k and (tokens[k - 1] == ")" or _NUMBER.fullmatch(tokens[k - 1])):
            out.append("*")                          # (1.0)(0.2), 0.2181(0.1): a product
        if t == "-" and k + 1 < len(tokens) and _NUMBER.fullmatch(tokens[k + 1]) and \
                (k == 0 or tokens[k - 1] in _BEFORE_SIGN or tokens[k - 1] == "e^"):
            sign = "-"                               # (-1.414): a negative number, as printed
        elif _NUMBER.fullmatch(t):
            out.append(f"{{{len(numbers)}}}")
            numbers.append(sign + t)
            sign = ""
        elif t.startswith("\\frac"):
            out.append("(")
        elif t == "}{":
            out.append(") / (")
        elif t.startswith("\\left"):
            out.append("(")
        elif t.startswith("\\right"):
            out.append(")")
        elif t.startswith("\\sqrt"):
            out.append("sqrt(")
        elif t.startswith("e^"):
            out.append("exp ")
        elif t.startswith("^") and t != "^":
            out.append(" ** 2")
        else:
            out.append(_SPEC.get(t, t))
    text = " ".join(out).replace("{", "{{").replace("}", "}}")
    text = re.sub(r"\{\{(\d+)\}\}", r"{\1}", text)
    return _closed(text, tuple(numbers))


def _closed(text: str, numbers: tuple) -> tuple[str, tuple] | None:
    """The template with ``exp``/``sqrt`` of a bare number called, if it parses; else None."""
    text = re.sub(rf"({_CALLS})\s+(\{{\d+\}})", r"\1(\2)", text)
    text = re.sub(rf"({_CALLS})\s*\(", r"\1(", text)
    if text.count("(") != text.count(")") or not re.search(rf"[-+*/]|{_CALLS}", text) or \
            re.search(rf"(?:{_CALLS})(?!\()", text):
        return None                                  # ``e^ - x``: a function called on nothing
    try:
        E.parse(text.format(*("1" for _ in numbers)))
    except (SymattnError, IndexError, KeyError, ValueError):
        return None
    return " ".join(text.split()), numbers


def expression(text: str) -> tuple[str, tuple[str, ...], int] | None:
    """The longest arithmetic that ends ``text``: (template, numbers, where it starts), or None."""
    toks = tokens_before(text)
    for k in range(len(toks)):
        if toks[k][0] in ("*", "/", "×", "·", "÷", "+", ")", "}") or toks[k][0].startswith("}"):
            continue                                 # no expression starts with these
        t = template([x for x, _ in toks[k:]])
        if t is not None:
            return t[0], t[1], toks[k][1]
    return None
