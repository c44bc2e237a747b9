"""What a report shows of one spec: its records (as ``symattn check`` gives them), each
step's LaTeX as MathML, the heatmaps of its weights steps; and the articles' lines.

With ``--article``, records come from the article matcher exactly as ``symattn check
--article`` gets them (numbers found in the article, and those unmatched); without the
matcher, from the spec's hand-written claims, placed on their article line by
:func:`symattn.render.html.marks.locate`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...errors import SpecError

MAX_ARTICLE_BYTES = 20_000_000


@dataclass
class Example:
    """One spec in the report."""
    spec: object
    records: list
    step_math: dict = field(default_factory=dict)    # step name -> [MathML]
    heatmaps: list = field(default_factory=list)     # [(step name, svg text)]


@dataclass
class Article:
    """An article's lines (``symattn.article.source.Line``) and its numbers that no
    example explains (``unmatched``: objects with line, column, text, nearest)."""
    path: str
    name: str
    lines: list
    unmatched: list = field(default_factory=list)


def read_article(path: str) -> Article:
    """The lines of a plain-text article (one Line per source line, columns as in the file)."""
    from ...article.source import Line
    p = Path(path)
    try:
        with p.open("rb") as f:
            data = f.read(MAX_ARTICLE_BYTES + 1)
    except FileNotFoundError:
        raise SpecError("no such article file", where=path) from None
    except IsADirectoryError:
        raise SpecError("is a folder, not an article file", where=path) from None
    except OSError as e:
        raise SpecError(f"cannot read: {e.strerror}", where=path) from None
    if len(data) > MAX_ARTICLE_BYTES:
        raise SpecError(f"the article is longer than {MAX_ARTICLE_BYTES} bytes", where=path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise SpecError(f"invalid UTF-8 at byte {e.start}", where=f"{path}:{line}",
                        hint="save the article as UTF-8") from None
    lines = [Line(k + 1, s.rstrip("\r")) for k, s in enumerate(text.split("\n"))]
    return Article(str(path), p.name, lines)


def article_api():
    """The article matcher (:mod:`symattn.article.check`, as ``symattn check --article``
    uses it), when it is there."""
    try:
        from ...article import check
    except ImportError:
        return None
    ok = all(hasattr(check, n) for n in ("check_articles", "read", "article_for"))
    return check if ok else None


def collect(specs: list, articles: list[str], *, diagnose: bool = True) -> tuple[list, list]:
    """The Examples of loaded specs and the Articles they are marked in.

    With the article matcher, the specs of one article are checked together (each printed
    number belongs to one example; the numbers no example explains are the article's
    ``unmatched``); without it, each spec's hand-written claims, placed by the page.
    """
    from ...claims.check import check_spec
    api = article_api() if articles else None
    records: dict = {}
    read: list = []
    if api is not None:
        lines = api.read([str(p) for p in articles])
        groups: dict = {}
        for spec in specs:                   # a spec printed in several files: the first
            paths = api.article_for(spec, lines)
            groups.setdefault(paths[0] if paths else None, []).append(spec)
        for path, group in groups.items():
            if path is None:
                continue
            res = api.check_articles(group, {path: lines[path]}, diagnose)
            for r in res.records:
                records.setdefault(r.example, []).append(r)
            read.append(Article(str(path), Path(str(path)).name, list(lines[path]),
                                list(res.unmatched)))
        read.sort(key=lambda a: [str(p) for p in articles].index(a.path))
    out = []
    for spec in specs:
        recs = records.get(spec.id)
        if recs is None:
            recs = check_spec(spec, diagnose=diagnose)
        out.append(Example(spec, recs, step_mathml(spec), heatmaps(spec, recs)))
    if articles and api is None:
        read = [read_article(str(p)) for p in articles]
    return out, read


def step_mathml(spec) -> dict:
    """Each step's displays (``symattn latex``'s LaTeX, numbers substituted) as MathML."""
    from ..latex_config import LatexConfig
    from ..latex_steps import SpecRenderer
    from ...errors import SymattnError
    from markupsafe import Markup
    from .mathml import to_mathml
    r = SpecRenderer(spec, LatexConfig())
    out = {}
    for s in spec.steps:
        try:
            out[s.name] = [to_mathml(d) for d in r.step_block(s).displays]
        except SymattnError as e:               # e.g. a closed form too large to write
            out[s.name] = [Markup('<p class="note">LaTeX not shown: {}</p>').format(e.message)]
    return out


def weights_steps(spec) -> list[str]:
    """Steps that are attention weights: a softmax, or exp(·) divided by its sum."""
    from ..latex_config import LatexConfig
    from ..latex_steps import SpecRenderer
    from ...spec import expr as E
    r = SpecRenderer(spec, LatexConfig())
    return [s.name for s in spec.steps
            if r._is_weights(E.Name(s.name)) and spec.tensors[s.name].shape[1] > 1]


def heatmaps(spec, records) -> list:
    from ... import plot
    from ...errors import SymattnError
    out = []
    for name in weights_steps(spec):
        t = spec.tensors[name]
        mine = [r for r in records if r.step == name]
        printed, wrong = {}, set()
        for r in mine:
            try:
                ij = (t.row_index(r.at[0]), t.col_index(r.at[1]))
            except SymattnError:
                continue
            if r.verdict != "correct":
                printed[ij] = r.printed
            if r.verdict == "wrong":
                wrong.add(ij)
        decimals = max((_decimals(r.expected) for r in mine), default=4)
        gid = f"hm-{spec.id}-{name}"
        try:
            fig = plot.heatmap(t, decimals=decimals, mode=spec.rounding, printed=printed,
                               wrong=wrong, gid=gid)
        except SymattnError:
            continue                              # too large to draw: the LaTeX still shows it
        out.append((name, plot.svg_text(fig, salt=gid)))
    return out


def _decimals(text: str) -> int:
    """Decimals of an expected print as a fraction (``33%`` is 2, ``0.25`` is 2)."""
    s = str(text).strip()
    pct = 2 if s.endswith("%") else 0
    s = s.rstrip("%")
    if "e" in s.lower() or "inf" in s:
        return 4
    return pct + (len(s.split(".")[1]) if "." in s else 0)
