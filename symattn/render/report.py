"""The terminal report of `symattn check`: grouped by example and step, one line per
printed number, and a summary line."""

from __future__ import annotations

import unicodedata

from ..claims.check import Record, Summary

MARKS = {"correct": "✓", "carried": "≈", "consistent": "~", "wrong": "✗"}


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
            tail = f"  ({_n(counts.claims, 'printed number')}: {_counts(counts)})" if counts else ""
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
        if r.verdict == "consistent":
            text += (": " + "; ".join(r.diagnosis)) if r.diagnosis else \
                " (with the rounded inputs inside their rounding intervals)"
        if r.verdict == "wrong":
            text += f" (expected {r.expected})"
            text += ": " + ("; ".join(r.diagnosis) if r.diagnosis else "no known mistake reproduces it")
        lines.append(text)
        if r.root is None and r.verdict == "wrong":
            lines += _followers(records, r, only_problems)
    lines.append("")
    lines.append(summary_line(summary))
    return "\n".join(lines).lstrip("\n") + "\n"


def counted(k: int, noun: str) -> str:
    """``1 example``, ``2 examples``: a count and its noun (the one place plurals are made)."""
    return f"{k} {noun}" + ("" if k == 1 else "s")


_n = counted


def _followers(records: list[Record], root: Record, only_problems: bool) -> list[str]:
    """Under a wrong number: the numbers of other steps that follow from it (one line each)."""
    out = []
    for r in records:
        if r.root and r.example == root.example and r.root.get("line") == root.line \
                and r.root.get("step") == root.step and r.root.get("at") == root.at:
            out.append(f"        ↳ line {r.line:<5} {r.step} [{', '.join(r.at)}] printed {r.printed} "
                       f"(expected {r.expected}) follows from it")
    return out


def _counts(s: Summary) -> str:
    text = f"{s.correct} correct, {s.carried} carried, "
    if s.consistent:
        text += f"{s.consistent} consistent, "
    text += f"{s.wrong} wrong"
    return text + (f", {s.restated} restated" if s.restated else "")


def summary_line(s: Summary) -> str:
    """The closing line; numbers left unverified are said there too, so it never reads as
    an all-clear while some printed numbers got no verdict."""
    tail = f"; {s.unverified} more unverified" if s.unverified else ""
    return f"{_n(s.examples, 'example')}, {_n(s.claims, 'printed number')}: {_counts(s)}{tail}"
