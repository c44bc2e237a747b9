"""The assignment itself: groups placed by their labels, then aligned with rows, columns
and blocks of a step (:mod:`.align`); lone numbers by value, then by the words around them
(:mod:`.lone`); the rest carried or unmatched; what was found, as claims."""

from __future__ import annotations

import re

from . import by_label
from .align import Near, align, cells_at, near_block, take, taken, tentative_row
from .divisors import divisors
from .families import families
from .groups import Group
from .latex import BETWEEN
from .lone import single, tentative, unsure_numbers
from .match import Matcher, Cell, Found
from .tokens import Number, fold
from ..spec.load import Claim


def assign(m: Matcher, groups: list[Group], lines: dict) -> Found:
    """The claims the printed ``groups`` make of the spec's steps (``lines``: the article's
    lines by number), the inputs they print, and what stays unmatched or tentative."""
    got: dict[int, Cell] = {}                 # id(Number) -> cell
    restated: dict[str, Cell] = {}            # printed text -> cell it was assigned to
    pending: list[Number] = []
    found = Found()
    numbers = {}
    _whole_blocks(groups)
    for g, cells in _rows_apart(m, _labelled(m, groups, lines, got, restated, found, numbers),
                                lines):
        if g.readings:                     # a table's cells: results, not operands
            g = Group([[n] for n in _reading(m, g)], "result")
        for n in g.numbers:
            numbers[id(n)] = n
        if isinstance(cells, Near):
            _take_tentative(cells, got, found)
            continue
        if len(g.numbers) >= 2 and g.role != "result":
            cells = cells or by_label.restated(g, taken(m)) or align(m, g, lines)
            if cells is not None:
                take(m, g, cells, got, restated, found)
                continue
            if tentative_row(m, g, got, found):
                continue
        for n in g.numbers:
            role = g.role if len(g.numbers) == 1 or g.role == "result" else "text"
            single(m, n, role, lines, got, restated, pending, found)
    tentative(m, pending, got, found)
    divisors(m, groups, got, numbers, found)
    found.claims = _claims(m, got, numbers, found.tentative)
    return found


def _labelled(m: Matcher, groups: list, lines: dict, got, restated, found, numbers):
    """The groups the text does not place by their label (those it does are taken, right
    or wrong: :mod:`symattn.article.by_label`; a 3-D printout's blocks by its family), in
    the article's order (a caption chooses by the step printed last)."""
    family = families(m, groups, lines)
    labelled = []                             # (group, cells) placed by their label so far
    on_line: dict = {}
    by_line: dict = {}                       # line -> its groups of several numbers
    for g in groups:
        if len(g.numbers) >= 2:              # a lone number beside a block (``sum=8.160``) is no rival
            on_line[g.line] = on_line.get(g.line, 0) + 1
            by_line.setdefault(g.line, []).append(g)
    for k, g in enumerate(groups):
        if id(g) in family:
            numbers.update((id(n), n) for n in g.numbers)
            _take_family(m, *family[id(g)], got, found)
            continue
        rivals = [r for r in by_line.get(g.line, ()) if r is not g]
        alone = not rivals or by_line[g.line][-1] is g and _equated(g, rivals[-1])
        cells = (_printed_here(m, g, rivals) if alone else None) or \
            (by_label.place(m, g, lines) if _labels_place(g) else None)
        if isinstance(cells, by_label.Unsure):       # named, but not where: unverified
            numbers.update((id(n), n) for n in g.numbers)
            found.unmatched += unsure_numbers(m, g, cells)
            continue
        if cells is not None:
            labelled.append((g, cells))
        elif _labels_place(g) and len(g.numbers) >= 2 and not all(n.integer for n in g.numbers):
            ahead = _labelled_ahead(m, groups, k, lines)    # its labelled twin, or rounded form, nearby
            cells = by_label.restated(g, labelled + list(ahead.values())) or _rounded_beside(
                m, g, groups[k + 1] if k + 1 < len(groups) else None,
                {i: c for i, (_, c) in ahead.items()}, lines)
        if cells is None:
            yield g
        else:
            numbers.update((id(n), n) for n in g.numbers)
            take(m, g, cells, got, restated, found)


_EQUATED = re.compile(rf"\s*(?:\]|\\end\s*\{{[a-zA-Z]*matrix\}}){BETWEEN}(?:=|≈|\\approx){BETWEEN}"
                      r"(?:\[|\\begin\s*\{[a-zA-Z]*matrix\})\s*")


def _equated(g: Group, before: Group) -> bool:
    """Is the group what the equation of the block before it on its line comes to
    (``[x] × [W] = [y]``: ``[y]``), nothing but an equals sign between them?"""
    a, b = before.numbers[-1], g.numbers[0]
    return a.line_text == b.line_text and bool(_EQUATED.fullmatch(fold(b.line_text[a.end:b.start])))


HINT_AHEAD = 2          # a block's rows (two or more) may begin this many lines after the
                        # line a step names (``\\begin{bmatrix}``, ``Q =`` above them)


def _printed_here(m: Matcher, g: Group, rivals: list = ()) -> dict | None:
    """A whole block printed alone (a lone number beside it, ``sum=8.160``, is no rival),
    or what its line's equation comes to, where one step's ``line`` says it is printed (its
    rows on that line or up to :data:`HINT_AHEAD` after), of that step's shape: that step's
    print, right or wrong (what the spec states, as a label), unless one of the other
    blocks on the line (``rivals``) prints it right (``softmax([0.707, 0]) ≈ [0.668,
    0.332]``: the scores' step is the argument's)."""
    if len(g.numbers) < 2 or not _labels_place(g) or any(n is None for r in g.rows for n in r):
        return None
    shape = (len(g.rows), len(g.rows[0]))
    if any(len(r) != shape[1] for r in g.rows):
        return None
    ahead = HINT_AHEAD if len(g.rows) > 1 else 0     # one row after the line: a mention
    fit = [name for name, line in m.hints.items() if 0 <= g.line - line <= ahead and _shape(m, name) == shape]
    here = [name for name in fit if m.hints[name] == g.line]      # named on its own line first
    fit = here or fit
    if len(fit) != 1 or _prints_input(m, g) or any(_prints_right(m, r, fit[0]) for r in rivals):
        return None
    return cells_at(m, g, (fit[0], 0, 0, "rows"))


def _prints_right(m: Matcher, g: Group, name: str) -> bool:
    """Does the group print step ``name`` whole, every entry right?"""
    cells = cells_at(m, g, (name, 0, 0, "rows")) if len(g.rows) and \
        _shape(m, name) == (len(g.rows), len(g.rows[0])) else None
    return bool(cells) and all(by_label.prints_right(m, n, c) for c, n in cells.values())


def _prints_input(m: Matcher, g: Group) -> bool:
    """Does the block print an input of that shape, every entry right (``x̃ = (2, 4, 6)``
    beside ``e^2 + e^4 + e^6 ≈ 7.389 + …``, on the line of the step that exponentiates it)?"""
    return any(_prints_right(m, g, name) for name in m.spec.inputs)


def _shape(m: Matcher, name: str) -> tuple | None:
    """The shape of a tensor the matcher evaluates (None: one it does not)."""
    rows = m.approx.get(name)
    return None if rows is None else (len(rows), len(rows[0]))


def _labels_place(g: Group) -> bool:
    return bool(g.numbers) and not g.readings and g.role not in ("operand", "factor")


def _labelled_ahead(m: Matcher, groups: list, k: int, lines: dict) -> dict:
    """``{id(group): (group, cells)}``: the groups a few lines after group ``k`` that their
    labels place (``= [2.0, 7.0, 1.5]`` under a sum, then "[2.0, 7.0, 1.5] is Output 1")."""
    out = {}
    for h in groups[k + 1:]:
        if h.line - groups[k].line > by_label.RESTATED_WITHIN:
            break
        cells = by_label.place(m, h, lines) if _labels_place(h) else None
        if isinstance(cells, dict):
            out[id(h)] = (h, cells)
    return out


_APPROX_BETWEEN = re.compile(r"^(?:[\s$\]]|\\right\s*\]|\\end\{[bpv]?matrix\})*(?:≈|≒|\\approx)"
                             r"[\s$]*(?:\\left\s*|\\begin\{[bpv]?matrix\})?[\[(]?\s*$")


_OPERATED = re.compile(r"(?:[-+×·*/]|\\cdot|\\times)(?:[\s$\[(]|\\left|\\begin\{[bpv]?matrix\})*$")


def _rounded_beside(m: Matcher, g: Group, h: Group | None, placed: dict, lines: dict):
    """``[0.501, 0.249, 0.249] ≈ [0.50, 0.25, 0.25]``: a block followed on its line by ``≈``
    and a block of its shape prints the entries that block prints (placed by its label or
    its values), whatever its own values."""
    if h is None or not h.numbers or len(g.numbers) < 2 or h.line != g.line or \
            [len(r) for r in h.rows] != [len(r) for r in g.rows] or None in g.rows[0] or None in h.rows[0]:
        return None
    last, first = g.numbers[-1], h.numbers[0]
    if not _APPROX_BETWEEN.match(fold(last.line_text[last.end:first.start])) or \
            _OPERATED.search(fold(g.numbers[0].line_text[:g.numbers[0].start])):
        return None                          # [0,1] + B ≈ C: B is an operand, not C
    cells = placed.get(id(h)) or align(m, h, lines)
    if cells is None or any(c.name in m.spec.inputs for c, _ in cells.values()):
        return None
    return by_label.same_entries(g, h, cells)


def _take_family(m: Matcher, cells: dict, right: set, got: dict, found: Found):
    """A block placed by its family: its right numbers are claims, the others tentative
    (kept if the checker finds them all carried, or a mistake reproduces them)."""
    unsure = set()
    for c, n in cells.values():
        got[id(n)] = c
        if id(n) not in right:
            found.pending[(n.line, n.column)] = n
            unsure.add((n.line, n.column))
    if unsure:
        found.rows.append(unsure)


def _rows_apart(m: Matcher, groups, lines: dict):
    """The groups, a matrix that no block of a step prints split into its rows (a printout
    of some rows only, or one with a wrong row)."""
    for g in groups:
        cells = align(m, g, lines) if len(g.rows) > 1 and not g.readings else None
        if cells is None and len(g.rows) > 1 and not g.readings:
            cells = by_label.whole_block(m, g)
            if cells is None and by_label.pattern(g):
                continue                   # a mask or dropout pattern that prints no step
        if cells is None and len(g.rows) > 1 and not g.readings:
            cells = near_block(m, g)
        if len(g.rows) > 1 and not g.readings and cells is None:
            yield from ((Group([r], "vector"), None) for r in g.rows if any(n is not None for n in r))
        else:
            yield g, cells


def _take_tentative(cells: dict, got: dict, found: Found):
    for c, n in cells.values():
        got[id(n)] = c
        found.pending[(n.line, n.column)] = n
    found.rows.append({(n.line, n.column) for _, n in cells.values()})


def _reading(m: Matcher, g: Group) -> list:
    """The reading of glued cells whose numbers all print entries (fewest numbers first);
    without one, the cells as one number."""
    for way in g.readings:
        if all(m.correct(n) for n in way):
            return way
    return g.readings[0]


# -- claims ------------------------------------------------------------------------


def _claims(m: Matcher, got: dict, numbers: dict, tentative=frozenset()) -> list[Claim]:
    """One claim per printed number found (a whole printed row as one claim)."""
    rows: dict = {}
    for key, c in got.items():
        n = numbers.get(key)
        if n is not None:
            rows.setdefault((n.line, c.name, c.i), []).append((n, c))
    out = []
    for (line, name, i), items in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[1][0][0].start)):
        items.sort(key=lambda nc: nc[0].start)
        t = m.spec.tensors[name]
        whole = [c.j for _, c in items] == list(range(t.shape[1])) and len(items) > 1 and \
            not any((n.line, n.column) in tentative for n, _ in items)
        if whole:
            printed = "[" + ", ".join(_as_printed(n) for n, _ in items) + "]"
            out.append(_claim(len(out), name, _key(t.rows, i), printed, line,
                              tuple(n.column for n, _ in items)))
            continue
        for n, c in items:
            out.append(_claim(len(out), name, [_key(t.rows, c.i), _key(t.cols, c.j)], _as_printed(n),
                              line, (n.column,)))
    return out


def _whole_blocks(groups: list):
    """Mark the numbers of printouts whose every entry is a whole float (``[[2., 4.],
    [4., 16.]]``: an integer-valued tensor, its entries the integers 2, 4, 16)."""
    for g in groups:
        if len(g.numbers) > 1 and all(n.text.endswith(".") and not n.integer for n in g.numbers):
            for n in g.numbers:
                n.whole_block = True


_PRINTOUT_NEXT = re.compile(r"\s*(?:[,\])]|-?\d)")


def _as_printed(n: Number) -> str:
    """The claim's printed text: a printout's whole float keeps its point (``tensor(1.)``,
    NumPy's ``0.`` among ``0.84147098``), a sentence's full stop does not (``… is 48,725.``),
    nor does an integer-valued printout (``[[2., 4.], [4., 16.]]`` prints 16). The checker
    reads ``1.`` as it reads ``1`` (:func:`symattn.claims.check.precision`). A NumPy row's
    padded ``1.    `` is already ``1.0000`` (:func:`symattn.article.tokens.numbers_in`)."""
    if n.text.endswith(".") and "." not in n.printed and not n.whole_block and \
            _PRINTOUT_NEXT.match(n.line_text, n.end):
        return n.printed + "."
    return n.printed


def _key(labels, i):
    """How a claim names row or column ``i``: its label, or its index where labels repeat."""
    if labels and labels.count(labels[i]) == 1:
        return labels[i]
    return i


def _claim(k, name, at, printed, line, columns) -> Claim:
    return Claim(10_000_000 + k, name, at, printed, line, 0, columns=columns, found=True)
