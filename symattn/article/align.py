"""A group of printed numbers aligned with rows, a column or a block of one step: the
placement the most numbers round to (a few near misses allowed; one that reads a whole
number as a coarse rounding, ``1`` for 0.576, after one where it is what it says; the text's
words breaking ties), a block tried whole on the step it is nearest, a row tried on the step all its
numbers are near (tentative: kept only if the checker finds it carried or a known mistake
reproduces it, :mod:`symattn.article.check`)."""

from __future__ import annotations

import re

from .groups import Group
from .match import Matcher, Cell, Found, NEAR
from .tokens import fold

MAX_SEEDS = 6                     # numbers of a group looked at to propose alignments
MAX_PLACES = 60                  # alignments tried from one number


def align(m: Matcher, g: Group, lines: dict) -> dict | None:
    """The best placement of the group's rows in one tensor, or None."""
    seeds = []
    for k, row in enumerate(g.rows):
        for p, n in enumerate(row):
            if n is not None and len(seeds) < MAX_SEEDS:
                seeds.append((len(m.candidates(n, 1.0)) or 10 ** 9, k, p, n))
    places = {}
    for _, k, p, n in sorted(seeds, key=lambda x: x[0])[:1]:
        for c in m.correct(n, loose=True)[:MAX_PLACES]:
            places[(c.name, c.i - k, c.j - p, "rows")] = None
            if len(g.rows) == 1:
                places[(c.name, c.i - p, c.j, "col")] = None
    fits = []
    is_computed = computed(g)
    for place in places:
        cells = cells_at(m, g, place)
        if cells is None or _surely_off(m, cells):
            continue
        if len(cells) < 3 and any(n.integer and m.gap(n, c) > 0.1 for c, n in cells.values()):
            continue                    # [1, 1] for [0.5, 0.96]: too short to say it rounds
        if all(n.integer and m.gap(n, c) > 0.05 for c, n in cells.values()):
            continue                    # [1, 1, 1, 1] for [0.76, 0.91, 1.06, 1.21]: no entry is it
        misses = [(c, n) for c, n in cells.values() if not m.rounds_to(n, c, loose=True)]
        if any(_operand_again(m, n) for _, n in misses):
            continue
        ok = len(cells) - len(misses)
        if misses and (len(misses) > max(1, len(cells) // (2 if _hair(m, misses) else 3)) or
                       ok < min(2, len(cells) - 1) or not all(m.near_miss(n, c) for c, n in misses)):
            continue
        exact = sum(m.equals(n, c) for c, n in cells.values())
        if g.numbers[0].approximate:            # ≈ [1, 0]: not an entry that is [1, 0] exactly
            exact = -exact
        said = m.hints.get(place[0]) == g.numbers[0].line      # the spec says it is printed here
        step = is_computed and place[0] not in m.spec.inputs
        coarse = any(n.integer and m.gap(n, c) > 0.1 for c, n in cells.values())   # 1 for 0.576
        fits.append(((ok, not coarse, said, step, _full(m, g, place), exact, place[3] == "rows"), place, cells))
    if not fits:
        return None
    top = max(f[0] for f in fits)               # then what the text says, for the best fits only
    first = g.numbers[0]

    def key(fit):
        _, place, cells = fit
        c = cells[id(first)][0]
        return (m.context_score(first, c, first.line_text), m.last_row_named(first, c),
                place[0] not in m.spec.inputs,  # a step equal to an input: the step
                m.line_score(first, place[0]), -m.order[place[0]])
    return max((f for f in fits if f[0] == top), key=key)[2]


def _operand_again(m: Matcher, n) -> bool:
    """Is ``n`` a number its line writes several times that prints some entry right (the
    mean in ``(3.16-1.88)^2 + (0.61-1.88)^2 + (1.87-1.88)^2``)? Then it is that operand
    again, no near miss of another entry."""
    return len(re.findall(r"(?<![\d.])" + re.escape(n.text) + r"(?![\d])", n.line_text)) > 1 \
        and bool(m.correct(n))


def _hair(m: Matcher, misses: list) -> bool:
    """Is every miss within one unit of its last printed place (truncated, or rounded the
    wrong way: ``0.00999`` for 0.0099998)? Then up to half of a row may miss, not a third."""
    return all(m.gap(n, c) <= 2 * m.half_unit(n) * (1 + 1e-9) for c, n in misses)


_CONTINUES = re.compile(r"^[\s$&]*=\s*(?:\\left\s*)?[\[(]\s*$")
_FACTOR_AFTER = re.compile(r"^(?:[\s\])]|\\right\s*\]|\\[,;! ])*(?:[⋅·×*@]|\\cdot|\\times)")


def computed(g: Group) -> bool:
    """Is the block the value a computation reaches, on a line that continues it (``= [0,
    1.0] + …`` under ``0.50 × [0,2] + …``; not a factor, ``= [0.8, 1.2] ⋅ W``)? Then it is a step's value rather than an
    input's, even where an input has exactly its numbers."""
    first, last = g.numbers[0], g.numbers[-1]
    return len(g.rows) == 1 and bool(_CONTINUES.match(fold(first.line_text[:first.start]))) and \
        not _FACTOR_AFTER.match(fold(last.line_text[last.end:]))      # = [0.8, 1.2] ⋅ W: x


def _full(m: Matcher, g: Group, place) -> bool:
    """Does the placement print whole rows (or a whole column) of its tensor?"""
    rows, cols = m.spec.tensors[place[0]].shape
    if place[3] == "col":
        return len(g.rows[0]) == rows
    return all(len(r) == cols for r in g.rows)


def _surely_off(m: Matcher, cells: dict) -> bool:
    """More numbers than a placement may miss are farther than half a unit from their
    cells (a float screen before any certified rounding)."""
    allowed, off = max(1, len(cells) // 3), 0
    for c, n in cells.values():
        if m.gap(n, c) > m.half_unit(n) * 1.001 + 1e-12:          # −∞ for −∞ is no gap
            off += 1
            if off > allowed:
                return True
    return False


def cells_at(m: Matcher, g: Group, place) -> dict | None:
    name, i0, j0, how = place
    rows = m.approx[name]
    if rows is None:
        return None
    out = {}
    for k, row in enumerate(g.rows):
        for p, n in enumerate(row):
            if n is None:
                continue
            i, j = (i0 + k, j0 + p) if how == "rows" else (i0 + p, j0)
            if not (0 <= i < len(rows) and 0 <= j < len(rows[0])):
                return None
            out[id(n)] = (Cell(name, i, j), n)
    return out


class Near(dict):
    """Cells a block is tried on whole though it prints none of them right (tentative)."""


def near_block(m: Matcher, g: Group) -> Near | None:
    """A block of several rows, none of which a step prints right, tried whole as rows of
    the step it is nearest (every entry near its cell, :meth:`Matcher.near_row`; the rows
    its ordinals name, if it has them): the checker keeps it only if it finds every number
    carried, following from the article's wrong prints, or a known mistake."""
    rows = g.rows
    if len({len(r) for r in rows}) != 1 or any(n is None for r in rows for n in r):
        return None
    best = None
    for name, t in m.spec.tensors.items():
        if name in m.spec.inputs or m.approx.get(name) is None or t.shape[1] != len(rows[0]) \
                or t.shape[0] < len(rows):
            continue
        starts = [g.ordinals[0] - 1] if g.ordinals else range(t.shape[0] - len(rows) + 1)
        for i0 in starts:
            cells = cells_at(m, g, (name, i0, 0, "rows"))
            if cells is None or not (all(m.near_row(n, c) for c, n in cells.values()) or
                                     (len(rows) == t.shape[0] and _like(m, cells))):
                continue                  # a mistake may change a whole step more than a quarter
            err = sum(m.gap(n, c) for c, n in cells.values())   # −∞ printed for a masked −∞: 0
            if best is None or err < best[0]:
                best = (err, cells)
    return Near(best[1]) if best else None


def _like(m: Matcher, cells: dict) -> bool:
    """Could a mistake in the computation turn the entries into the printed numbers (with
    decimals)? Each of one sign within a factor of 3 of its entry, or all in one ratio (a
    missing scale: 8 at d_k = 64); zero for zero. A dropout printout (0 and 2.0 for 0.19)
    is not."""
    if any(n.integer or n.neg_inf for _, n in cells.values()):
        return False
    ratios = []
    for x, v in ((m.approx[c.name][c.i][c.j], m.value(n)) for c, n in cells.values()):
        if x is None:
            return False
        if abs(x) < 1e-12 or abs(v) < 1e-12:
            if abs(x) < 1e-12 and abs(v) < 1e-12:
                continue
            return False
        ratios.append(v / x)
    if not ratios:
        return False
    return all(1 / 3 <= r <= 3 for r in ratios) or max(ratios) - min(ratios) <= 0.01 * abs(ratios[0])


def tentative_row(m: Matcher, g: Group, got: dict, found: Found) -> bool:
    """A row of numbers none of which any entry rounds to (or the value a computation
    reaches, ``= [2.0, 7.0, 1.5]``, whatever some of its numbers happen to equal): tentative
    claims on the row of a step they are all near, in order (kept only if the checker finds
    them carried, or a known mistake reproduces the row: :mod:`symattn.article.check`)."""
    if len(g.rows) != 1 or any(m.correct(n) for n in g.numbers) and not computed(g):
        return False
    first, row = g.numbers[0], g.rows[0]
    p = row.index(first)
    best, best_err = None, None
    for c in m.candidates(first, max(40.0, abs(m.value(first)) * float(NEAR) / m.half_unit(first))):
        if c.name in m.spec.inputs:
            continue
        for place in ((c.name, c.i, c.j - p, "rows"), (c.name, c.i - p, c.j, "col")):
            cells = cells_at(m, g, place)
            if cells is None or not all(m.near_row(n, c2) for c2, n in cells.values()):
                continue
            err = sum(m.gap(n, c2) for c2, n in cells.values())
            if best_err is None or err < best_err:
                best, best_err = cells, err
    if best is None:
        return False
    for c, n in best.values():
        got[id(n)] = c
        found.pending[(n.line, n.column)] = n
    found.rows.append({(n.line, n.column) for _, n in best.values()})
    return True


def take(m, g, cells, got, restated, found):
    for c, n in cells.values():
        m.saw(n, c, result=True)
        if c.name in m.spec.inputs:
            found.inputs.append(n)
            continue
        got[id(n)] = c
        restated.setdefault(n.printed, c)
    if len(g.numbers) >= 2:
        taken(m).append((g, cells))


def taken(m: Matcher) -> list:
    """The blocks placed so far, with their cells (a block printed again prints them)."""
    return m.__dict__.setdefault("_taken_blocks", [])
