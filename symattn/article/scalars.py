"""A lone number placed by the words of its sentence: the parameter it gives (``T = 0.5``),
or the one-entry step its sentence or clause names (``With label smoothing the loss
becomes 0.517``), right or wrong."""

from __future__ import annotations

import re

from .labels import label_text, named_in, parameter, parse
from .match import Cell, Matcher
from .tokens import fold, numbers_in

def sets_parameter(m: Matcher, n) -> bool:
    """Is lone number ``n`` the value the text gives a parameter (``T = 0.5``, ``$\\varepsilon
    = 10^{-5}$``, ``dropout p = 0.1``), its label naming no tensor?"""
    before = n.line_text[:n.start]
    if before.count("$") % 2:                       # inside inline math: its own equation
        before = before[before.rfind("$") + 1:]
    lhs = label_text(before, len(before))
    return lhs is not None and parameter(parse(lhs), m.spec, lhs)


_SENTENCE_END = re.compile(r"(?<!\d)\.(?=\s)|。")       # a full stop, not 0.1's point


def _scalars_named(m: Matcher, n, clause: bool = False) -> list[Cell]:
    """The one-entry steps (not inputs) that the words of lone number ``n``'s sentence, or
    with ``clause`` only its clause (``Mean μ = 3.0, variance …``), name before it; where
    its equation's left-hand side has a subscript, only names with each of its parts."""
    before = _SENTENCE_END.split(fold(n.line_text[:n.start]))[-1]
    if clause:
        before = re.split(r"[,;]", before)[-1]
    lhs = label_text(n.line_text, n.start) or _head(before)
    written = parse(lhs) if lhs else None
    subs = {str(p).lower() for p in written.sub} if written is not None else set()
    return [Cell(name, 0, 0) for name in named_in(before, m.spec)
            if m.spec.tensors[name].shape == (1, 1) and name not in m.spec.inputs and m.approx.get(name)
            and m.shares(n, name)
            and subs <= set(re.split(r"[_\W]+", name.lower()))]     # θ_{2,4} is not θ_2


_HEAD = re.compile(r"([^=≈]+?)\s*(?:=|≈)(?=[^=≈]*\d[^=≈]*(?:=|≈))")


def _head(before: str) -> str | None:
    """The first side of the equation a number ends (``A_{22} = 19.453 / 34.647 = 0.562``:
    ``A_{22}``), when a worked side stands between it and the number."""
    m = _HEAD.match(before)
    return m.group(1) if m else None


LABEL_BEFORE = re.compile(r"([^\W\d]\w*)\s*(=|≈|≃|≒|~)\s*$")    # the name that labels the number after
                                                                # it: ``std=0.245``, ``(mean≈0``


def scalar_said(m: Matcher, n) -> Cell | None:
    """The one-entry step that the words of a lone number's sentence name (by its name's
    words or its operation's: ``With label smoothing the loss becomes 0.517``; ``instead of
    maximizing the average log-probability … maximizing -10.7722``) and that the number is
    as near as a slip is (5%): a claim there, right or wrong. None when no such step, or
    several (``after training the loss is 0.45``: another value of it, unverified). A number
    labelled ``word=`` is named by its clause alone (``mean=0.20, std=0.245``: not the mean)."""
    label = LABEL_BEFORE.search(fold(n.line_text[:n.start]))
    clause = label is not None and label.group(2) == "="            # ``std=0.245``
    near = [c for c in _scalars_named(m, n, clause=clause) if m.near_miss(n, c)]
    return near[0] if len(near) == 1 else None


def scalar_named(m: Matcher, n) -> Cell | None:
    """The one one-entry step a lone number's clause names, however far the number is
    from it (``variance σ² = 4.6667`` for 3.5: tried, kept only if a known mistake gives
    it, the unbiased variance); None when it names none or several."""
    cells = _scalars_named(m, n, clause=True)
    return cells[0] if len(cells) == 1 and not n.integer else None


def scalar_here(m: Matcher, n) -> Cell | None:
    """The one-entry step whose ``line`` says it is printed on lone number ``n``'s line, the
    only number the line shows (``print(loss)  # tensor(0.4402)`` under ``loss =
    cross_entropy(…)``): its print, right or wrong, as a block printed there is."""
    steps = [name for name, line in m.hints.items() if line == n.line and m.approx.get(name)
             and m.spec.tensors[name].shape == (1, 1) and name not in m.spec.inputs]
    shown = m.lines.get(n.line) if getattr(m, "lines", None) else None
    if len(steps) != 1 or shown is None or len(numbers_in(shown)) != 1:
        return None
    return Cell(steps[0], 0, 0)
