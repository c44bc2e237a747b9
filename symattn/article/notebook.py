"""A Jupyter notebook (``.ipynb``) as article lines, read with nbformat.

Cells are counted from 1 over all cells, as Jupyter shows them. Markdown cells read like a
Markdown file (:mod:`symattn.article.markdown`); code-cell sources are ``code``; outputs
(``stream`` text and the ``text/plain`` of ``execute_result``/``display_data``: PyTorch
``tensor(...)``, NumPy ``array(...)``, lists, ``print`` lines) are ``output`` (a display whose
plain text is only an object's repr, a styled pandas table, is read from its HTML), and so is a
printout written as comments in a code cell (``# tensor([[…``); raw cells are ``text``.
Error tracebacks are not read.

A Line's ``number`` (a record's ``line``) is a stable integer: with ``S = 1000``,

* line ``j`` (1-based) of cell ``c``'s source is ``S*c + j``  (``where = "cell c, line j"``),
* line ``k`` (1-based, counted over all of the cell's outputs) of its outputs is
  ``S*c + S/2 + k``  (``where = "cell c, output, line k"``),

so cell 3, line 2 is 3002 and the first output line of cell 3 is 3501. When a cell has 500
source or output lines or more, ``S`` is the next power of ten that keeps every number of
the notebook apart (``S/2`` above the longest); ``S`` is the same for the whole notebook.
"""

from __future__ import annotations

import dataclasses
import json
import re
import warnings

from ..errors import SpecError
from ..numbers import shown
from . import html, markdown
from .latex import source_lines
from .nesting import mark as nest
from .quiet import mark
from .source import Line


def _text(value) -> str:
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


def output_values(cell) -> list:
    """The JSON values (a string or a list of strings) of a code cell's outputs that are
    read, in order (:func:`outputs`)."""
    return [value for value, _ in outputs(cell)]


_REPR = re.compile(r"\s*<[\w.]+(?: object)? at 0x[0-9a-fA-F]+>\s*")   # <pandas…Styler at 0x27…>


def outputs(cell) -> list[tuple]:
    """(JSON value, is it HTML) of each output of a code cell that is read, in order:
    ``stream`` text and the ``text/plain`` of results and displays, or their ``text/html``
    where the plain text is only an object's repr (a styled pandas table)."""
    values = []
    found = cell.get("outputs")
    for out in found if isinstance(found, list) else []:
        kind = out.get("output_type") if isinstance(out, dict) else None
        data = out.get("data") if kind in ("execute_result", "display_data") else None
        if kind == "stream":
            values.append((out.get("text"), False))
        elif isinstance(data, dict):
            page = data.get("text/html")
            if page and _REPR.fullmatch(_text(data.get("text/plain"))):
                values.append((page, True))
            else:
                values.append((data.get("text/plain"), False))
    return values


def _output_lines(cell) -> list[str]:
    lines: list[str] = []
    for value in output_values(cell):
        text = _text(value)
        if text:
            lines.extend(source_lines(text))
    return lines


def _output_reading(cell, first: int, c: int) -> list[Line]:
    """The Lines of a code cell's outputs, its k-th output line numbered ``first + k``:
    plain text as ``output``; HTML through the HTML reader (a table's rows as ``table``)."""
    out: list[Line] = []
    k0 = 0
    for value, is_html in outputs(cell):
        text = _text(value)
        if not text:
            continue
        lines = source_lines(text)
        if is_html:
            for ln in html.read(text):
                out.append(dataclasses.replace(
                    ln, number=first + k0 + ln.number, where=f"cell {c}, output, line {k0 + ln.number}",
                    lines=None if ln.lines is None else tuple(first + k0 + n for n in ln.lines)))
        else:
            out += [Line(first + k0 + k, s, "output", None, f"cell {c}, output, line {k0 + k}")
                    for k, s in enumerate(lines, start=1)]
        k0 += len(lines)
    return out


def scale_of(cells) -> int:
    longest = max([0] + [max(len(source_lines(_text(c.get("source")))), len(_output_lines(c)))
                         for c in cells])
    scale = 1000
    while scale // 2 <= longest:
        scale *= 10
    return scale


def parse(text: str, path: str):
    """The notebook as nbformat's v4 node (a one-line SpecError if it is not one)."""
    import nbformat
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SpecError(f"not a notebook: invalid JSON ({e.msg}, column {e.colno})",
                        where=f"{path}:{e.lineno}", hint="save it again from Jupyter") from None
    except RecursionError:
        raise SpecError("not a notebook: JSON nested too deeply", where=path) from None
    _no_lone_surrogate(data, text, path)
    if not isinstance(data, dict) or not isinstance(data.get("cells", data.get("worksheets")), list):
        raise SpecError("not a Jupyter notebook: no list of cells", where=f"{path}:1")
    try:
        with warnings.catch_warnings():              # nbformat's notes on ids are not ours
            warnings.simplefilter("ignore")
            return nbformat.reads(text, as_version=4, capture_validation_error={})
    except Exception as e:  # noqa: BLE001 - nbformat raises many kinds for a malformed file
        if isinstance(data.get("cells"), list):
            return data          # a v4 notebook with a missing key: its cells are still read
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise SpecError(f"not a Jupyter notebook nbformat can read: {shown(first, 200)}",
                        where=f"{path}:1") from None


_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"      # a lone half
                     r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def _no_lone_surrogate(data, text: str, path: str) -> None:
    """JSON may escape half of a UTF-16 pair (``"\\ud800"``): no Unicode text, so nothing
    could print or write it. Refused at its line, as invalid UTF-8 is."""
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack += list(x.keys()) + list(x.values())
        elif isinstance(x, list):
            stack += x
        elif isinstance(x, str) and _SURROGATE.search(x):
            m = _ESCAPE.search(text)
            line = text.count("\n", 0, m.start()) + 1 if m else 1
            raise SpecError("not a notebook of Unicode text: a JSON string holds a lone "
                            f"surrogate ({shown(_SURROGATE.search(x).group())})",
                            where=f"{path}:{line}", hint="save it again from Jupyter")


def read(text: str, path: str = "") -> list[Line]:
    """The lines of every cell and output, numbered as the module docstring says (a piece
    of a notebook's JSON, no notebook itself: its lines as :mod:`.raw_notebook` reads them)."""
    try:
        cells = parse(text, path).get("cells", [])
    except SpecError:
        raw = markdown.raw_notebook_lines(source_lines(text))
        if raw is None:
            raise
        return nest(mark(raw))
    scale = scale_of([c for c in cells if isinstance(c, dict)])
    out: list[Line] = []
    for c, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            continue
        base = scale * c
        src = source_lines(_text(cell.get("source")))
        kind = cell.get("cell_type")
        if kind == "markdown":
            out += markdown.read_lines(src, lambda k, b=base: b + k + 1,
                                       lambda k, c=c: f"cell {c}, line {k + 1}")
        else:
            out += markdown.comment_printouts([
                Line(base + j, s, "code" if kind == "code" else "text", None, f"cell {c}, line {j}")
                for j, s in enumerate(src, start=1)])
        if kind == "code":
            out += _output_reading(cell, base + scale // 2, c)
    return nest(mark(out))
