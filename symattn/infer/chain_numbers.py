"""Which printed numbers a chain's steps print (:mod:`.chains`).

The numbers of a block's part of the article (:func:`printed_numbers`: decimals only, a
whole number or a 0 is no evidence) form its window; each step's non-zero entries are
matched to them in order, step after step or row after row (:func:`match_steps`), each
within its print's rounding plus what the operands' rounding moves it, and within
:data:`GAP` numbers of the last one explained: the text works on, it does not jump back. A
step that explains fewer than :data:`MOST` of its entries gives them back (:func:`few`); a
one-number step between two shown ones takes the nearest number there, a wrong print of it
(:func:`near_print`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from .blocks import Block

MOST = 3 / 4               # share of a step's non-zero entries printed
GAP = 48                   # a step's numbers begin this many numbers after the last one explained


@dataclass
class WindowNumber:
    """A decimal printed in a block's part: its value, half a unit of its last digit, its line."""
    value: float
    half: float
    line: int

    @property
    def telling(self) -> bool:
        """Two significant digits or more (0.25, 1.5; not 0.3): a print that few values
        share by chance."""
        return bool(self.value) and abs(self.value) >= 20 * self.half

    def prints(self, x: float, spread: float = 0.0) -> bool:
        """Does it print ``x`` (within its rounding, plus ``spread``: what the operands'
        rounding moves ``x``)? A tie is no evidence."""
        return abs(self.value - x) < self.half * (1 - 1e-9) + spread


def printed_numbers(lines) -> list[WindowNumber]:
    from ..article.tokens import numbers_in
    from ..claims.printed import float_print, float_slack
    out = []
    for ln in lines:
        for n in numbers_in(ln):
            if n.neg_inf or n.exponent:
                continue
            d = len(n.printed.split("e")[0].partition(".")[2]) if "e" not in n.printed else None
            if not d or n.value == 0:     # a printed 0, a whole number: no evidence (too common)
                continue
            half = 0.5 * 10.0 ** -d
            if float_print(n.printed):     # a binary float's repr: its last digits are rounding noise
                half = max(half, float_slack(float(n.value)))
            out.append(WindowNumber(float(n.value), half, n.line))
    return out


@dataclass
class Step:
    """One step of a chain as tried: its expression with every earlier step written out
    (``text``), its value, the later block that prints it (or None), its entries that can
    be evidence, (row, value, how far the operands' rounding moves it), and the window's
    numbers it explains (``picked``)."""
    key: str
    template: str
    text: str
    value: np.ndarray
    block: Block | None
    entries: list
    picked: list
    partial: list = field(default_factory=list)   # the numbers of a step that explains too few


def match_steps(steps: list, window: list, starts: dict, by_rows: bool) -> set:
    """Match each step's entries to the window's numbers (``picked``), step after step or
    row after row; a step that explains too few of its entries gives them back."""
    taken: set = set()
    last = -1                                # the window's last number explained so far
    for st in steps:
        st.picked, st.partial = [], []
    rows = max((st.value.shape[0] for st in steps), default=0)
    order = [(st, None) for st in steps] if not by_rows else \
        [(st, i) for i in range(rows) for st in steps]
    by_key = {st.key: st for st in steps}
    for st, row in order:
        if st.block is not None:
            last = starts[st.block.index] - 1 if row is None else last
            continue
        carry = _carried(st, by_key, window)
        entries = [(i, x, e + carry) for i, x, e in st.entries if row is None or i == row]
        picks = _pick(entries, window, taken, last)
        st.picked += picks
        taken.update(picks)
        if row is None and few(st, window):
            taken -= set(st.picked)
            st.picked, st.partial = [], st.picked
        last = max(taken, default=last)
    for st in steps:
        if st.block is None and st.picked and few(st, window):
            taken -= set(st.picked)
            st.picked, st.partial = [], st.picked
    return taken


_AGGREGATE = re.compile(r"(sum|mean)\(\{(\w+)\}\)")


def _carried(st: Step, by_key: dict, window: list) -> float:
    """How far a sum (a mean) of an earlier step's printed entries may be from the exact
    one: the text adds the numbers it printed (``2.718 + 2.718 + 7.389 = 12.825``), each
    off by up to half a unit of its last digit."""
    m = _AGGREGATE.fullmatch(st.template)
    term = by_key.get(m.group(2)) if m else None
    if term is None or not term.picked:
        return 0.0
    half = max(window[k].half for k in term.picked)
    return half * (term.value.shape[1] if m.group(1) == "sum" else 1)


def few(st: Step, window: list) -> bool:
    """Does a step explain less than :data:`MOST` of its entries? A whole entry (e^0 = 1)
    counts only when a number prints it (a whole number printed is no evidence)."""
    whole = sum(1 for _, x, _ in st.entries if x == round(x))
    matched_whole = sum(1 for k in st.picked if window[k].value == round(window[k].value))
    return len(st.picked) < MOST * (len(st.entries) - whole + matched_whole) or not st.picked


NEAR = 0.05                # a wrong print of a one-number step between two shown ones: this close


def line_of(st: Step, window: list) -> int:
    return st.block.line if st.block is not None else max(window[k].line for k in st.picked)


def near_print(st: Step, window: list, taken: set, first: int, last: int) -> list:
    """The number printed between two shown steps' lines that a one-number step (a
    variance, a sum) between them is nearest, within :data:`NEAR` of its value: its print,
    wrong (``var = … = 1.4852`` for 1.4825); the check judges it, no evidence."""
    if len(st.entries) != 1:
        return []
    x = st.entries[0][1]
    fits = [k for k, n in enumerate(window) if k not in taken and first <= n.line <= last
            and abs(n.value - x) <= NEAR * abs(x)]
    return sorted(fits, key=lambda k: abs(window[k].value - x))[:1]


def _pick(entries: list, window: list, taken: set, last: int) -> list:
    """The window's numbers (indices, none ``taken``) that print ``entries`` (row, value,
    spread): each within the print's rounding plus the spread, and within :data:`GAP`
    numbers of the last one explained (``last`` before these), the first after it where one
    is (the text works on: 1.22 printed after the mean, not its operand 1.2 restated before)."""
    picked: list = []
    for _, x, e in entries:
        after = max(picked + [last])
        fits = [i for i, n in enumerate(window[:after + GAP]) if i not in taken and i not in picked
                and n.prints(x, e)]
        k = next((i for i in fits if i > after), fits[0] if fits else None)
        if k is not None:
            picked.append(k)
    return picked
