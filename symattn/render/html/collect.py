"""What a report shows of one spec: its records (as ``symattn check`` gives them), each
step's LaTeX as MathML, the heatmaps of its weights steps; and the articles' lines.

With ``--article``, records come from :func:`symattn.article.check_article` when that
exists (numbers found in the article, with unmatched ones); otherwise from the spec's
hand-written claims, placed on their article line by :func:`symattn.render.html.marks.locate`.
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
    unmatched: list = field(default_factory=list)    # article numbers no claim explains
    step_math: dict = field(default_factory=dict)    # step name -> [MathML]
    heatmaps: list = field(default_factory=list)     # [(step name, svg text)]


@dataclass
class Article:
    """An article's lines (``symattn.article.source.Line``) by their line number."""
    path: str
    name: str
    lines: list


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
    """The lead's article matcher, when it is there."""
    try:
        from ... import article
    except ImportError:
        return None
    return getattr(article, "check_article", None)


def collect(spec, articles: list[str], *, diagnose: bool = True) -> tuple[Example, list]:
    """The Example of a loaded spec, and the Articles the matcher read (may be empty)."""
    from ...claims.check import check_spec
    ex = Example(spec, [])
    read: list = []
    api = article_api() if articles else None
    if api is not None:
        res = api(spec, articles)
        ex.records, ex.unmatched = list(res.records), list(getattr(res, "unmatched", []))
        for path, lines in getattr(res, "lines", {}).items():
            read.append(Article(str(path), Path(str(path)).name, list(lines)))
    else:
        ex.records = check_spec(spec, diagnose=diagnose)
    ex.step_math = step_mathml(spec)
    ex.heatmaps = heatmaps(spec, ex.records)
    return ex, read


def step_mathml(spec) -> dict:
    """Each step's displays (``symattn latex``'s LaTeX, numbers substituted) as MathML."""
    from ..latex_config import LatexConfig
    from ..latex_steps import SpecRenderer
    from ...errors import SymattnError
    from .mathml import to_mathml
    r = SpecRenderer(spec, LatexConfig())
    out = {}
    for s in spec.steps:
        try:
            out[s.name] = [to_mathml(d) for d in r.step_block(s).displays]
        except SymattnError as e:               # e.g. a closed form too large to write
            out[s.name] = [f'<p class="note">LaTeX not shown: {_esc(e.message)}</p>']
    return out


def _esc(s: str) -> str:
    import html
    return html.escape(str(s))


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
