"""What a click on a marked number shows: exact value, expected print, verdict, diagnosis,
and the step's LaTeX with the numbers substituted (as MathML, from a shared template).

Each is an inert ``<template id="{rid}-d">``; the page script copies it into the panel.
"""

from __future__ import annotations

from pathlib import Path

from .marks import esc, follows_line

MEANING = {
    "correct": "the exact value rounds to the printed number",
    "carried": "what the article's own rounded numbers give when carried forward",
    "consistent": "reached with inputs inside their printed rounding intervals",
    "wrong": "neither correct nor carried",
    "unmatched": "no step of the spec gives this number",
}


def record_detail(rid: str, r, math_ref: str | None) -> str:
    """The detail template of one record; ``math_ref`` is the id of its step's MathML."""
    rows = [("printed", r.printed), ("exact", r.exact), ("expected print", r.expected)]
    if getattr(r, "tie", False):
        rows.append(("note", "an exact tie, rounded by the example's mode"))
    table = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows)
    verdict = r.verdict
    follows = follows_line(r)
    head = f"{verdict}" + (f" (follows from line {follows})" if follows is not None else "")
    parts = [f'<div class="detail-head v-{esc(verdict)}"><strong class="verdict">{esc(head)}'
             f'</strong> <span class="meaning">{esc(MEANING.get(verdict, ""))}</span></div>',
             f'<p class="where">{esc(r.example)} · step {esc(r.step)} '
             f'[{esc(", ".join(str(a) for a in r.at))}] · article line {esc(r.line)}'
             + (f", column {esc(r.column)}" if getattr(r, "column", None) is not None else "")
             + "</p>",
             f'<table class="values">{table}</table>']
    parts.append(_why(r))
    where = f"{Path(r.spec).name}:{r.spec_line}" if getattr(r, "spec", "") else ""
    if where:
        parts.append(f'<p class="spec">claim in {esc(where)}</p>')
    if math_ref:
        parts.append(f'<div class="math" data-math="{esc(math_ref)}"></div>')
    return f'<template id="{esc(rid)}-d">{"".join(parts)}</template>'


def _why(r) -> str:
    if r.verdict == "wrong":
        if r.diagnosis:
            items = "".join(f"<li>{esc(d)}</li>" for d in r.diagnosis)
            return f'<div class="diagnosis"><p>Diagnosis: the printed number is reproduced by</p><ul>{items}</ul></div>'
        return '<div class="diagnosis"><p>Diagnosis: no known mistake reproduces it.</p></div>'
    if r.verdict == "carried" and getattr(r, "carried_from", None):
        items = "".join(f"<li>{esc(d)}</li>" for d in r.carried_from)
        return f'<div class="carried"><p>Carried from</p><ul>{items}</ul></div>'
    if r.verdict == "consistent" and getattr(r, "diagnosis", None):
        items = "".join(f"<li>{esc(d)}</li>" for d in r.diagnosis)
        return f'<div class="carried"><ul>{items}</ul></div>'
    return ""


def unmatched_detail(rid: str, n) -> str:
    nearest = getattr(n, "nearest", None)
    rows = [("printed", getattr(n, "text", "")), ("article line", getattr(n, "line", ""))]
    if nearest:
        rows.append(("nearest", nearest if isinstance(nearest, str) else _nearest(nearest)))
    table = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows)
    return (f'<template id="{esc(rid)}-d"><div class="detail-head v-unmatched"><strong '
            f'class="verdict">unmatched</strong> <span class="meaning">{esc(MEANING["unmatched"])}'
            f'</span></div><table class="values">{table}</table></template>')


def _nearest(v) -> str:
    if isinstance(v, dict):
        at = v.get("at")
        at = ", ".join(str(a) for a in at) if isinstance(at, (list, tuple)) else str(at)
        return f"{v.get('step', '')}[{at}] = {v.get('exact', '')}"
    if isinstance(v, (list, tuple)):
        return "; ".join(str(x) for x in v)
    return str(v)


def math_template(tid: str, title: str, mathml: list) -> str:
    """The MathML of one step, once per step (MathML comes escaped from ``to_mathml``)."""
    return (f'<template id="{esc(tid)}"><h4>{esc(title)}</h4>'
            + "".join(f'<div class="display">{m}</div>' for m in mathml) + "</template>")
