"""The report page: summary, articles with their numbers marked, each example's claims by
step and its heatmaps, the detail templates, the panel; one HTML string.

A Content-Security-Policy allows only the page's own script (by its hash) and inline
styles: no request can leave the page, and no text of an article or a spec can run.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from .assets import CSS, JS
from .details import record_detail, unmatched_detail, math_template
from .marks import esc, mark, line_html, VERDICTS
from .summary import counts, counts_table, causes, corrections


def _csp() -> str:
    digest = base64.b64encode(hashlib.sha256(JS.encode()).digest()).decode()
    return ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
            f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'")


class Page:
    """Ids for every mark, then the HTML."""

    def __init__(self, examples: list, articles: list):
        self.examples = examples
        self.articles = articles
        self.ids: dict = {}              # id(record) -> element id
        self.anchors = {ex.spec.id: f"ex-{k}" for k, ex in enumerate(examples)}
        self.math: dict = {}             # (example index, step) -> template id
        self.templates: list[str] = []
        n = 0
        for ex in examples:
            for r in ex.records:
                self.ids[id(r)] = f"r{n}"
                n += 1
        for a in articles:
            for u in a.unmatched:
                self.ids[id(u)] = f"r{n}"
                n += 1
        self.placed = self._place()

    def _article_for(self, source: str):
        for a in self.articles:
            if a.name == Path(str(source)).name:
                return a
        return self.articles[0] if len(self.articles) == 1 else None

    def _place(self) -> dict:
        """Article index -> line number -> [(record or number, rid, is_record)]."""
        placed: dict = {}
        for ex in self.examples:
            for r in ex.records:
                a = self._article_for(r.source)
                if a is not None:
                    placed.setdefault(id(a), {}).setdefault(r.line, []).append(
                        (r, self.ids[id(r)], True))
        for a in self.articles:
            for u in a.unmatched:
                placed.setdefault(id(a), {}).setdefault(getattr(u, "line", 0), []).append(
                    (u, self.ids[id(u)], False))
        return placed

    def in_article(self, r) -> bool:
        return self._article_for(r.source) is not None

    # -- html --------------------------------------------------------------------------
    def html(self, title: str) -> str:
        body = [self._header(title), self._summary()]
        body += [self._article(k, a) for k, a in enumerate(self.articles)]
        body += [self._example(k, ex) for k, ex in enumerate(self.examples)]
        details = self._details()
        panel = ('<aside id="panel" role="dialog" aria-label="details of the number" hidden>'
                 '<button type="button" class="close" aria-label="close">×</button>'
                 '<div id="panel-body"></div></aside>')
        return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                '<meta name="viewport" content="width=device-width,initial-scale=1">'
                f'<meta http-equiv="Content-Security-Policy" content="{_csp()}">'
                f"<title>{esc(title)}</title><style>{CSS}</style></head><body><main>"
                + "\n".join(body) + "</main>\n" + details + "\n"
                + "".join(self.templates) + panel + f"<script>{JS}</script></body></html>\n")

    def _header(self, title: str) -> str:
        from ... import __version__
        legend = " ".join(f'<span><span class="num v-{v}">{v}</span></span>' for v in VERDICTS)
        return (f"<header><h1>{esc(title)}</h1><p>Every printed number checked by symattn "
                f"{esc(__version__)} with exact arithmetic and certified rounding. Click or "
                f'focus a number for its exact value and the step.</p><p class="legend">{legend}'
                "</p></header>")

    def _summary(self) -> str:
        records = [r for ex in self.examples for r in ex.records]
        return ('<section id="summary"><h2>Summary</h2><div class="scroll">'
                + counts_table(self.examples, self.anchors, self.articles) + "</div>"
                + '<h3 id="causes">Wrong numbers by cause</h3>' + causes(records, self.ids)
                + '<h3 id="corrections">Corrections, line by line</h3>'
                + corrections(records, self.ids) + "</section>")

    def _article(self, k: int, a) -> str:
        items = self.placed.get(id(a), {})
        numbers = {ln.number for ln in a.lines}
        out = []
        for ln in a.lines:
            text = line_html(ln, items.get(ln.number, [])) if ln.number in items else esc(ln.text)
            out.append(f'<div class="l" id="a{k}-L{ln.number}"><a class="ln" '
                       f'href="#a{k}-L{ln.number}">{ln.number}</a><span class="t">{text}</span></div>')
        stray = [it for n, its in sorted(items.items()) if n not in numbers for it in its]
        tail = ""
        if stray:
            tail = ('<p>Printed numbers whose line is not in this file:</p><ul class="claims">'
                    + "".join(f"<li>line {esc(it[0].line)}: {mark(it[1], it[0])}</li>"
                              for it in stray if it[2]) + "</ul>")
        return (f'<section class="art"><h2 id="article-{k}">Article {esc(a.name)}</h2>'
                f'<div class="article">{"".join(out)}</div>{tail}</section>')

    def _example(self, k: int, ex) -> str:
        spec = ex.spec
        c = counts(ex.records)
        line = ", ".join(f"{c[v]} {v}" for v in VERDICTS if c[v] or v in ("correct", "wrong"))
        parts = [f'<section class="example"><h2 id="{self.anchors[spec.id]}">{esc(spec.id)}</h2>',
                 f"<p>{esc(spec.title)}<br>article {esc(spec.source)}; {len(ex.records)} "
                 f"printed numbers: {esc(line)}</p>"]
        loose = [r for r in ex.records if not self.in_article(r)]
        if loose:
            parts.append(self._by_step(loose))
        for name, svg in ex.heatmaps:
            parts.append(f'<figure class="heatmap" id="hm-{k}-{esc(name)}" data-step="{esc(name)}">'
                         f"<figcaption>Heatmap of {esc(name)} (rows attend to columns; printed "
                         f"numbers that differ shown under the exact value, wrong ones framed "
                         f"red, masked cells hatched)</figcaption>{svg}</figure>")
        parts.append("</section>")
        return "\n".join(parts)

    def _by_step(self, records) -> str:
        out, step = [], None
        for r in records:
            if r.step != step:
                if step is not None:
                    out.append("</ul>")
                step = r.step
                out.append(f'<h3>{esc(step)}</h3><ul class="claims">')
            at = ", ".join(str(x) for x in r.at)
            out.append(f'<li><span class="ex">line {esc(r.line)}</span> <span class="at">'
                       f'[{esc(at)}]</span> printed {mark(self.ids[id(r)], r)} '
                       f'<span class="ex">exact {esc(r.exact_short or r.exact)}</span></li>')
        out.append("</ul>")
        return "".join(out)

    def _details(self) -> str:
        out = []
        for k, ex in enumerate(self.examples):
            for name, mathml in ex.step_math.items():
                tid = f"m{k}-{len(self.math)}"
                self.math[(k, name)] = tid
                self.templates.append(math_template(tid, f"{ex.spec.id}: step {name}", mathml))
            for r in ex.records:
                out.append(record_detail(self.ids[id(r)], r, self.math.get((k, r.step))))
        for a in self.articles:
            for u in a.unmatched:
                out.append(unmatched_detail(self.ids[id(u)], u))
        return "".join(out)
