"""Fixing an article: every wrong printed number replaced by its correct print, in place.

A record (``symattn check --article``) names a number by its article line and column; the
fix finds that number again on the reader's line (:func:`symattn.article.tokens.numbers_in`),
writes ``record.expected`` in the article's form (:func:`symattn.article.reprint.reprint`)
over the number's characters in the *source* file and touches no other byte. A record
without a column (a hand-written claim) is placed by its value on its line, when that is
unambiguous. The fixed text is read again and each line must print the same numbers with
only the fixed ones changed, or nothing is written.

Notebooks (``.ipynb``) are edited in their JSON text (:mod:`symattn.article.fix_notebook`),
so the notebook stays valid and every other byte stays as it was.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..errors import SpecError
from ..numbers import shown
from .edit import splice
from .reprint import Unprintable, reprint
from .source import Line
from .tokens import Number, numbers_in

_EOL = re.compile(r"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


@dataclass
class Fix:
    """One replacement: on article ``line`` (a record's line) at reader index ``start:end``
    of that Line's text, ``old`` becomes ``new``."""
    line: Line
    number: Number
    old: str
    new: str
    record: object

    @property
    def where(self) -> str:
        return f"{self.line.place()}, column {self.number.column}"


@dataclass
class Plan:
    fixes: list
    skipped: list          # (record, why) for numbers that are not fixed


def wanted(records: list, carried: bool = False) -> list:
    """The records to fix: the wrong ones, and the carried ones with ``carried``."""
    kinds = ("wrong", "carried") if carried else ("wrong",)
    return [r for r in records if r.verdict in kinds]


def plan(lines: list[Line], records: list, fixing: list) -> Plan:
    """The fixes of ``fixing`` (records of this article) on ``lines`` (its reader lines);
    ``records`` are all of the article's records (to place those without a column)."""
    by_line: dict = defaultdict(list)
    for ln in lines:
        for number in ln.source_lines():
            by_line[number].append(ln)
    minus = _minus(lines)
    out = Plan([], [])
    for r in fixing:
        found = locate(by_line.get(r.line, []), r, records)
        if isinstance(found, str):
            out.skipped.append((r, found))
            continue
        line, n = found
        old = line.text[n.start:n.end].strip()
        try:
            new = reprint(old, r.expected, minus)
        except Unprintable as e:
            out.skipped.append((r, e.message))
            continue
        if new != old:
            out.fixes.append(Fix(line, n, old, new, r))
    return out


def _minus(lines: list[Line]) -> str:
    """The minus sign the article prints most before digits."""
    text = "\n".join(ln.text for ln in lines)
    uni = len(re.findall(r"[−－]\d", text))
    return "−" if uni > len(re.findall(r"(?<![\w\-])-\d", text)) else "-"


def locate(here: list[Line], r, records: list):
    """(Line, Number) of record ``r`` on its lines, or why it is not found."""
    numbers = [(ln, n) for ln in here for n in numbers_in(ln) if not n.neg_inf and n.line == r.line]
    if r.column is not None:
        at = [(ln, n) for ln, n in numbers if n.column == r.column]
        return at[0] if len(at) == 1 else f"no number at line {r.line}, column {r.column}"
    from ..claims.printed import parse_number
    value = parse_number(r.printed).value
    same = [(ln, n) for ln, n in numbers if n.value == value]
    peers = [x for x in records if x.line == r.line and x.column is None and x.source == r.source
             and parse_number(x.printed).value == value]
    if not same or len(same) != len(peers):
        return f"line {r.line} prints {shown(r.printed, 40)} {len(same)} times: give the claim's column"
    return same[next(k for k, x in enumerate(peers) if x is r)]


# -- the source text ----------------------------------------------------------------------
def apply_text(text: str, fixes: list, html: bool = False) -> str:
    """``text`` (a Markdown, LaTeX, HTML or plain-text file) with ``fixes`` applied."""
    starts = [0] + [m.end() for m in _EOL.finditer(text)]
    spans = []
    for f in fixes:
        a, b = _source_columns(f, text, starts, html)
        spans.append((a, b, f))
    return splice(text, spans)


def _source_columns(f: Fix, text: str, starts: list, html: bool) -> tuple[int, int]:
    """Offsets in ``text`` of the number's characters (HTML: through an entity at the end)."""
    ln, n = f.line, f.number
    start = n.start + (len(ln.text[n.start:n.end]) - len(ln.text[n.start:n.end].lstrip()))
    last = start + len(f.old) - 1
    number = ln.line_at(start)
    base = starts[number - 1] if 0 < number <= len(starts) else None
    if base is None:
        raise SpecError(f"line {number} is not in the file", where=ln.place())
    a, z = base + ln.column(start) - 1, base + ln.column(last) - 1
    width = 1
    if html and text[z:z + 1] == "&":
        semi = text.find(";", z)
        width = semi - z + 1 if 0 < semi - z < 12 else 1
    if not html and text[a:z + width] != f.old:
        raise SpecError(f"the source does not print {shown(f.old, 40)} there", where=f.where)
    return a, z + width


def verify(before: list[Line], after: list[Line], fixes: list) -> None:
    """Each line of ``after`` prints the numbers of ``before`` with only ``fixes`` changed
    (to their records' expected values)."""
    from ..numbers import parse_exact
    changed = {(f.number.line, f.number.column): parse_exact(f.record.expected) for f in fixes}
    old, new = _values(before), _values(after)
    if set(old) != set(new):
        raise SpecError("the fixed article would not have the same lines; nothing was written")
    for number, values in old.items():
        want = [changed.get((number, col), v) for col, v in values]
        if [v for _, v in new[number]] != want:
            raise SpecError("the fixed line would not print what was meant; nothing was written",
                            where=f"line {number}")


def _values(lines: list[Line]) -> dict:
    out: dict = defaultdict(list)
    for ln in lines:
        for n in numbers_in(ln):
            if not n.neg_inf:
                out[n.line].append((n.column, n.value))
    return out


def fixed_bytes(path: str, records: list, fixing: list) -> tuple[bytes, bytes, Plan]:
    """The article's bytes, and its bytes with ``fixing`` applied, and the plan."""
    from .read import read_bytes, reader_for
    from ..spec.load import decode
    name = shown(str(path), 200)
    raw = read_bytes(str(path), name)
    bom = _BOM if raw.startswith(_BOM) else b""
    text = decode(raw[len(bom):], name)
    reader = reader_for(str(path))
    lines = reader.read(text, name)
    p = plan(lines, records, fixing)
    if not p.fixes:
        return raw, raw, p
    if Path(str(path)).suffix.lower() == ".ipynb":
        from .fix_notebook import apply_notebook
        new_text = apply_notebook(text, p.fixes, lines)
    else:
        new_text = apply_text(text, p.fixes, html=reader.__name__.endswith(".html"))
    verify(lines, reader.read(new_text, name), p.fixes)
    return raw, bom + new_text.encode("utf-8"), p
