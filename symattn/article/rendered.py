"""Equations drawn as images: the LaTeX a rendering service draws, read as the article's math.

A Markdown page written before its host rendered math shows each equation as an image whose
address carries the LaTeX, percent-encoded (``![Q](https://latex.codecogs.com/svg.latex?Q%20%3D%20…)``,
``<img src="https://render.githubusercontent.com/render/math?math=…">``). A reader sees the
equation; so does symattn: the image's markup is replaced by the decoded LaTeX, each character
at the source column of its first encoded character (digits and ``.`` are never encoded, so a
number keeps its own columns and a fix writes over them in place).
"""

from __future__ import annotations

import re
from dataclasses import replace

from .source import Line

# Services that draw the LaTeX of their query string (the address up to the formula).
_SERVICE = (r"https?://(?:latex\.codecogs\.com/[\w.]+(?:\.latex|\.image|\.download)?\?"
            r"|render\.githubusercontent\.com/render/math\?(?:[^\s)\"'&]*&)*math="
            r"|chart\.apis\.google\.com/chart\?(?:[^\s)\"'&]*&)*chl="
            r"|chart\.googleapis\.com/chart\?(?:[^\s)\"'&]*&)*chl="
            r"|i\.upmath\.me/(?:svg|png)/"
            r"|math\.now\.sh\?(?:[^\s)\"'&]*&)*from=)")
_IMAGE = re.compile(rf"!\[[^\]]*\]\(\s*{_SERVICE}(?P<tex>[^\s)\"']*)[^)]*\)"
                    rf"|<img\b[^>]*?\bsrc\s*=\s*[\"']{_SERVICE}(?P<tex2>[^\"'\s]*)[\"'][^>]*>", re.I)
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")


def drawn(line: Line) -> Line:
    """``line`` with each equation image replaced by its LaTeX (``math`` when the line is only
    such images); the line itself when it has none."""
    text = line.text
    if "http" not in text or _IMAGE.search(text) is None:
        return line
    cols = list(line.columns) if line.columns is not None else list(range(1, len(text) + 1))
    out, at, rest = [], [], 0
    for m in _IMAGE.finditer(text):
        group = "tex" if m.group("tex") is not None else "tex2"
        out.append(text[rest:m.start()])
        at += cols[rest:m.start()]
        tex, tex_cols = _decoded(m.group(group), cols[m.start(group):m.end(group)])
        out.append(" " + tex + " ")
        at += [cols[m.start()]] + tex_cols + [cols[m.end() - 1]]
        rest = m.end()
    out.append(text[rest:])
    at += cols[rest:]
    new = "".join(out)
    only = not _IMAGE.sub("", text).strip()
    return replace(line, text=new, columns=tuple(at), kind="math" if only else line.kind)


def _decoded(tex: str, cols: list) -> tuple[str, list]:
    """The percent-decoded ``tex`` (UTF-8), each character with the column of its first byte."""
    data, where, k = bytearray(), [], 0
    while k < len(tex):
        m = _ESCAPE.match(tex, k)
        if m:
            data.append(int(m.group(1), 16))
            where.append(cols[k])
            k = m.end()
        else:
            raw = tex[k].encode("utf-8")
            data += raw
            where += [cols[k]] * len(raw)
            k += 1
    text = data.decode("utf-8", errors="replace")
    out_cols, byte = [], 0
    for ch in text:
        out_cols.append(where[min(byte, len(where) - 1)] if where else 1)
        byte += len(ch.encode("utf-8")) if ch != "\ufffd" else 1
    return text, out_cols
