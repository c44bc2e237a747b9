"""Replacing spans of a text: the one edit ``--fix`` makes, in a source file or a JSON text."""

from __future__ import annotations

from ..errors import SpecError


def splice(text: str, spans: list) -> str:
    """``text`` with each (a, b, fix) span replaced by its fix's ``new`` (spans apart)."""
    spans = sorted(spans, key=lambda s: s[0])
    for (a1, b1, _), (a2, _, _) in zip(spans, spans[1:]):
        if a2 < b1:
            raise SpecError("two fixes overlap", where=f"offset {a1}")
    out, at = [], 0
    for a, b, f in spans:
        out += [text[at:a], f.new]
        at = b
    return "".join(out) + text[at:]
