"""What a click on a marked number shows: exact value, expected print, verdict, diagnosis,
and the step's LaTeX with the numbers substituted (as MathML, from a shared template).

Each is an inert ``<template id="{rid}-d">``; the page script copies it into the panel.
"""

from __future__ import annotations

from pathlib import Path

from markupsafe import Markup

from .marks import follows_line
from .jinja import macros

MEANING = {
    "correct": "the exact value rounds to the printed number",
    "carried": "what the article's own rounded numbers give when carried forward",
    "consistent": "reached with inputs inside their printed rounding intervals",
    "wrong": "neither correct nor carried",
    "unmatched": "no step of the spec gives this number",
}


def record_detail(rid: str, r, math_ref: str | None) -> Markup:
    """The detail template of one record; ``math_ref`` is the id of its step's MathML."""
    rows = [("printed", r.printed), ("exact", r.exact), ("expected print", r.expected)]
    if getattr(r, "tie", False):
        rows.append(("note", "an exact tie, rounded by the example's mode"))
    follows = follows_line(r)
    head = r.verdict + (f" (follows from line {follows})" if follows is not None else "")
    line = getattr(r, "spec_line", 0)               # 0: found in the article, not written in the spec
    where = (f"{Path(r.spec).name}:{line}" if line else Path(r.spec).name) if getattr(r, "spec", "") else ""
    return macros("details.html.j2").record(rid, r, head, MEANING.get(r.verdict, ""), rows,
                                            _why(r), where, math_ref)


def _why(r) -> dict | None:
    """The diagnosis of a wrong number, or what a carried or consistent one came from."""
    if r.verdict == "wrong":
        if r.diagnosis:
            return {"kind": "diagnosis", "entries": r.diagnosis,
                    "intro": "Diagnosis: the printed number is reproduced by"}
        return {"kind": "diagnosis", "entries": [],
                "intro": "Diagnosis: no known mistake reproduces it."}
    if r.verdict == "carried" and getattr(r, "carried_from", None):
        return {"kind": "carried", "entries": r.carried_from, "intro": "Carried from"}
    if r.verdict == "consistent" and getattr(r, "diagnosis", None):
        return {"kind": "carried", "entries": r.diagnosis, "intro": ""}
    return None


def unmatched_detail(rid: str, n) -> Markup:
    nearest = getattr(n, "nearest", None)
    rows = [("printed", getattr(n, "text", "")), ("article line", getattr(n, "line", ""))]
    if nearest:
        rows.append(("nearest", nearest if isinstance(nearest, str) else nearest_text(nearest)))
    return macros("details.html.j2").unmatched(rid, MEANING["unmatched"], rows)


def nearest_text(v) -> str:
    if isinstance(v, dict):
        at = v.get("at")
        at = ", ".join(str(a) for a in at) if isinstance(at, (list, tuple)) else str(at)
        return f"{v.get('step', '')}[{at}] = {v.get('exact', '')}"
    if isinstance(v, (list, tuple)):
        return "; ".join(str(x) for x in v)
    return str(v)


def math_template(tid: str, title: str, mathml: list) -> Markup:
    """The MathML of one step, once per step (``to_mathml`` rebuilds it from a whitelist)."""
    return macros("details.html.j2").math(tid, title, [Markup(m) for m in mathml])
