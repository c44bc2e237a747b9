"""A self-contained HTML report: the article with every checked number marked in place,
the errors grouped by cause, the corrections, heatmaps of the weights (``symattn report``).

>>> from symattn.render.html import report_html
>>> text = report_html(["examples/000-self-attention.toml"])       # doctest: +SKIP
"""

from __future__ import annotations

from .collect import Example, Article, collect, read_article
from .page import Page

__all__ = ["report_html", "Example", "Article"]


def report_html(specs, articles=(), *, title: str | None = None, diagnose: bool = True) -> str:
    """The report of ``specs`` (paths or loaded Specs) and, optionally, their articles
    (paths of the article files the specs' ``source`` names)."""
    from ...spec.load import load, Spec
    from ...errors import SpecError
    loaded, seen = [], {}
    for s in specs:
        spec = s if isinstance(s, Spec) else load(str(s))
        if spec.id in seen:
            raise SpecError(f"example id '{spec.id}' is also used by {seen[spec.id]}",
                            where=spec.path)
        seen[spec.id] = spec.path
        loaded.append(spec)
    examples, read = collect(loaded, [str(a) for a in articles], diagnose=diagnose)
    if title is None:
        title = "symattn report: " + (examples[0].spec.id if len(examples) == 1
                                      else f"{len(examples)} examples")
    return Page(examples, read).html(title)
