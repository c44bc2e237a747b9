"""An article in the report as its reader sees it, every checked number marked in place.

Markdown (and a notebook's Markdown cells) is rendered by markdown-it-py with raw HTML off
(an article's ``<script>`` is text), links and images shown as text (the page requests
nothing, not even on a click) and math kept as its LaTeX source so its numbers can be
marked. A notebook shows its cells in order: Markdown rendered, code and outputs as
preformatted lines. LaTeX, HTML and plain text articles are shown as source, line by line,
each line with its number.

Marks go in before rendering: each placed number's span of the source is replaced by a
placeholder of private-use characters, which markdown-it passes through as text; after
rendering each placeholder in text becomes its ``<button class="num">``. A placeholder that
lands inside a tag (a link's address) or is dropped by the renderer (a link definition)
gets its original text back, and its mark is listed after the article, flagged.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from urllib.parse import unquote

from markupsafe import Markup, escape

from .marks import mark_of, marked, place_on
from .jinja import macros

_PRIVATE = re.compile("[\ue000-\ue01f]")
_HOLE = re.compile("\ue000([\ue010-\ue019]+)\ue001")
_CELL = re.compile(r"cell (\d+), (output, )?line")


def _hole(n: int) -> str:
    return "\ue000" + "".join(chr(0xE010 + int(d)) for d in str(n)) + "\ue001"


def _hole_number(s: str) -> int:
    return int("".join(str(ord(c) - 0xE010) for c in s))


@functools.lru_cache(maxsize=1)
def _markdown():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    md = MarkdownIt("commonmark", {"html": False}).enable("table").use(dollarmath_plugin)
    rules = {
        "link_open": lambda t, env: Markup('<span class="link" title="{}">').format(
            _unhole(unquote(t.attrGet("href") or ""), env)),
        "link_close": lambda t, env: Markup("</span>"),
        "image": lambda t, env: Markup('<span class="image">[image: {}]</span>').format(
            "".join(c.content for c in (t.children or []))),
        "math_inline": lambda t, env: Markup('<code class="tex">${}$</code>').format(t.content),
        "math_inline_double": lambda t, env: Markup('<code class="tex">$${}$$</code>').format(t.content),
        "math_block": lambda t, env: Markup('<pre class="tex">$$\n{}\n$$</pre>\n').format(
            t.content.strip("\n")),
        "math_block_label": lambda t, env: Markup('<pre class="tex">$$\n{}\n$$ ({})</pre>\n').format(
            t.content.strip("\n"), t.info),
    }
    for name, fn in rules.items():
        md.add_render_rule(name, lambda self, tokens, idx, options, env, fn=fn: str(fn(tokens[idx], env)))
    return md


def _unhole(text: str, env: dict) -> str:
    """``text`` with each placeholder back to the number it stands for."""
    holes = env.get("holes", {})
    return _HOLE.sub(lambda m: holes[_hole_number(m.group(1))][0], text)


def render_article(k: int, article, items: dict) -> tuple[Markup, list]:
    """The article's HTML and the marks it could not place in the text (``(obj, rid,
    is_record)``). ``items``: line number -> ``[(record or number, rid, is_record)]``."""
    kind = article_kind(article.path)
    if kind == "markdown":
        return markdown_html(article.lines, items)
    if kind == "notebook":
        return notebook_html(k, article, items)
    return source_html(k, article.lines, items), []


def article_kind(path: str) -> str:
    from ...article.read import READERS
    return READERS.get(Path(str(path)).suffix.lower(), "text")


def source_html(k: int, lines: list, items: dict, first: int | None = None) -> Markup:
    """Source lines, numbered (from ``first`` when given: a notebook cell's own lines, else
    by their record line), each with its marks (those not found flagged after it)."""
    m = macros("article.html.j2")
    return Markup("").join(
        m.source_line(k, ln.number, ln.number if first is None else first + j,
                      marked(ln.text, *place_on(ln, items[ln.number]))
                      if ln.number in items else escape(ln.text))
        for j, ln in enumerate(lines))


def markdown_html(lines: list, items: dict) -> tuple[Markup, list]:
    """Markdown source lines (``Line.text`` is the source line) rendered, marks in place."""
    holes, loose, source = {}, [], []
    for ln in lines:
        text = _PRIVATE.sub("\ufffd", ln.text)
        if ln.number not in items:
            source.append(text)
            continue
        placed, lost = place_on(ln, items[ln.number])
        loose += lost
        out, pos = [], 0
        for (a, b), obj, rid, is_record in placed:
            holes[len(holes)] = (text[a:b], obj, rid, is_record)
            out += [text[pos:a], _hole(len(holes) - 1)]
            pos = b
        source.append("".join(out) + text[pos:])
    md = _markdown()
    tokens = md.parse("\n".join(source))
    for t in tokens:
        if t.map and t.nesting == 1 and t.map[0] < len(lines):
            t.attrSet("data-src-line", str(lines[t.map[0]].number))
    rendered = md.renderer.render(tokens, md.options, {"holes": holes})
    return _fill(rendered, holes, loose)


def _fill(rendered: str, holes: dict, loose: list) -> tuple[Markup, list]:
    """Each placeholder in text replaced by its mark; in a tag, by its original text."""
    out, pos, seen = [], 0, set()
    for m in _HOLE.finditer(rendered):
        n = _hole_number(m.group(1))
        text, obj, rid, is_record = holes[n]
        before = rendered[pos:m.start()]
        out.append(Markup(before))                     # markdown-it's output, escaped by it
        in_tag = rendered.rfind("<", 0, m.start()) > rendered.rfind(">", 0, m.start())
        if in_tag or n in seen:
            out.append(escape(text))
        else:
            out.append(mark_of(obj, rid, is_record, text))
            seen.add(n)
        pos = m.end()
    out.append(Markup(rendered[pos:]))
    lost = [(obj, rid, is_record) for n, (_, obj, rid, is_record) in holes.items() if n not in seen]
    return Markup("").join(out), loose + lost


def notebook_html(k: int, article, items: dict) -> tuple[Markup, list]:
    """A notebook's cells in order: Markdown rendered, code and outputs as numbered lines."""
    m = macros("article.html.j2")
    cells: dict = {}
    for ln in article.lines:
        got = _CELL.match(ln.where or "")
        c = int(got.group(1)) if got else 0
        part = "output" if got and got.group(2) else "source"
        cells.setdefault(c, {"source": [], "output": []})[part].append(ln)
    kinds = _cell_kinds(article.path)
    out, loose = [], []
    for c, parts in cells.items():
        kind = kinds.get(c, "code")
        if kind == "markdown":
            html, lost = markdown_html(parts["source"], items)
            loose += lost
        else:
            html = source_html(k, parts["source"], items, 1)
        output = source_html(k, parts["output"], items, 1) if parts["output"] else None
        out.append(m.cell(c, kind, html, output))
    return Markup("").join(out), loose


def _cell_kinds(path: str) -> dict:
    """Cell number (from 1) -> its ``cell_type``, from the notebook file."""
    from ...article.notebook import parse
    from ...article.read import read_text
    cells = parse(read_text(str(path)), str(path)).get("cells", [])
    return {c: cell.get("cell_type", "code") for c, cell in enumerate(cells, start=1)
            if isinstance(cell, dict)}
