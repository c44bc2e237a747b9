"""Where a text names a label or a step: a Latin name as a whole word (``Q``, ``W_Q``), a
one-character label (猫, は) only in quotes or brackets."""

from __future__ import annotations

import re


def names_in(text: str, name: str) -> int:
    """1 if step or input ``name`` is written in ``text`` (``Q``, ``Q_{…}``, ``W_Q``; a step
    ``Qc`` by its capital ``Q``), else 0."""
    full = re.search(r"(?<![A-Za-z])" + re.escape(name) + r"(?![A-Za-z])", text)
    if full or len(name) == 1:
        return int(bool(full))
    cap = name[0]
    return int(cap.isupper() and re.search(r"(?<![A-Za-z\\])" + cap + r"(?![a-z])", text) is not None)


def mentions(text: str, label: str) -> bool:
    """Does ``text`` name ``label``? A one-character label (猫, は, a) only in quotes or
    brackets, a Latin one as a whole word."""
    return bool(positions(text, label))


def positions(text: str, label: str) -> list[int]:
    """Where ``text`` names ``label`` (see :func:`mentions`), in order."""
    if not label or label.isdigit() or label not in text:
        return []
    if len(label) == 1:
        quoted = "|".join(re.escape(q[0] + label + q[1]) for q in ("「」", "『』", "“”", '""', "{}", "()"))
        return [m.start() for m in re.finditer(quoted, text)]
    if label.isascii():
        return [m.start() for m in re.finditer(r"(?<![A-Za-z])" + re.escape(label) + r"(?![A-Za-z])", text)]
    return [m.start() for m in re.finditer(re.escape(label), text)]


def words(text: str) -> bool:
    """Does ``text`` hold a word of two letters or more (TeX commands aside)?"""
    return re.search(r"[^\W\d_]{2,}", re.sub(r"\\[A-Za-z]+", "", text)) is not None
