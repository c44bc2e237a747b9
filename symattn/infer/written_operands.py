"""Where the numbers of arithmetic an article writes out come from (:mod:`.written_steps`):
each decimal the entry of the nearest block before it that prints it, or a result written
earlier, or the number as written; a dot product worked by hand as a row and a column of
earlier blocks; the lists a text prints its givens in. Nothing is evaluated here: operands
are spec-language texts (``Q[0, 1]``)."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from fractions import Fraction

from ..article.tokens import fold
from .blocks import Block
from .written import ARITHMETIC, NUMBER, Written
from .written_lists import entry_value, masked

_VECTOR = re.compile(r"\[([-+\d.,\s]*)\]")
_STATED = re.compile(r"\b(?:assum\w*|suppos\w*|let|say|given)\b(?P<left>[^=≈,;:(\d+*/×·^]*[^\W\d][^=≈,;:(\d+*/×·^]*)"
                     r"(?:=|≈)\s*(?P<x>-?\d+\.\d+)(?!\d|\.\d|\s*(?:[-+*/×·^]|\\cdot|\\times))", re.I)


def _listed(lines) -> dict:
    """The decimals the lines give: inside a bracketed vector (``[0.3, 0.6]``), or in prose
    a decimal assumed (``assuming a score for quickly ≈ 1.2``, ``let x = 0.5``), each
    with the first line it is printed on."""
    out: dict = {}
    for ln in lines:
        for m in _VECTOR.finditer(fold(ln.text)):
            for x in NUMBER.findall(m.group(1)):
                out.setdefault(x, ln.number)
        if getattr(ln, "kind", "text") == "text":      # prose: (assuming a score for quickly ≈ 1.2)
            for m in _STATED.finditer(fold(ln.text)):
                out.setdefault(m.group("x"), ln.number)
    return out


def _owner(x: str, before: list[Block], results=()) -> Block | None:
    """The nearest block before that prints the decimal ``x`` (a whole number: none, √2 of
    d_k = 2 is no entry); none where a written result (``results``: as printed) is ``x`` and
    the block prints it to other digits (0.280 of a result, not the given 0.28)."""
    if "." not in x:
        return None
    b = next((b for b in reversed(before) if _entry(b, x) is not None), None)
    return None if b is not None and x in results and not _at_digits(b, x) else b


def _whole_row(w: Written, before: list[Block]) -> tuple | None:
    """(block, row index) of the nearest block before whose row ``w``'s numbers are, in order,
    where they may be one (``w.row``: a sum beside its list, a softmax of a list), or None."""
    return _row_of(tuple(entry_value(x) for x in w.numbers), before) if w.row else None


def _owners(w: Written, before: list[Block], results=()) -> list[Block]:
    """The blocks whose entries the decimals of ``w`` print (the nearest for each; not for a
    decimal that a written result prints to more digits than the block: ``results``)."""
    got = _whole_row(w, before)
    if got is not None:                     # a sum beside its list, a softmax of a list: that row's
        return [got[0]]
    out = []
    rows = [_in_row(w, s, before) for s in range(len(w.numbers))]
    for b in (r[0] if r else _owner(x, before, results) for x, r in zip(w.numbers, rows)):
        out += [b] if b is not None and b not in out else []
    return out


def _forms(w: Written) -> list[Written]:
    """``w`` as each expression it is written equal to, the first first, then itself."""
    across = w.across or [()] * (len(w.earlier) + 1)
    return [replace(w, form=f, numbers=n, across=(a,)) for (f, n), a in zip(w.earlier, across)] + \
        [replace(w, across=(across[-1],))]


def _operands(w: Written, before: list[Block], results: dict, listed: dict | None = None
              ) -> tuple[tuple, list] | tuple[None, None]:
    """Each number's operand (its entry in the nearest block before that prints it, for a
    decimal: √2 of d_k = 2 is no entry; else an earlier written result it is, else the
    number), and the blocks taken, the nearest first; (None, None) for an expression with a
    decimal that no block, result or earlier vector (``listed``: number -> its first line;
    ``→ [0.3, 0.6]``, a given of the arithmetic) prints. For ``w.strict`` (an entry of lists
    worked together) a given does not count, nor a block's whole entry (0.0: any zero prints
    it)."""
    listed = listed or {}
    dot = _dot(w, before) if w.key == ARITHMETIC else None
    if dot is not None:
        return dot
    got = _whole_row(w, before)
    if got is not None:                       # a sum beside its list, a softmax of a list: that
        return tuple(f"{got[0].name}[{got[1]}, {k}]" for k in range(len(w.numbers))), [got[0]]   # row's
    if any(masked(x) for x in w.numbers):     # a −∞ is a mask's entry, of a printed row only
        return None, None
    operands, owners, loose = [], [], False
    for k, x in enumerate(w.numbers):
        row = _in_row(w, k, before)
        if row is not None:                   # [0.0+0.909, 0.1+0.141]: the row "is" of E, of P
            operands.append(f"{row[0].name}[{row[1]}, {w.place}]")
            owners += [row[0]] if row[0] not in owners else []
            continue
        owner = _owner(x, before, results)
        if owner is not None and w.strict and Fraction(x).denominator == 1:
            return None, None                 # 0.0 of lists worked together: any 0 prints it
        if owner is not None:
            i, j = _entry(owner, x)
            operands.append(f"{owner.name}[{i}, {j}]")
            owners += [owner] if owner not in owners else []
        else:                                 # a whole number as written (2 is no result; 32 of
            operands.append(results.get(x, x) if "." in x or len(x.lstrip("-")) > 1 else x)   # 1·4 + … is)
            loose |= "." in x and x not in results and not w.substituted and not _EPSILON.fullmatch(x) and \
                (w.strict or listed.get(x, w.line) >= w.line)
    if w.key == ARITHMETIC and loose:
        return None, None
    return tuple(operands), owners


_AT = re.compile(r"(.+)\[(\d+), (\d+)\]")
_EPSILON = re.compile(r"0\.00+1")            # 0.00001 of sqrt(2 + 0.00001): a constant, no result


def _of_rows(w: Written, operands: tuple, of_rows: dict) -> tuple | None:
    """(block index, ``[row, column]``) where ``w`` is an entry of rows worked together
    (every operand the same row of a block, at ``w``'s place) whose form over the blocks
    is a derived block's expression (``E[2, 1] + P[2, 1]`` of ``X = E + P``), else None."""
    at = [_AT.fullmatch(o) for o in operands]
    if w.place < 0 or not at or not all(at) or len({(m.group(2), m.group(3)) for m in at}) != 1 \
            or int(at[0].group(3)) != w.place:
        return None
    i = of_rows.get(w.form.format(*(m.group(1) for m in at)))
    return None if i is None else (i, f"[{at[0].group(2)}, {w.place}]")


def _softmax_row(w: Written, found: list, of_rows: dict) -> tuple | None:
    """(block index, ``[row, column]``) where ``w`` is an entry of ``softmax([…]) = […]``
    written on the numbers of a block's row (``softmax([2, 4, 4])``, row 0 of ``scores``)
    that a derived block is the softmax of (``softmax(scores)``): that block's entry, else
    None."""
    if not w.results or w.place < 0 or not w.form.startswith("exp({"):
        return None
    row = tuple(entry_value(x) for x in w.numbers)
    for b in found:
        i = of_rows.get(f"softmax({b.name})")
        hit = next((k for k, r in enumerate(b.printed.values) if tuple(r) == row), None) if i is not None else None
        if hit is not None:
            return i, f"[{hit}, {w.place}]"
    return None


def _in_row(w: Written, k: int, before: list[Block]) -> tuple | None:
    """(block, row) of the nearest block before whose row prints the numbers in place of
    ``w``'s ``k``-th across the entries of its vector equation (``w.across``), in order; None
    where there is none. A row of one number over and over (any row of it fits) only as the
    row another number's row is (``[0.2+0.141, 0.2+0.990]``: E's row 3 beside P's row 3)."""
    rows = _rows(w)
    if rows is None or rows[k] is None:
        return None
    if len(set(rows[k])) > 1:
        return _row_of(rows[k], before)
    others = {got[1] for j, r in enumerate(rows) if j != k and r is not None and len(set(r)) > 1
              for got in [_row_of(r, before)] if got is not None}
    return next(((b, i) for b in reversed(before) if b.shape[1] == len(rows[k])
                 for i, r in enumerate(b.printed.values) if tuple(r) == rows[k] and i in others), None)


def _rows(w: Written) -> list | None:
    """The numbers in place of each of ``w``'s across its vector equation (None for one
    that is not a number)."""
    if not w.across or not w.across[-1] or len(w.across[-1]) != len(w.numbers):
        return None
    out = []
    for texts in w.across[-1]:
        try:
            out.append(tuple(Fraction(x) for x in texts))
        except ValueError:
            out.append(None)
    return out


def _row_of(row: tuple, before: list[Block]) -> tuple | None:
    """(block, row index) of the nearest block before whose row prints ``row``, or None."""
    return next(((b, i) for b in reversed(before) if b.shape[1] == len(row)
                 for i, r in enumerate(b.printed.values) if tuple(r) == row), None)


def _at_digits(b: Block, x: str) -> bool:
    """Whether ``b``'s entry that prints the number ``x`` prints it to as many decimals."""
    i, j = _entry(b, x)
    return math.isclose(float(b.half[i, j]), 0.5 * 10.0 ** -len(x.partition(".")[2]))


_PRODUCTS = re.compile(r"(\( )?\{0\} \* \{1\}(?(1) \))(?: \+ (\( )?\{\d+\} \* \{\d+\}(?(2) \)))+")   # (a × b) + …


def _dot(w: Written, before: list[Block]) -> tuple[tuple, list] | None:
    """The operands of a dot product worked by hand (``0.6×0.5 + 0.4×0.2 + 1.0×0.7``, each
    product in parentheses or none) whose
    left factors are a row of an earlier block and right factors a column (or a row: a key)
    of one, the nearest first (for entry ``k`` of a vector equation, column ``k`` first:
    that of a row times a matrix): each factor that block's entry there, not the first entry
    anywhere that prints the same number. None when no such pair of blocks prints them."""
    if not _PRODUCTS.fullmatch(w.form):
        return None
    try:
        left = tuple(Fraction(x) for x in w.numbers[0::2])
        right = tuple(Fraction(x) for x in w.numbers[1::2])
    except ValueError:
        return None
    n = len(left)
    row, key = _row_of(left, before), _row_of(right, before)
    cols = [(j != w.place, b, f"{b.name}[{{}}, {j}]") for b in reversed(before) if b.shape[0] == n
            for j in range(b.shape[1]) if tuple(r[j] for r in b.printed.values) == right]
    cols += [(True, key[0], f"{key[0].name}[{key[1]}, {{}}]")] if key else []
    if row is None or not cols:
        return None
    (a, at_a), (_, b, at_b) = (row[0], f"{row[0].name}[{row[1]}, {{}}]"), min(cols, key=lambda c: c[0])
    operands = tuple(x for k in range(n) for x in (at_a.format(k), at_b.format(k)))
    return operands, [a] + ([b] if b is not a else [])


def _expr(w: Written, operands: tuple) -> str:
    return w.form.format(*(f"({o})" if o.startswith("-") else o for o in operands))


def _entry(b: Block, argument: str) -> tuple[int, int] | None:
    """The (row, column) of ``b``'s first entry printed as the number ``argument``."""
    return next(_places(b, argument), None)


def _places(b: Block, argument: str):
    """The (row, column) of each of ``b``'s entries printed as the number ``argument``."""
    x = entry_value(argument)
    return ((i, j) for i, row in enumerate(b.printed.values) for j, v in enumerate(row) if v == x)
