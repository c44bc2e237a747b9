"""Lone numbers: placed by value among the entries they round to, the words around them
choosing (a step's name, its labels, the row the line names, the order the article works
in); a number no entry rounds to is a tentative claim on the nearest entry, else
unmatched, with the entries it may print."""

from __future__ import annotations

import re
from dataclasses import replace

from . import by_label, scalars
from .groups import Group
from .match import Matcher, Cell, Found, Unmatched
from .tokens import Number, fold

_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n")
STRONG_KEYS = 6                   # of a lone number's ranking: what the text says (see single)


def single(m, n, role, lines, got, restated, pending, found):
    text = n.line_text
    if scalars.sets_parameter(m, n):
        return                               # T = 0.5, ε = 1e-5: what the example is given
    if role != "result" and m.operand(n):
        found.inputs.append(n)               # the 1.0 of e^{1.0} = 2.718: a number it is given
        return
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
    label = scalars.LABEL_BEFORE.search(fold(text[:n.start])) if n.integer else None
    if label is not None and label.group(1).isalpha() and len(label.group(1)) > 1:   # (mean≈0, var≈1):
        cands = [c for c in cands if label.group(1).lower() in c.name.lower()]     # the mean's, if any
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


def tentative(m: Matcher, pending: list, got: dict, found: Found):
    """Numbers no entry rounds to: a tentative claim on the nearest entry of a step, kept
    only if the checker finds it carried (decided in :mod:`symattn.article.check`)."""
    for n in pending:
        said = scalars.scalar_said(m, n) or scalars.scalar_here(m, n)
        if said is not None:                        # "with label smoothing the loss is 0.517"
            got[id(n)] = said
            continue
        named = scalars.scalar_named(m, n)
        if named is not None:                       # kept if a known mistake gives it
            got[id(n)] = named
            found.pending[(n.line, n.column)] = n
            found.rows.append({(n.line, n.column)})
            continue
        near = _of_row(m, n, [c for c in m.candidates(n, 40.0) if c.name not in m.spec.inputs and m.near(n, c)
                              and m.shares(n, c.name)])       # "a dropout rate of 50%": no context vector's
        if not near:
            found.unmatched.append(unmatched(m, n))
            continue
        best = min(near, key=lambda c: (m.gap(n, c), -m.line_score(n, c.name)))
        got[id(n)] = best
        if not _float_repr_of(m, n, best):          # a binary float's digits: that entry, surely
            found.pending[(n.line, n.column)] = n


def _float_repr_of(m: Matcher, n: Number, c) -> bool:
    """Is ``n`` a binary float printed in full whose value is entry ``c``'s but for float64
    rounding (``2.3575999999999997`` for 2.3576)? No other entry could print those digits."""
    from fractions import Fraction
    from ..claims.printed import float_noise_of
    return not n.printed.endswith("%") and \
        float_noise_of(n.text, Fraction(n.value), m.ev.ball(m.spec.tensors[c.name], 64)[c.i][c.j])


def unmatched(m: Matcher, n: Number) -> Unmatched:
    """``n`` with no verdict: its likely entries (the three nearest of steps, with their
    exact values) and whether it is unverified (it may print one of them: a number with
    decimals near its nearest entry) or no claim at all (a count, a far-off number)."""
    slack = max(1e6, abs(m.value(n)) / (4 * m.half_unit(n)))      # a quarter of it, at any precision
    near = [c for c in m.candidates(n, slack) if c.name not in m.spec.inputs] or \
        [c for c in m.candidates(n, slack)]
    near.sort(key=lambda c: (m.gap(n, c), m.order[c.name]))
    likely = [_entry(m, c) for c in near[:3]]
    plausible = bool(near) and not n.integer and m.near_print(n, near[0])
    return Unmatched(n.line, n.column, n.text, likely[0] if likely else None, printed=n.printed,
                     likely=likely, unverified=plausible)


def unsure_numbers(m: Matcher, g: Group, unsure: by_label.Unsure) -> list[Unmatched]:
    """The numbers of a block the text names but does not place: unverified, each with the
    entries it may print, the nearest first."""
    out = []
    for n in g.numbers:
        cells = sorted(dict.fromkeys(unsure.likely.get(id(n), ())),
                       key=lambda c: m.gap(n, c))
        likely = [_entry(m, c) for c in cells[:3]]
        u = unmatched(m, n)
        out.append(replace(u, nearest=likely[0], likely=likely, unverified=True) if likely else u)
    return out


def _entry(m: Matcher, c: Cell) -> dict:
    t = m.spec.tensors[c.name]
    r = m.ev.rounded(t, c.i, c.j, digits=12, mode="half-even")
    return {"step": c.name, "at": [t.row_label(c.i), t.col_label(c.j)],
            "exact": str(r) if r is not None else "-inf"}
