"""A notebook's raw JSON pasted as text: each line of a cell a JSON string of its own.

Copied from a notebook's raw view, a cell's lines stand one a line as JSON strings
(``"Q = XW_Q = \\\\begin{bmatrix}\\n",``) among the JSON that holds them (``"cell_type":
"markdown",``, brackets). When a text holds three such strings or more, some ending in an
escaped newline, and other lines than these and the JSON's (brackets, ``"key": value``)
number at most a tenth of them, the text is read as the notebook it is a piece of: each
string as the text it encodes (decoded here, escape by escape, so every character keeps its
source column; nothing is evaluated), at its own line, and the JSON around them as blank
lines. A string's kind is the one its place says: in a cell whose ``"cell_type"`` is
``"code"`` its source is ``code``; under ``"outputs"`` it is ``output``; otherwise (a
Markdown cell, or a piece that starts inside a cell) it is Markdown, read as a notebook's
Markdown cell is (:func:`symattn.article.markdown.raw_notebook_lines`).
"""

from __future__ import annotations

import re

_STRING = re.compile(r'(\s*)"((?:[^"\\]|\\.)*)"\s*,?\s*')
_JSON = re.compile(r'\s*(?:[{}\[\]]\s*,?|"(?:[^"\\]|\\.)*"\s*:.*)\s*')     # brackets, "key": value
_CELL_TYPE = re.compile(r'\s*"cell_type"\s*:\s*"(\w+)"')
_OUTPUTS = re.compile(r'\s*"outputs"\s*:')
_SOURCE = re.compile(r'\s*"source"\s*:')
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _decoded(body: str, first: int) -> tuple[str, tuple] | None:
    """The text a JSON string's ``body`` (between its quotes, starting at source column
    ``first``) encodes, and the source column of each of its characters; None when an
    escape is not JSON's."""
    out, cols, k = [], [], 0
    while k < len(body):
        c = body[k]
        if c != "\\":
            out.append(c)
            cols.append(first + k)
            k += 1
            continue
        e = body[k + 1:k + 2]
        if e in _SIMPLE:
            out.append(_SIMPLE[e])
            cols.append(first + k)
            k += 2
            continue
        code = body[k + 2:k + 6]
        if e != "u" or not re.fullmatch(r"[0-9a-fA-F]{4}", code):
            return None
        n, width = int(code, 16), 6
        low = body[k + 6:k + 12]
        if 0xD800 <= n < 0xDC00 and re.fullmatch(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}", low):
            n, width = 0x10000 + ((n - 0xD800) << 10) + (int(low[2:], 16) - 0xDC00), 12
        if 0xD800 <= n < 0xE000:
            return None                   # half of a UTF-16 pair: no text
        out.append(chr(n))
        cols.append(first + k)
        k += width
    return "".join(out), tuple(cols)


def strings(lines: list[str]) -> dict | None:
    """Line index (0-based) -> (decoded text without its newline, source columns) of each
    JSON string line, when ``lines`` are a notebook's raw JSON (the module docstring's
    rule); else None."""
    found, newline = {}, False
    for k, s in enumerate(lines):
        m = _STRING.fullmatch(s)
        if m is None:
            continue
        got = _decoded(m.group(2), len(m.group(1)) + 2)
        if got is None:
            continue
        text, cols = got
        newline |= text.endswith("\n")
        text = text.removesuffix("\n").removesuffix("\r")
        found[k] = (text, cols[:len(text)])
    other = sum(1 for k, s in enumerate(lines) if s.strip() and k not in found and not _JSON.fullmatch(s))
    if not newline or len(found) < 3 or 10 * other > len(found):
        return None
    return found


def _kinds(lines: list[str], found: dict) -> list[str]:
    """For each line, ``markdown``, ``code``, ``output`` (a string's, by its place) or
    ``json`` (the structure around the strings)."""
    cell, part, out = "markdown", "source", []
    for k, s in enumerate(lines):
        if k in found:
            out.append("output" if part == "outputs" else "code" if cell == "code" else "markdown")
            continue
        if m := _CELL_TYPE.match(s):
            cell, part = m.group(1), "source"
        elif _OUTPUTS.match(s):
            part = "outputs"
        elif _SOURCE.match(s):
            part = "source"
        out.append("json")
    return out


def cells(lines: list[str]) -> list[tuple[str, str, tuple]] | None:
    """(text, source columns, kind) of each line of a notebook's raw JSON (``lines``: the
    file's), the kind ``markdown``, ``code``, ``output`` or ``json`` (the structure around
    the strings: no text); None when ``lines`` are not one."""
    found = strings(lines)
    if found is None:
        return None
    return [(*found[k], kind) if kind != "json" else ("", (), kind) for k, kind in enumerate(_kinds(lines, found))]
