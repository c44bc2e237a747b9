"""The values of a spec's fields, checked: text, exact numbers, matrices, labels, keys,
LaTeX names and the rounded-input keys. Each problem is a SpecError at its line."""

from __future__ import annotations

import unicodedata

from .functions import check_entries
from ..errors import SymattnError, SpecError
from ..numbers import parse_exact, normalize_minus, shown, exact
from ..tensor import NEG_INF

# Text a report or a message shows must not move the cursor, colour the terminal or
# reorder what follows: control characters and bidirectional overrides are refused.
BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


class DecimalText(str):
    """A TOML float kept as its text."""


def text_field(v, where: str, what: str, multiline: bool = False) -> str:
    """A string of the spec that a message or a report shows: no control characters."""
    if not isinstance(v, str):
        raise SpecError(f"{what} must be text", where=where)
    bad = next((c for c in v if (unicodedata.category(c) == "Cc" and not (multiline and c in "\n\t"))
                or c in BIDI), None)
    if bad is not None:
        raise SpecError(f"{what} '{shown(v)}' contains the control character {bad!r}", where=where,
                        hint="labels and names are printed text")
    return v


def number(v, where: str):
    if isinstance(v, bool):
        raise SpecError(f"{v!r} is not a number", where=where)
    if isinstance(v, int):
        try:
            return exact(v)                       # the digit limit of every number
        except SymattnError as e:
            raise e.located(where) from None
    if isinstance(v, str):
        t = normalize_minus(v.strip())
        if t in ("-inf", "-∞"):
            return NEG_INF
        if isinstance(v, DecimalText) and t.lstrip("+-") in ("inf", "nan"):
            raise SpecError(f"'{v}' is not a finite number", where=where,
                            hint="write −∞ as the string \"-inf\" in a mask")
        try:
            return parse_exact(t)
        except SymattnError as e:
            raise e.located(where) from None
    raise SpecError(f"{shown(repr(v))} is not a number", where=where)


def matrix(v, where: str) -> list:
    if not isinstance(v, list):
        return [[number(v, where)]]
    if not v:
        raise SpecError("an empty matrix", where=where)
    if not isinstance(v[0], list):
        check_size(1, len(v), where)
        return [[number(x, where) for x in v]]
    check_size(len(v), len(v[0]), where)
    rows = []
    for i, r in enumerate(v):
        if not isinstance(r, list):
            raise SpecError(f"row {i} is not a list", where=where)
        if len(r) != len(v[0]):
            raise SpecError(f"ragged matrix: row 0 has {len(v[0])} entries, row {i} has {len(r)}",
                            where=where)
        rows.append([number(x, where) for x in r])
    return rows


def check_size(m: int, n: int, where: str):
    """The size limit, before thousands of numbers are read."""
    try:
        check_entries(m, n)
    except SymattnError as e:
        raise e.located(where) from None


def labels(v, tokens, where, what):
    if v is None:
        return None
    if v == "tokens":
        if not tokens:
            raise SpecError(f"{what} = \"tokens\" but [example] has no tokens", where=where)
        return tokens
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise SpecError(f"{what} must be a list of labels (strings) or \"tokens\"", where=where)
    return tuple(text_field(x, where, "a label") for x in v)


def aliases(v, where: str) -> tuple:
    """A step's ``aliases``: the other names an article writes for it (``["A", "α"]``)."""
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and 0 < len(x) <= 60 for x in v):
        raise SpecError("aliases must be a list of names (text, at most 60 characters each)",
                        where=where, hint='aliases = ["A", "attn_weights"]')
    return tuple(text_field(x, where, "an alias") for x in v)


def check_keys(d: dict, allowed: set, where: str, what: str):
    extra = set(d) - allowed
    if extra:
        raise SpecError(f"unknown key{'s' if len(extra) > 1 else ''} in {what}: "
                        f"{shown(', '.join(sorted(extra)))}", where=where,
                        hint=f"allowed: {', '.join(sorted(allowed))}")


def int_field(v, where, what, lo=0, hi=10_000):
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise SpecError(f"{what} must be a whole number from {lo} to {hi}", where=where)
    return v


def latex_field(v, where: str) -> str:
    """A ``latex = "\\sigma^2"`` key: LaTeX for a name, from a small safe vocabulary."""
    from ..render.latex_values import check_symbol_latex
    if not isinstance(v, str):
        raise SpecError("latex must be text such as \"\\\\sigma^2\"", where=where)
    problem = check_symbol_latex(v)
    if problem:
        raise SpecError(f"latex {shown(repr(v))}: {problem}", where=where,
                        hint="letters, digits, _ ^ { } ' and commands such as \\sigma, "
                             "\\mathbf, \\hat, \\text")
    return v


def printout_of(d: dict, where: str):
    """The ``rounded``/``decimals`` keys of an input table: None, "printed" or a number."""
    rounded, decimals = d.get("rounded"), d.get("decimals")
    if rounded is not None and not isinstance(rounded, bool):
        raise SpecError("rounded must be true or false", where=where,
                        hint="rounded = true: the entries are printouts rounded at their decimals")
    if decimals is not None:
        if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 1000:
            raise SpecError("decimals must be a whole number from 0 to 1000", where=where)
        if rounded is False:
            raise SpecError("decimals with rounded = false", where=where,
                            hint="decimals = k declares the entries rounded at k places")
        return decimals
    return "printed" if rounded else None


def entry_printouts(raw, entries: list, printout) -> list:
    """Each entry of a printout input as the :class:`~symattn.claims.printed.PrintedNumber`
    it was printed as (its precision and sign; None: an exact entry such as −∞); with
    ``decimals = k`` declared, at k places."""
    import dataclasses
    from ..claims.printed import parse_number, PrintedNumber
    if not isinstance(raw, list):
        raw = [raw]
    if raw and not isinstance(raw[0], list):
        raw = [raw]
    out = []
    for raw_row, row in zip(raw, entries):
        r = []
        for x, v in zip(raw_row, row):
            if v is NEG_INF:
                r.append(None)
                continue
            try:
                num = parse_number(str(x))
            except SymattnError:
                num = None if not isinstance(printout, int) else PrintedNumber(str(x), v, printout)
            if num is not None and isinstance(printout, int):
                num = dataclasses.replace(num, decimals=printout, digits=None)
            r.append(num)
        out.append(r)
    return out
