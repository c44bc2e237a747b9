"""The top of the report: counts per example, wrong numbers grouped by cause (a root and the
numbers that follow from it), and the corrections an author applies line by line.

``ids`` maps ``id(record)`` to the element id of its mark, so every entry links to its place.
"""

from __future__ import annotations

import re

from .marks import esc, follows_line, VERDICTS

_RESTATES = re.compile(r"restates the (?:wrong )?number printed at line (\d+)")

COUNTED = ("correct", "carried", "consistent", "wrong")


def counts(records) -> dict:
    c = {v: 0 for v in VERDICTS}
    for r in records:
        c[r.verdict if r.verdict in c else "wrong"] += 1
    return c


def counts_table(examples, anchors: dict, articles=()) -> str:
    """One row per example (printed numbers and each verdict), one per article with numbers
    no example explains (unmatched), then the total."""
    head = "".join(f"<th>{v}</th>" for v in VERDICTS)
    rows, total = [], {v: 0 for v in VERDICTS}
    for ex in examples:
        c = counts(ex.records)
        for v in VERDICTS:
            total[v] += c[v]
        cells = "".join(f'<td class="n{f" v-{v}" if c[v] else ""}">{c[v]}</td>' for v in VERDICTS)
        rows.append(f'<tr><th scope="row"><a href="#{esc(anchors[ex.spec.id])}">{esc(ex.spec.id)}'
                    f'</a></th><td>{esc(ex.spec.source)}</td><td class="n">{len(ex.records)}</td>'
                    f"{cells}</tr>")
    n = sum(len(ex.records) for ex in examples)
    for k, a in enumerate(articles):
        if a.unmatched:
            total["unmatched"] += len(a.unmatched)
            n += len(a.unmatched)
            cells = "".join(f'<td class="n">{len(a.unmatched) if v == "unmatched" else ""}</td>'
                            for v in VERDICTS)
            rows.append(f'<tr><th scope="row"><a href="#article-{k}">not explained</a></th>'
                        f'<td>{esc(a.name)}</td><td class="n">{len(a.unmatched)}</td>{cells}</tr>')
    cells = "".join(f'<td class="n">{total[v]}</td>' for v in VERDICTS)
    rows.append(f'<tr class="total"><th scope="row">{len(examples)} examples</th><td></td>'
                f'<td class="n">{n}</td>{cells}</tr>')
    return (f'<table class="counts"><thead><tr><th>example</th><th>article</th><th>printed</th>'
            f'{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _link(r, ids) -> str:
    at = ", ".join(str(a) for a in r.at)
    return (f'<a href="#{esc(ids[id(r)])}">line {esc(r.line)}</a> {esc(r.step)}[{esc(at)}]: '
            f'printed <b>{esc(r.printed)}</b>, expected <b>{esc(r.expected)}</b>')


def causes(records, ids: dict) -> str:
    """Wrong numbers grouped by root: each root with its diagnosis and what follows from it."""
    wrong = [r for r in records if r.verdict == "wrong"]
    if not wrong:
        return '<p class="none">No wrong numbers.</p>'
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
        tail = ""
        if sub:
            tail = (f'<p class="follows">{len(sub)} more wrong because of it:</p><ul>'
                    + "".join(f"<li>{_link(f, ids)}</li>" for f in sub) + "</ul>")
        items.append(f'<li class="root"><span class="ex">{esc(r.example)}</span> {_link(r, ids)}'
                     f'<div class="cause">{esc(diag)}</div>{tail}</li>')
    for (ex, line), fs in followers.items():
        rest = [f for f in fs if id(f) not in shown]
        if rest:
            items.append(f'<li class="root"><span class="ex">{esc(ex)}</span> the wrong number '
                         f'printed at line {esc(line)}<ul>'
                         + "".join(f"<li>{_link(f, ids)}</li>" for f in rest) + "</ul></li>")
    n_roots = len(items)
    return (f'<p>{len(wrong)} wrong number{"s" if len(wrong) != 1 else ""} from {n_roots} '
            f'cause{"s" if n_roots != 1 else ""}:</p><ol class="causes">{"".join(items)}</ol>')


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


def corrections(records, ids: dict) -> str:
    """Every wrong printed number, in article order: what to print instead."""
    wrong = sorted((r for r in records if r.verdict == "wrong"),
                   key=lambda r: (r.source, r.line, getattr(r, "column", None) or 0, r.example))
    if not wrong:
        return '<p class="none">Nothing to correct.</p>'
    items = "".join(
        f'<li><a href="#{esc(ids[id(r)])}">{esc(r.source)} line {esc(r.line)}'
        + (f", column {esc(r.column)}" if getattr(r, "column", None) is not None else "")
        + f'</a>: replace <del>{esc(r.printed)}</del> by <ins>{esc(r.expected)}</ins> '
        f'<span class="ctx">({esc(r.step)}[{esc(", ".join(str(a) for a in r.at))}])</span></li>'
        for r in wrong)
    return f'<ol class="corrections">{items}</ol>'
