"""Vector equations written out (:mod:`.written`): ``… = [r₁, r₂]`` whose sides are written
over lists as long as its result, read entry by entry (``[0.9929/1.9929, 1.0/1.9929] ≈
[0.498, 0.502]``, ``0.4×[0.3, 0.2] = [0.12, 0.08]``, lists added), and the numbers of a list
that the arithmetic readers share."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

from ..article.tokens import NEG_INF_PRINTED
from ..tensor import NEG_INF

NUM = r"-?\d+(?:\.\d+)?"
NUMS = rf"{NUM}(?:\s*,\s*{NUM})+"      # the numbers of a list, two or more: ``0.3, 0.6``
MASKED = NEG_INF_PRINTED.pattern          # a mask's −∞ written in a list: ``[0.5, -∞, -∞]``
ENTRIES = rf"(?:{NUM}|{MASKED})(?:\s*,\s*(?:{NUM}|{MASKED}))+"     # a list that may hold them
GOES_ON = re.compile(r"\s*(?:[-+*/×·^%\d]|\\cdot|\\times)")         # the result is not the end

_RESULTS = re.compile(rf"(?:=|≈|\\approx)\s*\[\s*({NUMS})\s*\](?![\d.])")
_LIST = re.compile(r"\[([^\[\]]*)\]")
_BY = re.compile(r"\d\s*$")                    # a number right before a list: it multiplies it
_SIDES = re.compile(r"=|≈|\\approx|:")          # where a side of an equation starts


def elementwise(text: str, since: int = 0) -> list[tuple[str, bool, int]]:
    """``e₁ = r₁`` for each entry of a vector equation ``… = [r₁, r₂]`` (its result at
    ``since`` or after) whose left side is written over lists as long as its result: the
    entries worked side by side (``[0.9929/1.9929, 1.0/1.9929] ≈ [0.498, 0.502]``), a number
    times a list (``0.4×[0.3, 0.2] = [0.12, 0.08]``: ``0.4×0.3 = 0.12``), lists added
    (``[1.000, 1.500] + [0.959, 0.679] = [1.959, 2.179]``); each list's entry put in its
    place, and the sides written before it so too, the first first (``= 0.38×[2, 1] +
    0.23×[1, 2]`` then ``= [0.76+0.23, 0.38+0.46] = [0.99, 0.84]``: ``0.38×2 + 0.23×1 =
    0.76+0.23 = 0.99``). With each: whether a side is more than one list (then its numbers
    must be prints of the example's, not givens: ``0.5 * [2, 8, 0]`` of a weight rounded in
    a list before is no arithmetic to judge as written), and which entry it is."""
    out = []
    for m in _RESULTS.finditer(text, since):
        if GOES_ON.match(text, m.end()):
            continue                         # ``= [0.42, 0] + [0, 0.32]``: a term, not the result
        right = [r.strip() for r in m.group(1).split(",")]
        sides = _sides(text[:m.start()], len(right))
        if not sides:
            continue
        for k, r in enumerate(right):
            entries = [_entry_of(side, lists, k) for side, lists in sides]
            out.append((" = ".join(entries + [r]),
                        any(side.strip() != lists[0].group(0) for side, lists in sides), k))
    return out


def across(entries: list) -> list:
    """The entries of one vector equation, each with the rows its numbers stand in (the
    first numbers of ``[0.0+0.909, 0.1+0.141]`` are the row 0.0, 0.1: an embedding), where
    every entry is written in the same forms."""
    shape = {(w.key, w.form, len(w.numbers), tuple((f, len(n)) for f, n in w.earlier)) for w in entries}
    if len(entries) < 2 or len(shape) != 1 or [w.place for w in entries] != list(range(len(entries))):
        return entries
    forms = [[n for _, n in w.earlier] + [w.numbers] for w in entries]
    across = tuple(tuple(zip(*(f[i] for f in forms))) for i in range(len(forms[0])))
    return [replace(w, across=across) for w in entries]


def _sides(left: str, n: int) -> list[tuple[str, list]]:
    """The sides of an equation before its result (``left``) written over lists of ``n``
    entries, each with its lists, the first first: back to the first side that is not."""
    seps = list(_SIDES.finditer(left))
    bounds = zip([0] + [c.end() for c in seps], [c.start() for c in seps] + [len(left)])
    out = []
    for a, b in reversed(list(bounds)):
        lists = list(_LIST.finditer(left[a:b]))
        if not lists or any(len(_entries(x.group(1))) != n for x in lists) or \
                any(not left[a:b][x.end():y.start()].strip() for x, y in zip(lists, lists[1:])):
            break                            # ``[a, b]   [c, d]``: two matrices' rows side by side
        out.insert(0, (left[a:b], lists))
    return out


def _entry_of(side: str, lists: list, k: int) -> str:
    """``side`` with each of its ``lists`` replaced by its ``k``-th entry (a number written
    right before a list times it: ``0.9442 [1, -1]``)."""
    entry, at = "", 0
    for x in lists:
        e = _entries(x.group(1))[k]
        before = side[at:x.start()]
        before = before.rstrip() + " * " if _BY.search(before) else before   # 0.9442 [1, -1]: a product
        entry += before + (f"({e})" if e.startswith("-") and len(lists) > 1 else e)
        at = x.end()
    return (entry + side[at:]).strip()


def _entries(text: str) -> list[str]:
    """The entries of a list's text, split at its commas outside parentheses."""
    out, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += (ch in "({") - (ch in ")}")
        if ch == "," and depth == 0:
            out.append(text[start:k].strip())
            start = k + 1
    return out + [text[start:].strip()]


def masked(x: str) -> bool:
    """Is the list's entry ``x`` a mask's −∞ as written (``-∞``, ``-\\infty``, ``-inf``)?"""
    return NEG_INF_PRINTED.fullmatch(x) is not None


def entry_value(x: str):
    """A list's entry as written: its exact value, or −∞ (:data:`symattn.tensor.NEG_INF`)."""
    return NEG_INF if masked(x) else Fraction(x)
