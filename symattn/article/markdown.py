"""Markdown as article lines: the raw source lines, each with its kind.

markdown-it-py (with the dollarmath plugin and tables) only classifies line ranges; the text
of every line is the source line itself (``columns`` is None), so ``$``, ``|``, ``\\\\`` and
``&`` reach the tokenizer as written. Kinds: fenced and indented code blocks are ``code``, or
``output`` when they print a result (a ``tensor(``/``array(``/``[[`` printout, an ``output``
or ``text`` fence, or a block right after an ``Out[n]:``/``Output:``/``出力`` line), with ``**bold**`` marks
read as spaces; a printout written as comments in code (``# tensor([[…``) is ``output``
(:func:`comment_printouts`); tables
are ``table``; an equation drawn as an image by a LaTeX service is its LaTeX, ``math``
(:mod:`.rendered`); ``$$ … $$`` blocks and ``\\begin{aligned}``/bmatrix/pmatrix blocks are
``math``; the rest is ``text``.
"""

from __future__ import annotations

import dataclasses
import functools
import re

from ..errors import LimitError
from . import raw_notebook
from .latex import math_flags, source_lines
from .nesting import mark as nest
from .quiet import mark
from .rendered import drawn
from .source import Line

# markdown-it's list rule is quadratic in the items of one list and keeps a token object
# per block: 2 million one-line items ran out of memory under a 1.5 GB cap. An article has
# a few thousand lines; this bound keeps the parse within seconds and a few hundred MB.
MAX_LINES = 100_000

_PRINTOUT = re.compile(r"\s*(?:tensor\(|array\(|\[\s*\[|Out\s*\[\s*\d*\s*\]\s*:)")
_COMMENT_PRINTOUT = re.compile(r"\s*(?:tensor\(|array\(|\[\s*\[|\[\s*[-+]?\.?\d)")
_OUTPUT_INFO = {"output", "text", "console", "out", "stdout", "result", "plaintext"}
_OUTPUT_MARK = re.compile(r"\s*(?:\*\*|_)?(?:Out\s*\[\s*\d*\s*\]\s*:?|Output\s*:?|出力\s*[:：]?)"
                          r"(?:\*\*|_)?\s*$", re.I)

_BRACKET = re.compile(r"(?<!\\)\\[\[\]]")
_NUMBER = re.compile(r"\d")
_CODE_ROW = re.compile(r"\|\||=|\bdef\b|\breturn\b|;\s*$")     # ``a || b``, assignments: code, no table
_ESCAPABLE = set("*_#+-.!{}~<>^")         # punctuation a Markdown escape shows as itself
ALL = object()                            # every escaped bracket an escape (:func:`unescaped`)

# **…**: opened after a space or the line's start, closed before a space or the line's end
_BOLD = re.compile(r"(?<![\w)\]*])\*\*(?=[^\s*])([^*]*?[^\s*])\*\*(?![\w(*])")


@functools.lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    # Only the blocks are wanted: the inline rules (emphasis over a 4 MB run of `*`) are
    # not run, so their work and recursion never happen.
    return MarkdownIt("commonmark").enable("table").use(dollarmath_plugin).disable("inline")


def kinds(lines: list[str]) -> tuple[list[str], set]:
    """The kind of each source line (0-based list, one entry per line), and where a ``\\[``
    or ``\\]`` of the prose is an escaped bracket (:func:`escaped_brackets`)."""
    if len(lines) > MAX_LINES:
        raise LimitError(f"a Markdown text of {len(lines)} lines, more than {MAX_LINES}",
                         hint="split it, or raise symattn.article.markdown.MAX_LINES on purpose")
    out = ["text"] * len(lines)
    for tok in _parser().parse("\n".join(lines)):
        if not tok.map:
            continue
        first, last = tok.map
        if tok.type in ("fence", "code_block"):
            kind = block_kind(tok.info, tok.content, lines, first)
        elif tok.type == "table_open":
            kind = "table"
        elif tok.type.startswith("math_block"):
            kind = "math"
        else:
            continue
        for k in range(first, min(last, len(lines))):
            out[k] = kind
    rest = [s if kind == "text" else "" for s, kind in zip(lines, out)]
    escaped = escaped_brackets(rest)
    for k, at in escaped:
        rest[k] = rest[k][:at] + "  " + rest[k][at + 2:]
    for k, inside in enumerate(math_flags(rest)):
        if inside and out[k] == "text":
            out[k] = "math"
    return out, escaped


def escaped_brackets(lines: list[str]) -> set:
    """(line, column), 0-based, of each Markdown-escaped bracket of ``lines`` of prose
    (``"cat": \\[0.8, 0.1]``, as converters and chat exports write a list): a ``\\[`` is
    displayed math only when a ``\\]`` closes it before the next ``\\[``, and a ``\\]`` only
    when it closes one."""
    marks = [(k, m) for k, s in enumerate(lines) for m in _BRACKET.finditer(s)]
    out, opened = set(), None
    for (k, m), nxt in zip(marks, marks[1:] + [(0, None)]):
        if m.group(0) == "\\[":
            opened = nxt[1] is not None and nxt[1].group(0) == "\\]"
            if not opened:
                out.add((k, m.start()))
        elif not opened:
            out.add((k, m.start()))
        else:
            opened = False
    return out


def unescaped(line: str, brackets=()) -> tuple[str, tuple | None]:
    """A line of prose as Markdown shows it, and the source column of each character (None:
    unchanged): a backslash before punctuation (``\\*``, ``\\_``, ``\\-``; a bracket where
    ``brackets``, 0-based columns or ``ALL``, say it is escaped) is dropped, outside ``$…$``
    and code spans; ``\\(``, ``\\|`` and ``\\\\`` are kept (math delimiters, a table's cell)."""
    if "\\" not in line:
        return line, None
    keep = [True] * len(line)
    k = 0
    while k < len(line) - 1:
        ch = line[k]
        if ch in "$`":
            end = line.find(ch, k + 1)
            k = len(line) if end < 0 else end + 1
            continue
        if ch == "\\" and (line[k + 1] in _ESCAPABLE or (line[k + 1] in "[]" and (brackets is ALL or k in brackets))):
            keep[k] = False
            k += 2
            continue
        k += 2 if ch == "\\" else 1
    if all(keep):
        return line, None
    return "".join(c for c, x in zip(line, keep) if x), tuple(j + 1 for j, x in enumerate(keep) if x)


def block_kind(info: str, content: str, lines: list[str], first: int) -> str:
    """``table`` for a code block that is a table typed out (every line a row of as many
    ``|`` cells, a header over vectors: ``"I" | [0.8, 0.1] | [0.6, -0.3]``), ``output`` for
    one that prints a result (an output/text fence, a printout as its first line, or an
    ``Out[n]:``/``Output:`` line right above it), else ``code``; ``first`` is the 0-based
    index of the block's first line in ``lines``."""
    info = (info or "").strip().split(" ")[0].lower()
    rows = [r for r in (content or "").splitlines() if r.strip()]
    if len(rows) >= 2 and len({r.count("|") for r in rows}) == 1 and "|" in rows[0] and \
            any(_NUMBER.search(r) for r in rows[1:]) and not any(_CODE_ROW.search(r) for r in rows):
        return "table"
    if info in _OUTPUT_INFO or _PRINTOUT.match(content or ""):
        return "output"
    prev = first - 1
    while prev >= 0 and not lines[prev].strip():
        prev -= 1
    return "output" if prev >= 0 and _OUTPUT_MARK.fullmatch(lines[prev]) else "code"


def read_lines(lines: list[str], number=lambda k: k + 1, where=lambda k: "") -> list[Line]:
    """Lines of Markdown source; ``number(k)``/``where(k)`` place the k-th (0-based) line
    (a notebook's markdown cell places its lines its own way). In a code block, bold marks
    around words (``**Total:** 40.04``) are the author's emphasis, not a power: they are
    read as spaces (columns stay those of the source). In prose, Markdown's escapes are
    read as shown (:func:`unescaped`)."""
    kind_of, brackets = kinds(lines)
    on_line: dict = {}
    for j, at in brackets:
        on_line.setdefault(j, set()).add(at)
    out = []
    for k, (s, kind) in enumerate(zip(lines, kind_of)):
        text, columns = (unbold(s), None) if kind in ("code", "output") else (s, None) if kind == "math" \
            else unescaped(s, on_line.get(k, ()))
        out.append(drawn(Line(number(k), text, kind, columns, where(k))))
    return comment_printouts(out)


def comment_printouts(lines: list[Line]) -> list[Line]:
    """Printouts written as comments in code (``# tensor([[0.06, 0.47],`` and the comment
    lines that continue it until its brackets close) are ``output``: the ``#`` marks and a
    trailing ``# Output 1`` are read as spaces, so the printout is read as printed."""
    out, depth, prev = [], 0, None
    for line in lines:
        if prev is None or line.kind != "code" or line.number != prev.number + 1:
            depth = 0
        prev = line
        lead = len(line.text) - len(line.text.lstrip())
        body = line.text[lead + 1:]
        if line.kind != "code" or not line.text.startswith("#", lead) or not (
                depth > 0 or _COMMENT_PRINTOUT.match(body)):
            depth = 0
            out.append(line)
            continue
        cut = body.find("#")
        cut = len(body) if cut < 0 else cut
        depth += sum(body.count(c, 0, cut) for c in "([") - sum(body.count(c, 0, cut) for c in ")]")
        text = line.text[:lead] + " " + body[:cut] + " " * (len(body) - cut)
        out.append(dataclasses.replace(line, text=text, kind="output"))
    return out


def unbold(line: str) -> str:
    """``line`` with its ``**emphasis**`` marks as spaces; ``x**2``, ``2 ** 3`` and
    ``f(**kw)`` are left alone."""
    if "**" not in line:
        return line
    return _BOLD.sub(lambda m: "  " + m.group(1) + "  ", line)


def raw_notebook_lines(lines: list[str]) -> list[Line] | None:
    """The article lines of a notebook's raw JSON pasted as a file (``lines``: the file's;
    :mod:`.raw_notebook`), numbered as in the file, each at its source columns; None when
    ``lines`` are not one."""
    found = raw_notebook.cells(lines)
    if found is None:
        return None
    md = read_lines([text if kind == "markdown" else "" for text, _, kind in found])
    out = []
    for k, ((text, cols, kind), line) in enumerate(zip(found, md)):
        if kind == "markdown":
            shown = line.columns or tuple(range(1, len(line.text) + 1))
            out.append(dataclasses.replace(line, columns=tuple(
                cols[c - 1] if 0 < c <= len(cols) else (cols[-1] + 1 if cols else 1) for c in shown)))
        else:
            out.append(Line(k + 1, text, "text" if kind == "json" else kind, cols or None))
    return comment_printouts(out)


def read(text: str, path: str = "") -> list[Line]:
    """The lines of a Markdown file, numbered from 1 (a notebook's raw JSON pasted into one:
    that notebook's lines, :func:`raw_notebook_lines`)."""
    lines = source_lines(text)
    return nest(mark(raw_notebook_lines(lines) or read_lines(lines)))
