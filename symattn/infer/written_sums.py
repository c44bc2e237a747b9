"""Sums an article writes over results it wrote before or beside them (:mod:`.written`):
``sum = 5.4712`` under a column of results, ``[3.145, 2.489]  sum=5.634`` beside a row of
them, ``sum = 0.096 + 0.210 + ... + 0.086 = 61.404`` with an ellipsis under a column. Each
reader gives the numbers summed, as printed, and the result; nothing is evaluated here."""

from __future__ import annotations

import re

from .written_lists import NUM as _NUM, NUMS as _NUMS

_COLUMN_SUM = re.compile(rf"^\s*(?:sum|total|Σ)\s*[=:]\s*(?P<result>{_NUM})\s*$", re.I)


def column_sum(text: str, above: list) -> tuple | None:
    """``sum = 5.4712`` on a line of its own right under results written one a line
    (``e^0.1768 = 1.1934``, ``e^0.7778 = 2.1767``, each with its ``result`` as printed in
    ``above``): their sum."""
    m = _COLUMN_SUM.match(text)
    if m is None or len(above) < 2:
        return None
    return tuple(w.result for w in above), m.group("result")


_ROW_SUM = re.compile(rf"\[\s*({_NUMS})\s*\]\s*(?:[,;]|→|->)?\s*"
                      rf"(?:sum|total)\s*[=:]\s*(?P<result>{_NUM})(?![\d.])", re.I)


def row_sums(text: str) -> list[tuple]:
    """A list's sum written beside it (``exp: [3.145, 2.489, 1.562]  sum=7.196``,
    ``[1.053, 1.071] → sum = 2.124``): ``3.145 + 2.489 + 1.562 = 7.196``."""
    out = []
    for m in _ROW_SUM.finditer(text):
        numbers = tuple(x.strip() for x in m.group(1).split(","))
        if not any("." in x for x in numbers + (m.group("result"),)):
            continue                         # whole numbers: as :func:`.written._sums` reads none
        out.append((numbers, m.group("result")))
    return out


ELIDED = 3                  # results written one a line, at least, that a sum with an ellipsis sums
_DOTS = r"(?:\.\.\.|…|⋯|\\[lc]?dots)"
_ELIDED_SUM = re.compile(rf"(?<![\w.])(?P<terms>{_NUM}(?:\s*\+\s*(?:{_NUM}|{_DOTS}))+)\s*=\s*(?P<result>{_NUM})\s*$")


def elided_sum(text: str, run: list) -> tuple | None:
    """``sum = 0.096 + 0.210 + ... + 42.521 + ... + 0.086 = 61.404`` under results written
    one a line (``run``): the sum of them all, when the terms written are its first ones,
    its last one and, between the ellipses, some of the rest in order."""
    m = _ELIDED_SUM.search(text)
    if m is None or not re.search(_DOTS, m.group("terms")) or not run:
        return None
    terms = [t.strip() for t in m.group("terms").split("+")]
    results = [w.result for w in run]
    head = terms[:next(k for k, t in enumerate(terms) if re.fullmatch(_DOTS, t))]
    if len(results) <= sum(not re.fullmatch(_DOTS, t) for t in terms) or results[:len(head)] != head \
            or terms[-1] != results[-1]:
        return None
    at = len(head)
    for t in terms[len(head):-1]:                  # the ones between the ellipses, in order
        if not re.fullmatch(_DOTS, t):
            at = next((k for k in range(at, len(results) - 1) if results[k] == t), -1) + 1
            if at == 0:
                return None
    return tuple(results), m.group("result")
