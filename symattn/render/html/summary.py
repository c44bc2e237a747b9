"""The top of the report: counts per example, wrong numbers grouped by cause (a root and the
numbers that follow from it), and the corrections an author applies line by line.

``ids`` maps ``id(record)`` to the element id of its mark, so every entry links to its place.
"""

from __future__ import annotations

import re

from markupsafe import Markup

from ..report import counted
from .marks import follows_line, VERDICTS
from .jinja import macros

_RESTATES = re.compile(r"restates the (?:wrong )?number printed at line (\d+)")

COUNTED = ("correct", "carried", "consistent", "wrong")


def counts(records) -> dict:
    c = {v: 0 for v in VERDICTS}
    for r in records:
        c[r.verdict if r.verdict in c else "wrong"] += 1
    return c


class Ids:
    """``ids`` (``id(record)`` -> element id) as templates index it: ``ids[record]``."""

    def __init__(self, ids: dict):
        self.ids = ids

    def __getitem__(self, record) -> str:
        return self.ids[id(record)]


def counts_rows(examples, anchors: dict, articles=()) -> list[dict]:
    """One row per example (printed numbers and each verdict), one per article with numbers
    no example explains (unmatched), then the total."""
    rows, total = [], {v: 0 for v in VERDICTS}
    for ex in examples:
        c = counts(ex.records)
        for v in VERDICTS:
            total[v] += c[v]
        rows.append({"name": ex.spec.id, "href": anchors[ex.spec.id], "source": ex.spec.source,
                     "n": len(ex.records), "counts": c, "total": False})
    n = sum(len(ex.records) for ex in examples)
    for k, a in enumerate(articles):
        if a.unmatched:
            total["unmatched"] += len(a.unmatched)
            n += len(a.unmatched)
            c = {v: (len(a.unmatched) if v == "unmatched" else "") for v in VERDICTS}
            rows.append({"name": "not explained", "href": f"article-{k}", "source": a.name,
                         "n": len(a.unmatched), "counts": c, "total": False})
    rows.append({"name": counted(len(examples), "example"),
                 "href": None, "source": "", "n": n, "counts": total, "total": True})
    return rows


def counts_table(examples, anchors: dict, articles=()) -> Markup:
    return macros("summary.html.j2").counts_table(counts_rows(examples, anchors, articles),
                                                  VERDICTS)


def causes(records, ids: dict, unverified: int = 0) -> Markup:
    """Wrong numbers grouped by root: each root with its diagnosis and what follows from it
    (and with none, no all-clear while ``unverified`` numbers got no verdict)."""
    wrong = [r for r in records if r.verdict == "wrong"]
    return macros("summary.html.j2").causes(len(wrong), cause_items(wrong), Ids(ids), unverified)


def cause_items(wrong: list) -> list[dict]:
    """``{root, diagnosis, followers}`` per first cause, then ``{example, line, followers}``
    for wrong numbers whose cause is not itself a wrong number shown."""
    roots = [r for r in wrong if cause_line(r) is None]
    up = {(r.example, r.line): cause_line(r) for r in wrong}
    followers: dict = {}
    for r in wrong:
        k = cause_line(r)
        if k is None:
            continue
        seen = {r.line}
        while up.get((r.example, k)) is not None and k not in seen:   # to the first cause
            seen.add(k)
            k = up[(r.example, k)]
        followers.setdefault((r.example, k), []).append(r)
    items, shown = [], set()
    for r in roots:
        key = (r.example, r.line)
        diag = "; ".join(r.diagnosis) if r.diagnosis else "no known mistake reproduces it"
        sub = [f for f in followers.get(key, []) if id(f) not in shown]
        if key in shown:
            sub = []
        shown.add(key)
        shown.update(id(f) for f in sub)
        items.append({"root": r, "diagnosis": diag, "followers": sub})
    for (ex, line), fs in followers.items():
        rest = [f for f in fs if id(f) not in shown]
        if rest:
            items.append({"root": None, "example": ex, "line": line, "followers": rest})
    return items


def cause_line(r) -> int | None:
    """The line of the earlier wrong number this one comes from: it follows from it
    (issue 11) or restates it."""
    k = follows_line(r)
    if k is not None:
        return k
    for d in getattr(r, "diagnosis", None) or []:
        m = _RESTATES.search(str(d))
        if m:
            return int(m.group(1))
    return None


def corrections(records, ids: dict) -> Markup:
    """Every wrong printed number, in article order: what to print instead."""
    return macros("summary.html.j2").corrections(wrong_in_order(records), Ids(ids))


def wrong_in_order(records) -> list:
    return sorted((r for r in records if r.verdict == "wrong"),
                  key=lambda r: (r.source, r.line, getattr(r, "column", None) or 0, r.example))
