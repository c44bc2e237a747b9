"""A vector that lists results of arithmetic written above it.

A hand-worked example often computes entries one by one in prose and then goes on with them
as a vector: ``1 / 1.732 = 0.577``, ``1 / 1.732 = 0.577``, ``0 / 1.732 = 0``, then
``softmax([0.577, 0.577, 0])``. The vector is no input: each entry is the result written
above (:mod:`.written`), so the vector is those steps side by side, ``concat(a, b, c)``, and
what the example computes from it is judged from their exact values (e^{1/√3}, not
e^{0.577}). The written steps join the vector's example, before it.
"""

from __future__ import annotations

from .chains import Chain
from .search import Derivation


def restated(found: list, derived: dict, reprints: dict, lone: Chain) -> dict:
    """Derive each vector not derived whose entries, in order, are the results as printed
    of written steps of ``lone`` (the arithmetic on numbers as written) before it, each
    once; those steps move from ``lone`` into the vector's derivation. Returns block index
    -> the (first, last) lines of the moved steps."""
    moved: dict = {}
    for b in found:
        if b.index in derived or b.index in reprints or b.shape[0] != 1 or b.shape[1] < 2 \
                or b.parent is not None or not lone.steps:
            continue
        names = _listed(b, lone)
        if names is None:
            continue
        last = max(line for name, _, line in lone.steps if name in names)
        steps = [s for s in lone.steps if s[2] <= last]
        derived[b.index] = Derivation(b, f"concat({', '.join(names)})", (), b.floats.size, 0,
                                      form="restated", steps=tuple((n, e) for n, e, _ in steps))
        moved[b.index] = (min(s[2] for s in steps), last)
        lone.steps[:] = [s for s in lone.steps if s[2] > last]
        lone.claims[:] = [c for c in lone.claims if c[2] > last]
    return moved


def _listed(b, lone: Chain) -> list | None:
    """The written steps whose printed results ``b``'s entries are, in order, each once, all
    before ``b``; None unless every entry is one."""
    results = [(name, printed, line) for name, printed, line, *_ in lone.claims if line < b.line]
    names, used = [], set()
    for text in b.printed.texts[0]:
        hit = next((n for n, p, _ in results if p == text and n not in used), None)
        if hit is None:
            return None
        names.append(hit)
        used.add(hit)
    return names
