"""The report page: summary, every number in a table, articles with their numbers marked,
each example's claims by step and its heatmaps, the detail templates, the panel; one HTML
string rendered from ``templates/page.html.j2``.

A Content-Security-Policy allows only the page's own script (by its hash) and inline
styles: no request can leave the page, and no text of an article or a spec can run.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from markupsafe import Markup

from .article import article_kind, render_article
from .assets import CSS, JS
from .details import record_detail, unmatched_detail, math_template, nearest_text
from .marks import mark, mark_of, VERDICTS
from .summary import counts, counts_table, causes, corrections
from .jinja import macros, render


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
        from ... import __version__
        records = [r for ex in self.examples for r in ex.records]
        details = self._details()
        return render("page.html.j2", title=title, csp=Markup(_csp()), css=Markup(CSS), js=Markup(JS),
                      version=__version__, verdicts=VERDICTS,
                      counts_table=counts_table(self.examples, self.anchors, self.articles),
                      causes=causes(records, self.ids, sum(len(a.unmatched) for a in self.articles)),
                      corrections=corrections(records, self.ids),
                      numbers=self._numbers(),
                      articles=[{"k": k, "name": a.name, "html": self._article(k, a)}
                                for k, a in enumerate(self.articles)],
                      examples=[self._example(k, ex) for k, ex in enumerate(self.examples)],
                      details=details, templates=Markup("").join(self.templates)) + "\n"

    def _numbers(self) -> Markup:
        rows = [number_row(r, self.ids[id(r)]) for ex in self.examples for r in ex.records]
        rows += [unmatched_row(u, a.name, self.ids[id(u)]) for a in self.articles for u in a.unmatched]
        rows.sort(key=lambda r: (str(r["article"]), _int(r["line"]), _int(r["column"])))
        c = {v: sum(1 for r in rows if r["verdict"] == v) for v in VERDICTS}
        return macros("numbers.html.j2").table(rows, c, VERDICTS, COLUMNS)

    def _article(self, k: int, a) -> Markup:
        items = self.placed.get(id(a), {})
        numbers = {ln.number for ln in a.lines}
        html, loose = render_article(k, a, {n: its for n, its in items.items() if n in numbers})
        stray = [{"line": it[0].line, "mark": mark(it[1], it[0])}
                 for n, its in sorted(items.items()) if n not in numbers for it in its if it[2]]
        loose = [{"line": getattr(obj, "line", ""), "mark": mark_of(obj, rid, is_record)}
                 for obj, rid, is_record in loose]
        return macros("article.html.j2").section(k, a.name, article_kind(a.path), html, loose, stray)

    def _example(self, k: int, ex) -> Markup:
        c = counts(ex.records)
        line = ", ".join(f"{c[v]} {v}" for v in VERDICTS if c[v] or v in ("correct", "wrong"))
        groups: list = []
        for r in ex.records:
            if self.in_article(r):
                continue
            if not groups or groups[-1][0] != r.step:
                groups.append((r.step, []))
            rid = self.ids[id(r)]
            groups[-1][1].append((r, rid, mark(rid, r)))
        heatmaps = [(name, Markup(svg)) for name, svg in ex.heatmaps]   # matplotlib's SVG, text as text
        return macros("example.html.j2").example(self.anchors[ex.spec.id], ex.spec, len(ex.records),
                                                 line, groups, heatmaps, k)

    def _details(self) -> Markup:
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
        return Markup("").join(out)


# The per-number table's columns: (key, heading, sort type); the CSV has the same columns.
COLUMNS = [("line", "line", "number"), ("printed", "printed", "text"),
           ("expected", "expected", "text"), ("verdict", "verdict", "text"),
           ("step", "step", "text"), ("at", "at", "text"), ("exact", "exact", "text"),
           ("note", "diagnosis or note", "text"), ("example", "example", "text"),
           ("article", "article", "text"), ("column", "column", "number")]


def _int(v) -> int:
    return v if isinstance(v, int) else 0


def number_row(r, rid: str) -> dict:
    """One record as a row of the per-number table."""
    verdict = r.verdict if r.verdict in VERDICTS else "wrong"
    if r.verdict == "wrong":
        note = "; ".join(r.diagnosis) if r.diagnosis else "no known mistake reproduces it"
    elif r.verdict == "carried" and getattr(r, "carried_from", None):
        note = "carried from " + "; ".join(str(x) for x in r.carried_from)
    else:
        note = "; ".join(str(d) for d in getattr(r, "diagnosis", None) or [])
    return {"rid": rid, "verdict": verdict, "example": r.example, "article": r.source,
            "line": r.line, "column": "" if r.column is None else r.column, "step": r.step,
            "at": ", ".join(str(a) for a in r.at), "printed": r.printed, "expected": r.expected,
            "exact": r.exact, "exact_short": r.exact_short or r.exact, "note": note}


def unmatched_row(u, article: str, rid: str) -> dict:
    """A number of an article that no example explains, as a row (its nearest entry noted)."""
    nearest = getattr(u, "nearest", None)
    return {"rid": rid, "verdict": "unmatched", "example": "", "article": article,
            "line": getattr(u, "line", ""), "column": getattr(u, "column", "") or "",
            "step": "", "at": "", "printed": getattr(u, "text", ""), "expected": "",
            "exact": "", "exact_short": "",
            "note": ("nearest " + nearest_text(nearest)) if nearest else "no step gives it"}
