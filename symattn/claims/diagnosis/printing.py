"""Mistakes in the printing: another rounding mode, a dropped minus, a digit slip or swap,
a one-term arithmetic slip in a product, a neighbouring cell's value, a row of weights adjusted to sum to 1, a number restated or
contradicting what was printed for the same entry earlier."""

from __future__ import annotations

from fractions import Fraction

from ..roles import is_probability
from ...evaluation import rounding as R
from ...tensor import NEG_INF


def _digits_of(x: Fraction, decimals: int) -> str:
    return R.format_units(R.round_units(x, decimals, "half-up"), decimals)


def digit_slip(expected: str, number, decimals: int) -> str | None:
    got = _digits_of(number.value, decimals) if number.value is not NEG_INF else ""
    a, b = expected.lstrip("-"), got.lstrip("-")
    if len(a) != len(b) or a == b or expected.startswith("-") != got.startswith("-"):
        return None
    diff = [k for k in range(len(a)) if a[k] != b[k]]
    last_place = abs(int(a.replace(".", "")) - int(b.replace(".", ""))) == 1
    if len(diff) == 1 and a[diff[0]].isdigit() and not last_place:
        return f"digit slip: {got} for {expected}"
    if len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]:
        return f"adjacent digits swapped: {got} for {expected}"
    return None


def float_rounding(checker, e, t) -> str | None:
    """A binary float printed in full (``2.3575999999999997`` for 2.3576, as Python prints
    ``sum(x) / n``): its last digits are the float arithmetic's rounding
    (:func:`~symattn.claims.printed.float_noise`), not a slip of the author's; the exact
    value is the one to print."""
    from ..printed import float_noise_of
    if e.number.value is NEG_INF or e.exact or \
            not float_noise_of(e.number.text, Fraction(e.value), checker.ev.ball(t, 128)[e.i][e.j]):
        return None
    return "binary floating-point rounding: the digits of a float64 result, not of the exact value"


def neighbour(checker, e, t) -> list[str]:
    """A neighbouring cell's value, judged as the printed number claims (a weight printed
    ``0`` or ``1`` claims exactly that, not a value rounded at 0 decimals)."""
    import dataclasses
    out = []
    m, n = t.shape
    for di, dj in ((0, -1), (0, 1), (-1, 0), (1, 0)):
        i, j = e.i + di, e.j + dj
        if 0 <= i < m and 0 <= j < n and checker.matches(t, dataclasses.replace(e, i=i, j=j)):
            out.append(f"the value of the neighbouring cell [{t.row_label(i)}, {t.col_label(j)}]")
    return out


def term_slip(checker, e, t) -> list[str]:
    """A one-entry arithmetic slip in a product (a projection x·W): the printed number is
    the entry Σ_k a[i,k]·b[k,j] with one term left out or with its sign flipped."""
    import dataclasses
    from ...ops import primitives as P
    if t.op != "matmul" or e.number.value is NEG_INF or e.exact:
        return []
    a, b = t.args
    cell, one = P.take(t, [e.i], [e.j]), dataclasses.replace(e, i=0, j=0)
    out = []
    for k in range(a.shape[1]):
        term = P.take(a, [e.i], [k]) * P.take(b, [k], [e.j])
        for how, v in (("left out", cell - term), ("with its sign flipped", cell - term * 2)):
            if checker.matches(v, one):
                out.append(f"arithmetic slip: the term {_cell(a, e.i, k, 'a')}·"
                           f"{_cell(b, k, e.j, 'b')} {how}")
    return out


def _cell(t, i: int, j: int, default: str) -> str:
    """An operand's entry by the name it has in the spec: a block of a weight (a head's
    columns of W_K) is named by the weight and the entry's place in it."""
    while t.name is None and t.op == "take":
        i, j, t = t.params["rows"][i], t.params["cols"][j], t.args[0]
    return f"{t.name or default}[{t.row_label(i)}, {t.col_label(j)}]"


def latest_in_row(checker, e) -> dict:
    """column -> the latest Entry printed for the other cells of e's row, up to e's line."""
    out = {}
    for (i, j), prints in checker.printed.get(e.claim.step, {}).items():
        if i == e.i and j != e.j:
            before = [p for p in prints if p.claim.line <= e.claim.line]
            if before:
                out[j] = max(before, key=lambda p: (p.claim.line, p.claim.index))
    return out


def sum_to_one(checker, e, t) -> list[str]:
    """The printed row of weights (this number and the latest printed others of its row)
    sums to exactly 1 while the correctly rounded entries do not: the last one was adjusted.
    When the correctly rounded row sums to 1 too, no adjustment explains a wrong entry."""
    if e.number.value is NEG_INF or e.j != t.shape[1] - 1 or t.shape[1] < 2 \
            or not is_probability(checker.spec, e.claim.step):
        return []
    others = latest_in_row(checker, e)
    if len(others) != t.shape[1] - 1 or any(o.value is NEG_INF for o in others.values()):
        return []
    if sum((o.value for o in others.values()), Fraction(0)) + e.value != 1:
        return []
    correct = Fraction(0)
    for o in [*others.values(), e]:
        r = checker.expected(t, o)
        if r is None:
            return []
        correct += r.value / o.scale
    return [] if correct == 1 else ["last entry adjusted so the printed row sums to exactly 1"]


def earlier(checker, e) -> list[str]:
    """The same entry printed earlier: restated (the same wrong number) or contradicted
    (a different number, right there: a stale number from another run)."""
    prints = checker.printed.get(e.claim.step, {}).get((e.i, e.j), [])
    before = [p for p in prints if p.claim.line < e.claim.line]
    t = checker.spec.tensors[e.claim.step]
    same = [p.claim.line for p in before if p.value == e.value and p.number.negative ==
            e.number.negative and not checker.matches(t, p)]      # the same wrong number again
    if same:
        return [f"restates the number printed at line {max(same)}"]
    right = [p for p in before if p.value is not NEG_INF and checker.matches(t, p)
             and _differs(e, p)]
    if right:
        p = max(right, key=lambda p: p.claim.line)
        return [f"contradicts {p.number.text} printed for the same entry at line {p.claim.line} "
                "(a number from another run?)"]
    return []


def _differs(e, p) -> bool:
    """Does e's printed number, cut to p's precision, differ from p's (a real contradiction,
    not the same value printed with more digits)?"""
    if e.number.value is NEG_INF or p.digits or e.number.percent != p.number.percent:
        return e.value != p.value
    units = R.round_units(e.number.value, p.decimals, p.mode)
    return Fraction(units, 10 ** p.decimals) != p.number.value


def printing_mistakes(checker, e, expected: R.Rounded, row_ok) -> list[str]:
    """Every printing mistake that reproduces the printed number; ``row_ok(t, mode)`` tells
    whether a variant leaves the rest of the printed row as printed."""
    t = checker.spec.tensors[e.claim.step]
    found = []
    for mode in R.MODES:
        if mode != e.mode and checker.matches(t, e, mode) and row_ok(t, mode):
            found.append(f"rounded with {mode} instead of {e.mode}")
    printed = e.number.value
    if printed == -expected.value and printed != 0:
        found.append("minus sign dropped" if printed > 0 else "minus sign added")
    if e.number.negative and printed == 0 and expected.value == 0:
        found.append("minus sign added (the value is positive)")
    noise = float_rounding(checker, e, t)
    if noise:
        found.append(noise)
    elif not e.digits:
        slip = digit_slip(str(expected), e.number, e.decimals)
        if slip:
            found.append(slip)
    slips = term_slip(checker, e, t)
    found += slips or neighbour(checker, e, t)     # a slip explains it: not a neighbour's value
    found += sum_to_one(checker, e, t)
    found += earlier(checker, e)
    return found
