"""Numbers that print nothing of the computation, marked when an article is read.

Five kinds, each a span of a Line's text (``Line.quiet``) whose numbers the tokenizer skips:

* TikZ and pgfplots code: inside ``tikzpicture``/``axis``/``scope`` or a ``\\draw``,
  ``\\node``, ``\\fill``, ``\\path``, ``\\addplot``, ``\\foreach`` … statement (until its
  ``;``), everything inside ``[…]`` options and ``(…)`` coordinates, and the braces of
  ``coordinates {…}``, ``\\foreach … in {…}``, ``\\addplot {…}``, ``\\tikzset{…}``. A node's
  text (``\\node at (1,2) {0.73};``) is still read: it prints a number.
* A table's index: the header cells numbering its columns after a word (``| Token | 0 | 1
  | 2 |``), and the first cells numbering its rows under such a header (:func:`.cells.indexed`).
* Plotting code in code lines: a line that calls matplotlib, seaborn or plotly
  (``plt.plot(…)``, ``ax.set_xlim(0, 1)``, ``sns.heatmap(…)``, ``x.plot(…)``), with the lines
  that continue the call until its parentheses close.
* A reference's address: a URL, an arXiv identifier, a DOI (``arXiv:1910.07467``).
* An HTML tag in prose (Markdown's inline HTML, an SVG figure drawn in it: ``<rect x="410"
  style="fill-opacity:0.24"/>``): its attributes place and colour, they print nothing; the
  text between tags (``<text …>0.266</text>``) and the text given for a reader to read
  (``aria-label``, ``alt``, ``title``) are still read.

One pass over the lines, linear in their length.

>>> from .source import Line
>>> got = mark([Line(1, r"\\draw[line width=0.4pt] (0.35, 1.00) -- (1,2) node {0.73};")])
>>> text = got[0].text
>>> [text[a:b] for a, b in got[0].quiet]
['[line width=0.4pt]', '(0.35, 1.00)', '(1,2)']
"""

from __future__ import annotations

import dataclasses
import re

from .source import Line

_ENV = re.compile(r"\\(begin|end)\s*\{(tikzpicture|axis|semilogxaxis|semilogyaxis|loglogaxis|"
                  r"polaraxis|groupplot|scope|pgfonlayer)\}")
_COMMAND = re.compile(r"\\(draw|node|fill|filldraw|path|shade|shadedraw|clip|coordinate|"
                      r"addplot3?|addplot\+|foreach|tikz|tikzset|pgfplotsset|matrix|pic)(?![A-Za-z])")
_QUIET_BRACES = {"addplot", "addplot3", "addplot+", "tikzset", "pgfplotsset"}
_PLOT = re.compile(r"(?<![\w.])(?:plt|ax|axs|axes|ax\d+|ax_\w+|fig|sns|px|go|mpl|matplotlib|pylab)"
                   r"(?:\[[^\]\n]{0,40}\])*\.[A-Za-z_]|\.(?:plot|imshow|matshow|heatmap|scatter|hist|"
                   r"pcolormesh)\s*\(")


_REFERENCE = re.compile(r"\bhttps?://[^\s<>()\]\"']+|\barXiv:\s*\d{4}\.\d{4,5}(?:v\d+)?|\bdoi:\s*10\.\d{4,9}/\S+"
                        r"|\b10\.\d{4,9}/[^\s<>()\]\"']+", re.I)


_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s+[A-Za-z_:][\w:.-]*(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'<>]+))?)*"
                  r"\s*/?>")

_READ_ALOUD = re.compile(r"""(?:aria-label|alt|title)\s*=\s*(?:"([^"]*)"|'([^']*)')""")   # text for a reader


def _tag_spans(text: str) -> list:
    """The spans of the HTML tags of ``text``, less the text of their attributes that a
    reader is given to read (``aria-label="… 0.266, 0.280 …"``, ``alt``, ``title``)."""
    out = []
    for m in _TAG.finditer(text):
        at = m.start()
        for r in _READ_ALOUD.finditer(text, m.start(), m.end()):
            a, b = r.span(1) if r.group(1) is not None else r.span(2)
            out.append((at, a))
            at = b
        out.append((at, m.end()))
    return out


def mark(lines: list[Line]) -> list[Line]:
    """``lines`` with the spans of TikZ code, tables' indices, plotting calls, references'
    addresses and prose's HTML tags set in ``quiet``."""
    tikz, plot = _Tikz(), _Plot()
    index = _table_indices(lines)
    out = []
    prev = None
    for k, line in enumerate(lines):
        if prev is not None and (line.number not in (prev.number, prev.number + 1) or line.kind != prev.kind):
            plot.depth = 0                  # another cell or block: a call does not continue
        spans = tikz.spans(line.text) + (plot.spans(line.text) if line.kind == "code" else []) + index.get(k, []) \
            + [m.span() for m in _REFERENCE.finditer(line.text)] \
            + (_tag_spans(line.text) if line.kind == "text" else [])
        out.append(dataclasses.replace(line, quiet=tuple(sorted(spans))) if spans else line)
        prev = line
    return out


class _Plot:
    def __init__(self):
        self.depth = 0                      # parentheses a plotting call left open

    def spans(self, text: str) -> list:
        if self.depth <= 0 and not _PLOT.search(text):
            return []
        self.depth = max(0, self.depth + text.count("(") - text.count(")"))
        return [(0, len(text))]


class _Tikz:
    """The TikZ state carried from line to line."""

    def __init__(self):
        self.envs = 0                       # tikzpicture/axis/scope environments open
        self.statement = ""                 # the command of a statement not ended by ';'
        self.stack: list[str] = []          # open '[', '(', '{' with 'q' (quiet) or 't' (text)

    def spans(self, text: str) -> list:
        if not self.envs and not self.statement and "\\" not in text:
            return []
        events = {m.start(): m for m in _ENV.finditer(text)}
        commands = {m.start(): m.group(1) for m in _COMMAND.finditer(text)}
        if not self.envs and not self.statement and not events and not commands:
            return []
        out, start, k = [], None, 0
        brace_quiet = False                 # the next '{' opens quiet braces
        while k < len(text):
            if k in events:
                m = events[k]
                self.envs = max(0, self.envs + (1 if m.group(1) == "begin" else -1))
                if not self.envs:
                    self.stack.clear()
                k = m.end()
                start = self._edge(out, start, k)
                continue
            if k in commands and not self._quiet():
                self.statement = commands[k]
                brace_quiet = commands[k] in _QUIET_BRACES
            c = text[k]
            if self.envs or self.statement:
                if text.startswith("coordinates", k) or (self.statement == "foreach" and
                                                         text.startswith(" in", k)):
                    brace_quiet = True
                if c in "[(":
                    self.stack.append("q" if self._quiet() or not self.stack or self.stack[-1] != "t" else "t")
                elif c == "{":
                    self.stack.append("q" if self._quiet() or brace_quiet else "t")
                    brace_quiet = False
                elif c in "])}" and self.stack:
                    self.stack.pop()
                elif c == ";" and not self.stack:
                    self.statement = ""
            quiet = self._quiet() or (c in "])}" and k > 0 and start is not None)
            if quiet and start is None:
                start = k
            elif not quiet and start is not None:
                out.append((start, k))
                start = None
            k += 1
        if start is not None:
            out.append((start, len(text)))
        if not self.envs and self.statement and not self.stack:
            self.statement = ""             # \node … on one line without ';' ends with it
        return out

    def _quiet(self) -> bool:
        return bool(self.stack) and self.stack[-1] == "q"

    def _edge(self, out: list, start, k: int):
        if start is not None:
            out.append((start, k))
        return None


def _cell_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each cell of a Markdown table row, its text stripped (the pipes at
    the row's ends open and close it: no cells of their own)."""
    bars = [k for k, ch in enumerate(text) if ch == "|"]
    if not bars:
        return []
    edges = ([-1] if text[:bars[0]].strip() else []) + bars + ([len(text)] if text[bars[-1] + 1:].strip() else [])
    out = []
    for a, b in zip(edges, edges[1:]):
        cell = text[a + 1:b]
        lead = len(cell) - len(cell.lstrip())
        out.append((a + 1 + lead, a + 1 + len(cell.rstrip())))
    return out


def _table_indices(lines: list[Line]) -> dict[int, list]:
    """Line position -> the spans of a table's index cells (:func:`.cells.indexed` header,
    the first cells numbering the rows under it)."""
    from .cells import indexed, numbering
    out: dict = {}
    k = 0
    while k < len(lines):
        if lines[k].kind != "table" or "|" not in lines[k].text:
            k += 1
            continue
        run = [k]
        while run[-1] + 1 < len(lines) and lines[run[-1] + 1].kind == "table" and \
                lines[run[-1] + 1].number == lines[run[-1]].number + 1:
            run.append(run[-1] + 1)
        k = run[-1] + 1
        cells = [_cell_spans(lines[i].text) for i in run]
        texts = [[lines[i].text[a:b] for a, b in c] for i, c in zip(run, cells)]
        if not indexed(texts[0]):
            continue
        out[run[0]] = cells[0][1:]
        body = [(i, c, t) for i, c, t in zip(run[1:], cells[1:], texts[1:]) if t and not set("".join(t)) <= set("-: ")]
        if numbering([t[0] for _, _, t in body]):
            for i, c, _ in body:
                out[i] = [c[0]]
    return out
