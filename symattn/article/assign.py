"""The assignment itself: groups aligned with rows, columns and blocks of a step; lone
numbers by value, then by the words around them; the rest carried or unmatched."""

from __future__ import annotations

import re
from dataclasses import replace

from . import by_label
from .divisors import divisors
from .groups import Group
from .match import Matcher, Cell, Found, Unmatched, NEAR
from .tokens import Number, fold
from ..spec.load import Claim

MAX_SEEDS = 6                     # numbers of a group looked at to propose alignments
MAX_PLACES = 60                  # alignments tried from one number
_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n")
STRONG_KEYS = 6                   # of a lone number's ranking: what the text says (see _single)


def assign(m: Matcher, groups: list[Group], lines: dict) -> Found:
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
            cells = cells or by_label.restated(g, _taken(m)) or _align(m, g, lines)
            if cells is not None:
                _take(m, g, cells, got, restated, found)
                continue
            if _tentative_row(m, g, got, found):
                continue
        for n in g.numbers:
            role = g.role if len(g.numbers) == 1 or g.role == "result" else "text"
            _single(m, n, role, lines, got, restated,
                    pending, found)
    _tentative(m, pending, got, found)
    divisors(m, groups, got, numbers, found)
    found.claims = _claims(m, got, numbers, found.tentative)
    return found


def _labelled(m: Matcher, groups: list, lines: dict, got, restated, found, numbers):
    """The groups the text does not place by their label (those it does are taken, right
    or wrong: :mod:`symattn.article.by_label`; a 3-D printout's blocks by its family), in
    the article's order (a caption chooses by the step printed last)."""
    family = by_label.families(m, groups, lines)
    labelled = []                             # (group, cells) placed by their label so far
    on_line: dict = {}
    for g in groups:
        if g.numbers:
            on_line[g.line] = on_line.get(g.line, 0) + 1
    for k, g in enumerate(groups):
        if id(g) in family:
            numbers.update((id(n), n) for n in g.numbers)
            _take_family(m, *family[id(g)], got, found)
            continue
        cells = (_printed_here(m, g) if g.numbers and on_line[g.line] == 1 else None) or (by_label.place(m, g, lines) if _labels_place(g) else None)
        if isinstance(cells, by_label.Unsure):       # named, but not where: unverified
            numbers.update((id(n), n) for n in g.numbers)
            found.unmatched += _unsure(m, g, cells)
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
            _take(m, g, cells, got, restated, found)


def _printed_here(m: Matcher, g: Group) -> dict | None:
    """A whole block printed alone on the line a step's ``line`` says it is printed on, of
    that step's shape: that step's print, right or wrong (what the spec states, as a label)."""
    if len(g.numbers) < 2 or not _labels_place(g) or any(n is None for r in g.rows for n in r):
        return None
    shape = (len(g.rows), len(g.rows[0]))
    if any(len(r) != shape[1] for r in g.rows):
        return None
    for name, line in m.hints.items():
        rows = m.approx.get(name)
        if line == g.line and rows is not None and (len(rows), len(rows[0])) == shape:
            return _cells(m, g, (name, 0, 0, "rows"))
    return None


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
    cells = placed.get(id(h)) or _align(m, h, lines)
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
        cells = _align(m, g, lines) if len(g.rows) > 1 and not g.readings else None
        if cells is None and len(g.rows) > 1 and not g.readings:
            cells = by_label.whole_block(m, g)
            if cells is None and by_label.pattern(g):
                continue                   # a mask or dropout pattern that prints no step
        if cells is None and len(g.rows) > 1 and not g.readings:
            cells = _near_block(m, g)
        if len(g.rows) > 1 and not g.readings and cells is None:
            yield from ((Group([r], "vector"), None) for r in g.rows if any(n is not None for n in r))
        else:
            yield g, cells


class Near(dict):
    """Cells a block is tried on whole though it prints none of them right (tentative)."""


def _near_block(m: Matcher, g: Group) -> Near | None:
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
            cells = _cells(m, g, (name, i0, 0, "rows"))
            if cells is None or not (all(m.near_row(n, c) for c, n in cells.values()) or
                                     (len(rows) == t.shape[0] and _like(m, cells))):
                continue                  # a mistake may change a whole step more than a quarter
            err = sum(abs(m.approx[c.name][c.i][c.j] - m.value(n)) for c, n in cells.values())
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


# -- groups ------------------------------------------------------------------------
def _align(m: Matcher, g: Group, lines: dict) -> dict | None:
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
    computed = _computed(g)
    for place in places:
        cells = _cells(m, g, place)
        if cells is None or _surely_off(m, cells):
            continue
        if len(cells) < 3 and any(n.integer and m.gap(n, c) > 0.1 for c, n in cells.values()):
            continue                    # [1, 1] for [0.5, 0.96]: too short to say it rounds
        misses = [(c, n) for c, n in cells.values() if not m.rounds_to(n, c, loose=True)]
        ok = len(cells) - len(misses)
        if misses and (len(misses) > max(1, len(cells) // 3) or ok < min(2, len(cells) - 1) or
                       not all(m.near_miss(n, c) for c, n in misses)):
            continue
        exact = sum(m.equals(n, c) for c, n in cells.values())
        if g.numbers[0].approximate:            # ≈ [1, 0]: not an entry that is [1, 0] exactly
            exact = -exact
        said = m.hints.get(place[0]) == g.numbers[0].line      # the spec says it is printed here
        step = computed and place[0] not in m.spec.inputs
        fits.append(((ok, said, step, _full(m, g, place), exact, place[3] == "rows"), place, cells))
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


_CONTINUES = re.compile(r"^[\s$&]*=\s*(?:\\left\s*)?[\[(]\s*$")


_FACTOR_AFTER = re.compile(r"^(?:[\s\])]|\\right\s*\]|\\[,;! ])*(?:[⋅·×*@]|\\cdot|\\times)")


def _computed(g: Group) -> bool:
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


def _tentative_row(m: Matcher, g: Group, got: dict, found: Found) -> bool:
    """A row of numbers none of which any entry rounds to (or the value a computation
    reaches, ``= [2.0, 7.0, 1.5]``, whatever some of its numbers happen to equal): tentative
    claims on the row of a step they are all near, in order (kept only if the checker finds
    them carried, or a known mistake reproduces the row: :mod:`symattn.article.check`)."""
    if len(g.rows) != 1 or any(m.correct(n) for n in g.numbers) and not _computed(g):
        return False
    first, row = g.numbers[0], g.rows[0]
    p = row.index(first)
    best, best_err = None, None
    for c in m.candidates(first, max(40.0, abs(m.value(first)) * float(NEAR) / m.half_unit(first))):
        if c.name in m.spec.inputs:
            continue
        for place in ((c.name, c.i, c.j - p, "rows"), (c.name, c.i - p, c.j, "col")):
            cells = _cells(m, g, place)
            if cells is None or not all(m.near_row(n, c2) for c2, n in cells.values()):
                continue
            err = sum(abs(m.approx[c2.name][c2.i][c2.j] - m.value(n)) for c2, n in cells.values())
            if best_err is None or err < best_err:
                best, best_err = cells, err
    if best is None:
        return False
    for c, n in best.values():
        got[id(n)] = c
        found.pending[(n.line, n.column)] = n
    found.rows.append({(n.line, n.column) for _, n in best.values()})
    return True


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


def _cells(m: Matcher, g: Group, place) -> dict | None:
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


def _take(m, g, cells, got, restated, found):
    for c, n in cells.values():
        m.saw(n, c, result=True)
        if c.name in m.spec.inputs:
            found.inputs.append(n)
            continue
        got[id(n)] = c
        restated.setdefault(n.printed, c)
    if len(g.numbers) >= 2:
        _taken(m).append((g, cells))


def _taken(m: Matcher) -> list:
    """The blocks placed so far, with their cells (a block printed again prints them)."""
    return m.__dict__.setdefault("_taken_blocks", [])


# -- lone numbers ----------------------------------------------------------------------
def _single(m, n, role, lines, got, restated, pending, found):
    text = n.line_text
    if by_label.sets_parameter(m, n):
        return                               # T = 0.5, ε = 1e-5: what the example is given
    cands = m.correct(n)
    whole = [] if cands else _rounded_whole(m, n, text)
    cands = cands or whole
    if not cands:
        c = restated.get(n.printed) if n.significant >= 3 else None
        if c is not None:
            got[id(n)] = c
        elif _looks_like_claim(n, role):
            pending.append(n)
        return
    prefer_input = role in ("operand", "text", "factor")
    cands = _best_named(m, n, _of_row(m, n, cands), text)
    if n.integer and not whole:  # "3 tokens", "d_k = 2", 1×0: an integer needs its step named
        cands = [c for c in cands if c.name in m.spec.inputs or m.here(n, c.name) or (
            m.context_score(n, c, text) if role == "result" else m._name_score(n, c.name, text))]
        if not cands:
            return

    def key(c):
        is_input = c.name in m.spec.inputs
        if role == "factor":                     # a product's factors: inputs first
            return (m.writes(n, c.name), m.equals(n, c) != n.approximate, is_input,
                    m.context_score(n, c, text), m.here(n, c.name), m.line_score(n, c.name), -m.order[c.name])
        return (m.writes(n, c.name), m.equals(n, c) != n.approximate, m.context_score(n, c, text), m.here(n, c.name),
                m.recent_row(n, c),
                m.last_row_named(n, c),
                is_input == prefer_input,
                m.line_score(n, c.name), -m.order[c.name])
    best = max(cands, key=key)
    if best.name in m.spec.inputs:
        found.inputs.append(n)
        return
    result = "result" in (role, n.role)         # after =: the end of a chain, in a list too
    if _ambiguous(m, n, cands, best, key):
        best = _next_in_order(m, cands, best, key) if result else None
        if best is None:
            found.unmatched.append(unmatched(m, n))
            return
    got[id(n)] = best
    m.saw(n, best, result=result)
    restated.setdefault(n.printed, best)


def _next_in_order(m: Matcher, cands: list, best, key):
    """Among candidates the words leave equally likely, the entry of the step that comes
    next in the spec's order after the step whose result the article printed last (an
    article works its steps out in order: the line after ``std_dev = … = 0.364`` prints
    the normalised features, not the code section's), or None when that does not decide."""
    last = m.last_result
    if last is None:
        return None
    top = key(best)[:STRONG_KEYS]
    ahead = [(m.order[c.name] - last, c) for c in cands
             if key(c)[:STRONG_KEYS] == top and m.order[c.name] >= last]
    if not ahead:
        return None
    nearest = min(d for d, _ in ahead)
    chosen = [c for d, c in ahead if d == nearest]
    x = m.approx[chosen[0].name][chosen[0].i][chosen[0].j]
    if any(_differ(m.approx[c.name][c.i][c.j], x) for c in chosen):
        return None
    return max(chosen, key=key)


def _rounded_whole(m: Matcher, n: Number, text: str) -> list:
    """A whole number of two or more digits in a sentence that names a step by its whole
    name (any case; not by one letter), the step's entry rounded to it (``The perplexity
    … that'd be 48,725 words``): that entry."""
    if not n.integer or n.significant < 2:
        return []
    sentence = _SENTENCE.split(fold(text[:n.start]))[-1]
    return [c for c in m.correct(n, loose=True) if c.name not in m.spec.inputs and len(c.name) > 1
            and re.search(r"(?<![A-Za-z])" + re.escape(c.name) + r"(?![A-Za-z])", sentence, re.I)]


def _ambiguous(m: Matcher, n: Number, cands: list, best, key) -> bool:
    """Do the words around ``n`` leave a candidate of another value as likely as ``best``?
    (They agree on everything the text says; only the order of the steps would choose.)"""
    top = key(best)[:STRONG_KEYS]
    x = m.approx[best.name][best.i][best.j]
    return any(key(c)[:STRONG_KEYS] == top and _differ(m.approx[c.name][c.i][c.j], x)
               for c in cands if c != best)


def _differ(a, b) -> bool:
    if a is None or b is None:                   # −∞
        return (a is None) != (b is None)
    return abs(a - b) > 1e-12 * (1 + abs(b))


def _best_named(m: Matcher, n: Number, cands: list, text: str) -> list:
    """The candidates of the steps (and inputs) the text names most: a step's name outweighs
    its labels (3 against at most 2), so the others cannot win."""
    if len(cands) <= 8:
        return cands
    score = {name: m._name_score(n, name, text) for name in {c.name for c in cands}}
    top = max(score.values())
    return [c for c in cands if score[c.name] >= top - 2]


def _of_row(m: Matcher, n: Number, cands: list) -> list:
    """On a line that opens with a row's label (``"how": mean=0.25, std=0.374``), the
    candidates in that row, where there are any: not a one-entry step of the same value."""
    label = by_label.rows_named.lead(m, n)
    if label is None:
        return cands
    rows = {name: t.rows for name, t in m.spec.tensors.items()}
    return [c for c in cands if rows.get(c.name) and str(rows[c.name][c.i]) == label] or cands


def _looks_like_claim(n: Number, role: str) -> bool:
    return not n.integer or role == "result"


def _tentative(m: Matcher, pending: list, got: dict, found: Found):
    """Numbers no entry rounds to: a tentative claim on the nearest entry of a step, kept
    only if the checker finds it carried (decided in :mod:`symattn.article.check`)."""
    for n in pending:
        said = by_label.scalar_said(m, n)
        if said is not None:                        # "with label smoothing the loss is 0.517"
            got[id(n)] = said
            continue
        named = by_label.scalar_named(m, n)
        if named is not None:                       # kept if a known mistake gives it
            got[id(n)] = named
            found.pending[(n.line, n.column)] = n
            found.rows.append({(n.line, n.column)})
            continue
        near = _of_row(m, n, [c for c in m.candidates(n, 40.0) if c.name not in m.spec.inputs and m.near(n, c)])
        if not near:
            found.unmatched.append(unmatched(m, n))
            continue
        v = m.value(n)
        best = min(near, key=lambda c: (abs(m.approx[c.name][c.i][c.j] - v), -m.line_score(n, c.name)))
        got[id(n)] = best
        found.pending[(n.line, n.column)] = n


def unmatched(m: Matcher, n: Number) -> Unmatched:
    """``n`` with no verdict: its likely entries (the three nearest of steps, with their
    exact values) and whether it is unverified (it may print one of them: a number with
    decimals near its nearest entry) or no claim at all (a count, a far-off number)."""
    near = [c for c in m.candidates(n, 1e6) if c.name not in m.spec.inputs] or \
        [c for c in m.candidates(n, 1e6)]
    v = m.value(n)
    near.sort(key=lambda c: (abs(m.approx[c.name][c.i][c.j] - v), m.order[c.name]))
    likely = [_entry(m, c) for c in near[:3]]
    plausible = bool(near) and not n.integer and m.near_print(n, near[0])
    return Unmatched(n.line, n.column, n.text, likely[0] if likely else None, printed=n.printed,
                     likely=likely, unverified=plausible)


def _unsure(m: Matcher, g: Group, unsure: by_label.Unsure) -> list[Unmatched]:
    """The numbers of a block the text names but does not place: unverified, each with the
    entries it may print, the nearest first."""
    out = []
    for n in g.numbers:
        v = m.value(n)
        cells = sorted(dict.fromkeys(unsure.likely.get(id(n), ())),
                       key=lambda c: abs(m.approx[c.name][c.i][c.j] - v))
        likely = [_entry(m, c) for c in cells[:3]]
        u = unmatched(m, n)
        out.append(replace(u, nearest=likely[0], likely=likely, unverified=True) if likely else u)
    return out


def _entry(m: Matcher, c: Cell) -> dict:
    t = m.spec.tensors[c.name]
    r = m.ev.rounded(t, c.i, c.j, digits=12, mode="half-even")
    return {"step": c.name, "at": [t.row_label(c.i), t.col_label(c.j)],
            "exact": str(r) if r is not None else "-inf"}


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
