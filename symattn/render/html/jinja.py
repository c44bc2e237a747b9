"""The report's Jinja2 environment: templates shipped in ``templates/`` (package data),
autoescaping on for every template, undefined names an error (a typo cannot print nothing).

Text from an article or a spec reaches the page only through a template, escaped by
MarkupSafe; the few pieces built as HTML elsewhere (MathML rebuilt from a whitelist, the
heatmaps' SVG, the page's own style and script) are marked ``Markup`` where they are made.
"""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=1)
def environment():
    import jinja2
    return jinja2.Environment(
        loader=jinja2.PackageLoader("symattn.render.html", "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False)


def macros(name: str):
    """The macros of template ``name`` (``macros("marks.html.j2").button(...)``)."""
    return environment().get_template(name).module


def render(name: str, **context) -> str:
    return environment().get_template(name).render(**context)
