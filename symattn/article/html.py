"""HTML as article lines: the text of each source line, without tags, entities decoded.

The stdlib :class:`html.parser.HTMLParser` gives the source position of every piece of text
(``getpos``); each character of a Line keeps its 1-based source column in ``columns`` (an
entity's decoded character points at its ``&``). ``<script>``, ``<style>``, ``<head>``,
``<template>`` and comments are skipped. Text inside ``<pre>`` is ``code`` (``output`` when
it is a ``tensor(``/``array(``/``[[`` printout); an inline ``<code>`` is part of its
paragraph's text. ``<sup>``/``<sub>`` are kept as ``^{…}``/``_{…}`` (each mark at its tag's
column), so ``2.56&times;10<sup>−4</sup>`` reads as ``2.56×10^{−4}``. Inside ``<table>`` it is
``table`` with the cells of a row on one source line joined by `` | `` (so the tokenizer sees
a table row), everything else ``text``. A block tag (``<p>``, ``<br>``, ``<li>``, ``<tr>``
…) between two pieces of text on one line starts a new Line with the same number. MathJax/KaTeX source
(``\\(…\\)``, ``$$…$$``) stays as written.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from .nesting import mark as nest
from .quiet import mark
from .source import Line

_SKIP = {"script", "style", "head", "template", "noscript", "svg"}
_CODE = {"pre"}                        # <code>, <samp>, <kbd> in a paragraph are its text
_SCRIPT = {"sup": "^{", "sub": "_{"}    # 10<sup>−4</sup> reads as 10^{−4}, d<sub>k</sub> as d_{k}
_CELL = {"td", "th"}
_BLOCK = {"p", "br", "div", "li", "ul", "ol", "tr", "table", "h1", "h2", "h3", "h4", "h5",
          "h6", "section", "article", "blockquote", "dd", "dt", "hr", "caption", "figure",
          "figcaption", "header", "footer", "main", "nav", "pre", "thead", "tbody"}
_VOID = {"br", "hr", "img", "meta", "link", "input", "wbr", "col", "area", "base", "source",
         "embed", "param", "track"}
_PRINTOUT = re.compile(r"\s*(?:tensor\(|array\(|\[\s*\[)")


class _Reader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.open = {"skip": 0, "code": 0, "table": 0}
        self.chars: dict[int, list] = {}       # Line -> [(char, column, kind, source line)]
        self.cell_in_row = 0
        self.row: int | None = None            # the source line of the open <tr>

    def _kind(self) -> str:
        return "table" if self.open["table"] else "code" if self.open["code"] else "text"

    def _put(self, text: str, line: int, col0: int, fixed: bool = False) -> None:
        """Characters of ``text`` starting at (line, 0-based col0); ``fixed``: all at col0."""
        if self.open["skip"]:
            return
        kind = self._kind()
        col = col0
        for ch in text:
            if ch == "\n" and not fixed:
                if self.row is not None:
                    self.chars.setdefault(self.row, []).append((" ", col + 1, kind, line))
                line, col = line + 1, 0
                continue
            self.chars.setdefault(self._at(line), []).append((ch, col + 1, kind, line))
            if not fixed:
                col += 1

    def _at(self, line: int) -> int:
        """The Line a character of source ``line`` joins: its table row's, inside one."""
        return line if self.row is None else self.row

    def _gap(self, sep: str) -> None:
        """``sep`` at the tag's position, if the tag's line already has text."""
        line, col0 = self.getpos()
        have = self.chars.get(self._at(line)) or ()
        k = len(have) - 1
        while self.row is not None and k >= 0 and have[k][0] is not None and have[k][0].isspace():
            k -= 1                            # a row over several lines: its cells' newlines
        if k >= 0 and not self.open["skip"] and have[k][0] is not None and not have[k][0].isspace():
            self._put(sep, line, col0, fixed=True)

    def _break(self) -> None:
        """A block tag ends the Line here: text after it on the same source line is a new
        Line with the same number (a minified page keeps its paragraphs and rows apart)."""
        line, col0 = self.getpos()
        have = self.chars.get(self._at(line))
        if have and not self.open["skip"] and have[-1][0] is not None:
            have.append((None, col0 + 1, "break", line))

    def handle_starttag(self, tag, attrs):
        self._tag(tag, +1)
        if tag in _SCRIPT:
            self._put(_SCRIPT[tag], *self.getpos(), fixed=True)
        if tag in _CELL:
            self.cell_in_row += 1
            if self.cell_in_row > 1:
                self._gap(" | ")
        elif tag == "tr":
            self.cell_in_row = 0
            self._break()
            self.row = self.getpos()[0]
        elif tag in _BLOCK:
            self._break()

    def handle_startendtag(self, tag, attrs):
        if tag in _BLOCK:
            self._break()

    def handle_endtag(self, tag):
        if tag in _SCRIPT:
            self._put("}", *self.getpos(), fixed=True)
        self._tag(tag, -1)
        if tag in _BLOCK:
            self._break()
        if tag in ("tr", "table"):
            self.row = None

    def _tag(self, tag: str, step: int) -> None:
        if tag in _VOID:
            return
        group = "skip" if tag in _SKIP else "code" if tag in _CODE else "table" if tag == "table" else None
        if group:
            self.open[group] = max(0, self.open[group] + step)

    def handle_data(self, data):
        self._put(data, *self.getpos())

    def handle_entityref(self, name):
        line, col0 = self.getpos()
        self._put(html.unescape(f"&{name};"), line, col0, fixed=True)

    def handle_charref(self, name):
        line, col0 = self.getpos()
        self._put(html.unescape(f"&#{name};"), line, col0, fixed=True)


def read(text: str, path: str = "") -> list[Line]:
    """One Line per run of one kind on a source line with text (blank lines are left out;
    a line holding a paragraph and a ``<pre>`` gives two Lines with the same number)."""
    r = _Reader()
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lt = next((c for c in _MARKS if c not in text), None)
    r.feed(_unclosed_as_text(text, lt) if lt else text)
    r.close()
    out = []
    for number in sorted(r.chars):
        for run in _runs(r.chars[number]):
            s = "".join(c for c, _, _, _ in run)
            s = s.replace(lt, "<") if lt else s
            if not s.strip():
                continue
            kind = run[0][2]
            if kind == "code" and _PRINTOUT.match(s):
                kind = "output"
            lines = tuple(n for _, _, _, n in run)
            out.append(Line(number, s, kind, tuple(c for _, c, _, _ in run),
                            lines=lines if set(lines) != {number} else None))
    return nest(mark(out))


_MARKS = [chr(c) for c in range(0xFDD0, 0xFDF0)]   # noncharacters: one the article does not hold
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")


def _unclosed_as_text(text: str, mark: str) -> str:
    """The text with every tag start after the last ``>`` (a tag that never closes) marked
    as text before the parser sees it: the standard parser would scan from each of them to
    the end of the file and then read its ``<`` as text (quadratic: a minute for 60 kB of
    ``<a ``); the result is the same, in linear time (``mark``, a character the text does not
    hold, is put back as ``<``). A text holding all 32 noncharacters is parsed as it is."""
    end = text.rfind(">") + 1
    return text[:end] + _TAG_START.sub(mark, text[end:])


def _runs(chars: list) -> list[list]:
    """The characters of one line cut where the kind changes (a space joins the run before;
    a run's kind is that of its first visible character)."""
    runs: list[list] = []
    kinds: list[str | None] = []
    fresh = True
    for item in chars:
        ch, _, kind, _ = item
        if ch is None:                               # a block tag: the next text is a new Line
            fresh = True
            continue
        if fresh:
            runs.append([item])
            kinds.append(None if ch.isspace() else kind)
            fresh = False
        elif ch.isspace() or kinds[-1] in (None, kind):
            runs[-1].append(item)
            if kinds[-1] is None and not ch.isspace():
                kinds[-1] = kind
        else:
            runs.append([item])
            kinds.append(None if ch.isspace() else kind)
    return [[(c, col, k or "text", n) for c, col, _, n in run] for run, k in zip(runs, kinds)]
