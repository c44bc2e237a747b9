"""Fixing a notebook in its JSON text: only the characters of the wrong numbers change.

The notebook is parsed once more with the place of every string literal kept
(:func:`spans`); a record's line names a cell and a line of its source or outputs
(:mod:`symattn.article.notebook` numbers them), its column a character of that line, and
the fix rewrites those characters inside the literal, escaped as the file escapes
(``\\u2212`` for ``−`` in a file written with ASCII escapes). The file stays valid JSON
and keeps every other byte.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring

from ..errors import SpecError, SymattnError
from . import notebook
from .edit import splice
from .latex import source_lines

_EOL = re.compile(r"\r\n|\r|\n")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_WS = re.compile(r"[ \t\n\r]*")


class JStr(str):
    """A JSON string value that knows where its literal stands (``a``: the opening quote,
    ``b``: after the closing one)."""
    a: int
    b: int


def spans(text: str):
    """The JSON value of ``text``, each string a :class:`JStr` (raises ValueError)."""
    value, end = _value(text, _WS.match(text, 0).end())
    if _WS.match(text, end).end() != len(text):
        raise ValueError("extra data")
    return value


def _value(s: str, i: int):
    c = s[i:i + 1]
    if c == '"':
        v, end = scanstring(s, i + 1)
        out = JStr(v)
        out.a, out.b = i, end
        return out, end
    if c in "[{":
        return _container(s, i)
    for word, v in (("true", True), ("false", False), ("null", None)):
        if s.startswith(word, i):
            return v, i + len(word)
    m = _NUMBER.match(s, i)
    if not m:
        raise ValueError(f"unexpected character at {i}")
    return m.group(), m.end()


def _container(s: str, i: int):
    obj, close = (({}, "}") if s[i] == "{" else ([], "]"))
    i = _WS.match(s, i + 1).end()
    if s[i:i + 1] == close:
        return obj, i + 1
    while True:
        if isinstance(obj, dict):
            key, i = scanstring(s, i + 1)
            i = _WS.match(s, i).end()
            if s[i:i + 1] != ":":
                raise ValueError(f"expected ':' at {i}")
            value, i = _value(s, _WS.match(s, i + 1).end())
            obj[key] = value
        else:
            value, i = _value(s, i)
            obj.append(value)
        i = _WS.match(s, i).end()
        if s[i:i + 1] == close:
            return obj, i + 1
        if s[i:i + 1] != ",":
            raise ValueError(f"expected ',' at {i}")
        i = _WS.match(s, i + 1).end()


def _raw_offsets(text: str, lit: JStr) -> list[int]:
    """For each character of the decoded string (and its end), its offset in ``text``."""
    out, i, end = [], lit.a + 1, lit.b - 1
    while i < end:
        out.append(i)
        if text[i] != "\\":
            i += 1
        elif text[i + 1] != "u":
            i += 2
        else:
            high = int(text[i + 2:i + 6], 16)
            i += 12 if 0xD800 <= high < 0xDC00 and text[i + 6:i + 8] == "\\u" else 6
    return out + [end]


def _pieces(value) -> list[JStr]:
    if isinstance(value, JStr):
        return [value]
    return [v for v in value if isinstance(v, JStr)] if isinstance(value, list) else []


def _line_place(value, j: int, column: int) -> tuple[JStr, int]:
    """The literal and decoded offset of column ``column`` of line ``j`` (1-based) of the
    text that ``value`` (a string or list of strings) joins to."""
    pieces = _pieces(value)
    joined = "".join(pieces)
    starts = [0] + [m.end() for m in _EOL.finditer(joined)]
    at = starts[j - 1] + column - 1
    for p in pieces:
        if at < len(p):
            return p, at
        at -= len(p)
    raise IndexError(column)


def _place(cells: list, scale: int, number: int, column: int) -> tuple[JStr, int]:
    c, rest = divmod(number, scale)
    cell = cells[c - 1]
    if rest <= scale // 2:
        return _line_place(cell.get("source"), rest, column)
    k = rest - scale // 2
    for value in notebook.output_values(cell):
        n = len(source_lines("".join(_pieces(value)))) if "".join(_pieces(value)) else 0
        if k <= n:
            return _line_place(value, k, column)
        k -= n
    raise IndexError(number)


def apply_notebook(text: str, fixes: list, lines: list) -> str:
    """The notebook's JSON text with ``fixes`` applied inside their string literals."""
    try:
        data = spans(text)
        cells = data["cells"]
        scale = notebook.scale_of([c for c in cells if isinstance(c, dict)])
    except (ValueError, KeyError, TypeError, RecursionError):
        raise SpecError("only a version 4 notebook (a list of cells) can be fixed") from None
    ascii_only = text.isascii()
    out = []
    for f in fixes:
        start = f.number.start + len(f.line.text[f.number.start:f.number.end]) \
            - len(f.line.text[f.number.start:f.number.end].lstrip())
        try:
            lit, at = _place(cells, scale, f.line.line_at(start), f.line.column(start))
        except (IndexError, KeyError, TypeError, AttributeError):
            raise SpecError("the number is not where the notebook was read", where=f.where) from None
        if lit[at:at + len(f.old)] != f.old:
            raise SpecError("the notebook does not print the number there", where=f.where)
        offsets = _raw_offsets(text, lit)
        f_escaped = json.dumps(f.new, ensure_ascii=ascii_only)[1:-1]
        out.append((offsets[at], offsets[at + len(f.old)], _Escaped(f_escaped)))
    return splice(text, out)


class _Escaped:
    """A replacement already escaped for the JSON literal (splice reads ``new``)."""

    def __init__(self, new: str):
        self.new = new


def json_place(path: str, number: int, column: int | None) -> tuple[int, int] | None:
    """The 1-based line and column in the ``.ipynb`` file of a notebook line's ``column``
    (a record's place), or None when the file cannot be read so."""
    from .read import read_text
    try:
        text = read_text(path)
        cells = spans(text)["cells"]
        lit, at = _place(cells, notebook.scale_of([c for c in cells if isinstance(c, dict)]),
                         number, column or 1)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError, SymattnError):
        return None
    offset = _raw_offsets(text, lit)[at]
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
