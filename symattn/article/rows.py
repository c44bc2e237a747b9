"""Matrices printed one row a line, under or beside their names (for the article reading,
:func:`symattn.article.matrices.find`)::

    Q =              W_Q =   W_K =
    [ 1.0  0.5 ]     | 1  0 |  | 0  1 |
    [ 0.0  1.0 ]     | 0  1 |  | 1  0 |

several side by side, a row's token on its right (``[ 1  0  1 ]   The``). Nothing is
evaluated: cells go through :func:`symattn.article.matrices.number`.
"""

from __future__ import annotations

import re

from ..spec.latex_import import latex_name
from .cells import Printed, name_above, number
from .source import Line


_ROW = re.compile(r"(?<![\[\w])\[\s*([^\[\]]*?)\s*\](?![\]\w(])|(?<![|\w])\|\s*([^|]*?)\s*\|(?![|\w])")
_IDENTIFIER = r"[A-Za-z][A-Za-z0-9_']{0,23}(?:\^T|ᵀ)?"
_HEAD = re.compile(r"(" + _IDENTIFIER + r")\s*[=:]\s*")
_ARROW = r"(?:→|->|=>|⟶|⇒)"
_BETWEEN = re.compile(rf"\s{_ARROW}\s+(?:[A-Za-z]\w*\s+{_ARROW}\s)?")   # ``[…]  →   […]``, ``[…] → softmax → […]``
_CAPTION = re.compile(r"^\s*[^\W\d_][^\W_]*(?: [^\W\d_][^\W_]*){0,3}:\s*(?=\S|$)")   # ``스케일링 전:`` opening the line
_NOTE = re.compile(r"\([^()\n]{1,40}\)")                # ``(one-hot)`` after the rows


def _body(m: re.Match) -> str:
    """What a row ``[…]`` or ``|…|`` found by :data:`_ROW` holds between its marks."""
    return m.group(1) if m.group(1) is not None else m.group(2)


def _segment(text: str, m: re.Match):
    """(start column, name on its left or '', [(v, t)]) of a row ``[1.0  0.5]`` or
    ``| 1  0 |`` at ``m``, or None when it holds anything but numbers (or just one)."""
    body = _body(m)
    cells = [c for c in re.split(r"[,\s]+", body.strip()) if c]
    nums = [number(c) for c in cells]
    if len(cells) < 2 or not all(nums):
        return None
    left = text[:m.start()]
    name = re.search(r"(" + _IDENTIFIER + r")\s*=\s*$", left)
    start = name.start() if name else m.start()
    return start, (latex_name(name.group(1)) if name else ""), nums


def _row_numbers(line: Line) -> list | None:
    """The rows a line prints side by side, or None when the line is anything else (a
    nested list's ``[[`` belongs to :func:`bracket_lists`)."""
    text = line.text
    if "[[" in text or "]]" in text or len(text) > 2000:
        return None
    segs, end = [], 0
    for m in _ROW.finditer(text):
        if _marks(_body(m)):
            end = m.end() if not re.search(r"\S", text[end:m.start()]) else end
            continue                             # ``[ ✓  ·  · ]``: a mask drawn beside the rows
        seg = _segment(text, m)
        gap = text[end:seg[0] if seg else m.start()]
        if not end and "," in m.group(0) and re.search(_ARROW, gap):
            return None                          # ``the -> [0.42, 0.16]``: a vector its token names
        gap = _LEFT.sub("", _CAPTION.sub("", gap)) if not end else gap
        if seg is None or re.search(r"[^\s,;&]", _HEAD.sub("", _BETWEEN.sub(" ", gap))):
            return None                          # prose or code around the rows
        segs.append(seg)
        end = m.end()
    rest = text[end:].strip(" ,;")
    if not segs or (rest and not _NOTE.fullmatch(rest) and (len(segs) > 1 or not (
            _TRAIL.fullmatch(rest) or _FREE_NOTE.fullmatch(text[end:].rstrip())))):
        return None
    return segs


_TOKEN = r"[^\W\d][\w'.-]{0,23}|\"[^\"\n]{1,24}\"|'[^'\n]{1,24}'"     # a row's token: a word, or quoted
_TRAIL = re.compile(rf"(?:(?:←|<-|#|//)\s*([^\n]{{1,24}})|({_TOKEN})"
                    r"|\([^()\n]{1,40}\))")     # a token, after an arrow or a comment mark; a note


_LEFT = re.compile(rf"^\s*(?P<name>{_TOKEN})(?:\s*\(\s*(?P<token>{_TOKEN})\s*\))?"
                   rf"(?:\s*{_ARROW})?\s+$")   # ``cat  [ 1.14 …]``, ``Q₁("cat")  [ 2.1 …]``, ``"cat" →  [``
_FREE_NOTE = re.compile(r"\s{2,}(?=[^\W\d_]|[\"'])[^\d\[\]|=<>]{1,48}")   # ``[ 1.00  0.00 ]    "cat" only sees itself``
_NUMBER_PART = re.compile(r"[\w.+∞−-]")


def _marks(body: str) -> bool:
    """Is a row's body marks alone (``✓  ·  ·``), no number or word in it?"""
    return bool(body.strip()) and not _NUMBER_PART.search(body)


def _row_label(line: Line) -> str | None:
    """The token a row printed alone on its line names before it (``From: cat  [ 1.14
    1.90 ]``, after a caption) or after it (``[ 1  0  1  0 ]   The``, ``[0.1 0.2]  ← Token
    A``), or None (none, or a note: ``(FFN first layer)``)."""
    text = line.text
    m = list(_ROW.finditer(text))
    left = _CAPTION.sub("", text[:m[0].start()]) if m else ""
    named = _LEFT.fullmatch(left) if left.strip() else None
    if named:
        return (named.group("token") or named.group("name")).strip("\"'")
    rest = text[m[-1].end():].strip(" ,;") if m else ""
    t = _TRAIL.fullmatch(rest) if rest else None
    label = t and (t.group(1) or t.group(2))
    return label.strip("\"' ") if label else None


def _other_layout(text: str) -> bool:
    """A line with a row of numbers among other things (``[1, 0] x [0, 1] = [0, 1]``): the
    rows next to it belong to a layout this reader does not take."""
    return any(_segment(text, m) for m in _ROW.finditer(text)) \
        and _row_numbers(Line(0, text)) is None


def _heads(text: str) -> list[tuple[int, str]] | None:
    """``Q =        K =`` over rows printed side by side: (column, name) each, or None."""
    if not text.strip() or _HEAD.sub("", text).strip():
        return None
    return [(m.start(), latex_name(m.group(1))) for m in _HEAD.finditer(text)]


def row_runs(lines: list[Line]) -> list[tuple[int, list]]:
    """Runs of lines that print rows of numbers and nothing else, one row of each matrix a
    line (two rows or more, no wider layout around them): (index of the first line in
    ``lines``, the rows of each line as :func:`_row_numbers` reads them)."""
    out, k = [], 0
    while k < len(lines):
        first = _row_numbers(lines[k]) if lines[k].kind != "math" else None
        if not first:
            k += 1
            continue
        run = [first]
        while k + len(run) < len(lines) and lines[k + len(run)].number == lines[k].number + len(run):
            nxt = _row_numbers(lines[k + len(run)])
            if not nxt or [len(s[2]) for s in nxt] != [len(s[2]) for s in first] \
                    or any(s[1] for s in nxt):
                break
            run.append(nxt)
        above = lines[k - 1].text if k and lines[k - 1].number == lines[k].number - 1 else ""
        after = k + len(run)
        below = lines[after].text if after < len(lines) and \
            lines[after].number == lines[k].number + len(run) else ""
        if len(run) >= 2 and not _other_layout(above) and not _other_layout(below) \
                and not _steps(lines[k:k + len(run)], run):
            out.append((k, run))
        k += len(run)
    return out


def stacked_rows(lines: list[Line]) -> tuple[list[Printed], set[int]]:
    """Matrices printed one row a line, under or beside their names (``Q =`` then ``[1.0
    0.5]`` rows, or ``| 1  0 |``), several side by side: the matrices and the article lines
    they take."""
    out, used = [], set()
    for k, run in row_runs(lines):
        above = lines[k - 1].text if k and lines[k - 1].number == lines[k].number - 1 else ""
        labels = tuple(_row_label(lines[k + j]) for j in range(len(run)))
        rows = labels if all(labels) and len(set(labels)) == len(labels) and len(run[0]) == 1 else None
        out += _stacked(run, _heads(above), name_above(above) if above else None, lines[k].number, rows)
        used |= {lines[k + j].number for j in range(len(run))}
    return out, used


_STEP = re.compile(r"\b(?:before|after|soft-?max|relu|exp|sqrt|layer ?norm\w*|scaled?|normali[sz]ed)\b", re.I)


def _steps(lines: list[Line], run: list) -> bool:
    """Are the rows one vector a line, each under a caption of its own, one of which names a
    step (``Before softmax: [2.1, -∞]`` over ``After softmax: [1.0, 0.0]``, ``Scaled: […]``
    over ``Softmax: […]``)? Then each is a vector of its own (read as a printout's captioned
    list), not a row of one matrix."""
    captions = [_CAPTION.match(ln.text) for ln in lines]
    if len(run[0]) != 1 or not all(captions):
        return False
    said = [c.group().strip().rstrip(":").strip().lower() for c in captions]
    return len(set(said)) == len(said) and any(_STEP.search(c) for c in said)


def _stacked(run: list, heads, caption: str | None, line: int, rows: tuple | None = None) -> list[Printed]:
    cols = len(run[0])
    names = [s[1] for s in run[0]]
    if heads and len(heads) == cols:
        names = [n or h for n, (_, h) in zip(names, heads)]
    elif cols == 1 and not names[0] and caption:
        names = [caption]
    out = []
    for j in range(cols):
        nums = [r[j][2] for r in run]
        values = tuple(tuple(v for v, _ in row) for row in nums)
        texts = tuple(tuple(t for _, t in row) for row in nums)
        out.append(Printed(names[j] or "", line, values, texts, rows, "table"))
    return out
