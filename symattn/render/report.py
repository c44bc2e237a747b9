"""The terminal report of `symattn check`: grouped by example and step, one line per
printed number, and a summary line."""

from __future__ import annotations

import unicodedata

from ..claims.check import Record, Summary

MARKS = {"correct": "✓", "carried": "≈", "wrong": "✗"}


def _pad(text: str, width: int) -> str:
    """Left-justify by display width (CJK labels take two columns)."""
    cols = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(width - cols, 0)


def format_report(records: list[Record], summary: Summary, *, only_problems: bool = False,
                  per_example: dict | None = None) -> str:
    lines: list[str] = []
    current_example = current_step = None
    for r in records:
        if only_problems and r.verdict == "correct":
            continue
        if r.example != current_example:
            current_example, current_step = r.example, None
            counts = per_example.get(r.example) if per_example else None
            tail = f"  ({_n(counts.claims, 'printed number')}: {counts.correct} correct, " \
                   f"{counts.carried} carried, {counts.wrong} wrong)" if counts else ""
            lines.append("")
            lines.append(f"{r.example}  [{r.source}]{tail}")
        if r.step != current_step:
            current_step = r.step
            lines.append(f"  {r.step}")
        mark = MARKS[r.verdict]
        at = f"[{', '.join(r.at)}]"
        text = (f"    {mark} line {r.line:<5} {_pad(at, 22)} printed {_pad(r.printed, 9)} "
                f"exact {r.exact_short:<12} {r.verdict}")
        if r.verdict == "correct" and r.tie:
            text += " (exact tie)"
        if r.verdict == "carried" and r.carried_from:
            text += ": from " + "; ".join(r.carried_from)
        if r.verdict == "wrong":
            text += f" (expected {r.expected})"
            text += ": " + ("; ".join(r.diagnosis) if r.diagnosis else "no known mistake reproduces it")
        lines.append(text)
    lines.append("")
    lines.append(summary_line(summary))
    return "\n".join(lines).lstrip("\n") + "\n"


def _n(k: int, noun: str) -> str:
    return f"{k} {noun}" + ("" if k == 1 else "s")


def summary_line(s: Summary) -> str:
    return (f"{_n(s.examples, 'example')}, {_n(s.claims, 'printed number')}: {s.correct} correct, "
            f"{s.carried} carried, {s.wrong} wrong")
