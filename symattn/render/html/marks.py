"""Printed numbers marked in place: one ``<button class="num">`` per record (or unmatched
article number) with ``data-verdict`` and ``data-line``, and an article line with its marks.

A record is placed on its article line by its ``column`` when it has one, else at the first
occurrence of its printed text that no other record of that line took.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

from .jinja import macros

VERDICTS = ("correct", "carried", "consistent", "wrong", "unmatched")
_FOLLOWS = re.compile(r"follows from the wrong number printed at line (\d+)")
_NUMBER_AT = re.compile(r"[-−+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?%?")


def follows_line(record) -> int | None:
    """The article line of the wrong number this record follows from, if it does: its
    ``root`` ({step, at, line, printed}), ``follows_from`` (lines), or its diagnosis text."""
    root = getattr(record, "root", None)
    if isinstance(root, dict) and isinstance(root.get("line"), int):
        return root["line"]
    lines = getattr(record, "follows_from", None)
    if isinstance(lines, (list, tuple)) and lines and isinstance(lines[0], int):
        return min(lines)
    for d in getattr(record, "diagnosis", None) or []:
        m = _FOLLOWS.search(str(d))
        if m:
            return int(m.group(1))
    return None


def _text_index(line, column: int) -> int | None:
    """The index in ``line.text`` of source column ``column`` (1-based)."""
    if getattr(line, "columns", None) is None:
        k = column - 1
        return k if 0 <= k < len(line.text) else None
    for k in range(len(line.text)):
        if line.column(k) == column:
            return k
    return None


def locate(record, line, used: list) -> tuple[int, int] | None:
    """The span ``(start, end)`` of ``record``'s printed number in ``line.text``, not
    overlapping the spans in ``used``; None when it is not on that line."""
    text, printed = line.text, str(record.printed)
    column = getattr(record, "column", None)
    if column is not None:
        k = _text_index(line, column)
        if k is not None:
            if text.startswith(printed, k):
                span = (k, k + len(printed))
            else:
                m = _NUMBER_AT.match(text, k)
                span = (k, m.end()) if m else None
            if span and not _overlaps(span, used):
                return span
    variants = dict.fromkeys((printed, printed.replace("-", "−"), printed.replace("−", "-")))
    # strict first; then glued to what precedes it (table cells flattened to text: 成分40.99)
    for strict in (2, 1, 0):
        for variant in variants:
            for m in re.finditer(re.escape(variant), text):
                span = m.span()
                if _bounded(text, *span, strict) and not _overlaps(span, used):
                    return span
    return None


def _bounded(text: str, a: int, b: int, strict: int = 2) -> bool:
    """Not part of a longer number: with ``strict`` 2 no digit or decimal point right
    before or after, with 1 only after, with 0 anywhere."""
    before = text[a - 1] if a > 0 else " "
    after = text[b] if b < len(text) else " "
    after2 = text[b + 1] if b + 1 < len(text) else " "
    if strict >= 2 and (before.isdigit() or before == "."):
        return False
    return strict == 0 or not (after.isdigit() or (after == "." and after2.isdigit()))


def _overlaps(span, used) -> bool:
    return any(span[0] < b and a < span[1] for a, b in used)


def mark(rid: str, record, text: str | None = None) -> Markup:
    """The element of one checked number (``text``: as the article writes it)."""
    verdict = record.verdict if record.verdict in VERDICTS else "wrong"
    follows = follows_line(record)
    attrs = {"type": "button", "class": f"num v-{verdict}", "id": rid,
             "data-verdict": verdict, "data-line": record.line,
             "data-example": record.example, "data-step": record.step,
             "data-detail": f"{rid}-d", "aria-haspopup": "dialog",
             "data-expected": record.expected,
             "title": f"{record.verdict}: printed {record.printed}, expected {record.expected}"}
    if getattr(record, "column", None) is not None:
        attrs["data-column"] = record.column
    if follows is not None:
        attrs["data-follows"] = follows
    return _button(attrs, record.printed if text is None else text)


def unmatched_mark(rid: str, number, text: str | None = None) -> Markup:
    """An article number that no claim explains."""
    attrs = {"type": "button", "class": "num v-unmatched", "id": rid,
             "data-verdict": "unmatched", "data-line": getattr(number, "line", ""),
             "data-detail": f"{rid}-d", "aria-haspopup": "dialog",
             "title": "unmatched: no step of the spec gives this number"}
    if getattr(number, "column", None) is not None:
        attrs["data-column"] = number.column
    return _button(attrs, getattr(number, "text", "") if text is None else text)


def _button(attrs: dict, text) -> Markup:
    return macros("marks.html.j2").button({k: str(v) for k, v in attrs.items()}, str(text))


def line_html(line, items: list) -> Markup:
    """One article line with its marks. ``items``: ``(record_or_number, rid, is_record)``;
    those not found on the line are put after it, flagged."""
    return marked(line.text, *place_on(line, items))


def place_on(line, items: list) -> tuple[list, list]:
    """Where each of ``items`` stands on ``line``: ``([(span, obj, rid, is_record)]`` in
    order``, [(obj, rid, is_record)]`` not found there``)``."""
    used, placed, loose = [], [], []
    # checked numbers before unmatched ones, those with a known column first: a search for
    # the others cannot take their place
    items = sorted(items, key=lambda it: (not it[2], getattr(it[0], "column", None) is None))
    for obj, rid, is_record in items:
        probe = obj if is_record else _AsRecord(obj)
        span = locate(probe, line, used)
        if span is None:
            loose.append((obj, rid, is_record))
            continue
        used.append(span)
        placed.append((span, obj, rid, is_record))
    placed.sort(key=lambda p: p[0])
    return placed, loose


def marked(text: str, placed: list, loose: list = ()) -> Markup:
    """``text`` escaped, with the marks of ``placed`` (``(span, obj, rid, is_record)``, in
    order, not overlapping) in their spans and those of ``loose`` after it, flagged."""
    out, pos = [], 0
    for (a, b), obj, rid, is_record in placed:
        out.append(escape(text[pos:a]))
        out.append(mark_of(obj, rid, is_record, text[a:b]))
        pos = b
    out.append(escape(text[pos:]))
    for obj, rid, is_record in loose:
        out.append(macros("marks.html.j2").loose(mark_of(obj, rid, is_record)))
    return Markup("").join(out)


def mark_of(obj, rid: str, is_record: bool, text: str | None = None) -> Markup:
    return mark(rid, obj, text) if is_record else unmatched_mark(rid, obj, text)


class _AsRecord:
    """An unmatched number seen as a record for :func:`locate`."""

    def __init__(self, n):
        self.printed = getattr(n, "text", "")
        self.column = getattr(n, "column", None)
