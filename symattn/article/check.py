"""Checking an article: the claims found in it, checked exactly as hand-written ones are.

A found number no entry rounds to is tried as a claim on its nearest entry and kept only
if the checker calls it carried; otherwise it is unmatched (never wrong: a number the
matcher is unsure of gets no verdict). Hand-written claims stand beside found ones, one
record per printed number; a hand-written claim whose line does not print its number is
an error.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from fractions import Fraction
from dataclasses import dataclass, field, replace
from pathlib import Path

from .lone import unmatched
from .find import find_claims
from .match import Matcher
from .glued import glued_rows, readings
from .source import Line
from .tokens import numbers_in
from ..claims.check import check_spec
from ..claims.printed import parse_printed
from ..errors import SpecError, SymattnError
from ..tensor import NEG_INF
from ..spec.load import Spec

KEPT = ("carried", "consistent")          # a tentative claim stays only as these
# Diagnoses that say how a number was printed or how it relates to other prints, not which
# mistake in the computation gives it: no evidence that a number prints an entry.
PRINTING = ("digit slip", "adjacent digits", "minus sign", "the value of the neighbouring",
            "last entry adjusted", "restates", "contradicts", "rounded with", "follows from",
            "carried from")
FOLLOWS = "follows from"                  # recomputed from wrong prints: a row's evidence


@dataclass
class ArticleResult:
    records: list = field(default_factory=list)          # claims.check.Record
    unmatched: list = field(default_factory=list)        # match.Unmatched
    lines: dict = field(default_factory=dict)            # article path -> [Line]


def read(paths: list[str]) -> dict[str, list[Line]]:
    """The lines of each article, each file once (``a.md`` and ``./a.md`` are one file)."""
    from .read import read_article
    out, seen = {}, set()
    for p in paths:
        key = os.path.realpath(str(p))
        if key not in seen:
            seen.add(key)
            out[str(p)] = read_article(str(p))
    return out


_PART = re.compile(r"\.part\d+(?=\.[^.]*$)", re.I)


def article_name(path: str) -> str:
    """The name of the article a file holds: ``x.part2.ipynb`` is part of ``x.ipynb``."""
    return _PART.sub("", Path(path).name)


def article_for(spec: Spec, articles: dict) -> list[str]:
    """The articles (of those given) a spec's example is printed in: the files its
    ``source`` names (by file name; a ``.partN`` file is part of the article its name
    without ``.partN`` names), or, for a spec that names none, the only article given."""
    if not spec.sources:
        return list(articles) if len(articles) == 1 else []
    names = {article_name(s) for s in spec.sources}
    return [path for path in articles if article_name(path) in names]


def unnamed(specs: list[Spec], articles) -> list[str]:
    """The articles that no spec's ``source`` names (nothing would be checked in them)."""
    lines = dict.fromkeys(articles)
    used = {p for spec in specs for p in article_for(spec, lines)}
    return [p for p in lines if p not in used]


def check_article(spec: Spec, paths: list[str], diagnose: bool = True) -> ArticleResult:
    """Every number of the spec's article checked: found claims and hand-written ones."""
    return check_articles([spec], read(paths), diagnose)


def _parts(specs: list[Spec], articles: dict) -> list[tuple[Spec, str | None, list]]:
    """(spec, article, the spec's hand-written claims) triples: a spec printed across several
    of the articles given is one triple per file, its hand-written claims with the first
    (found claims name their file)."""
    out = []
    for spec in specs:
        paths = article_for(spec, articles)
        if len(paths) == 1 and Path(paths[0]).name != Path(spec.source).name:
            out.append((replace(spec, source=Path(paths[0]).name), paths[0], spec.claims))   # x.part2 of x
        elif len(paths) <= 1:
            out.append((spec, paths[0] if paths else None, spec.claims))
        else:
            out += [(replace(spec, source=Path(p).name, claims=spec.claims if k == 0 else []), p, spec.claims)
                    for k, p in enumerate(paths)]
    return out


def check_articles(specs: list[Spec], articles: dict, diagnose: bool = True) -> ArticleResult:
    """Specs and the articles they come from (path -> lines, as :func:`read` gives)."""
    out = ArticleResult(lines=articles)
    parts = _parts(specs, articles)
    hand = [written for _, _, written in parts]
    parts = [(spec, path) for spec, path, _ in parts]
    found = {}
    for k, (spec, path) in enumerate(parts):
        if path is not None:
            try:
                if len(spec.sources) <= 1:           # a claim's line is a line of its one file
                    _hand_claims_printed(spec, path, articles[path])
                found[k] = find_claims(spec, articles[path])
            except SymattnError as e:            # a number past the limits, at its line
                raise e.located(f"{path}:{getattr(e, 'line', 1)}") from None
    _one_example_per_number(parts, found)
    claimed = {(path, c.line, col) for k, (s, path) in enumerate(parts) if k in found
               for c in found[k].claims for col in c.columns}
    for k, (spec, path) in enumerate(parts):
        f = found.get(k)
        if f:
            f.unmatched = [u for u in f.unmatched if (path, u.line, u.column) not in claimed]
        records, lost = _check(spec, f, diagnose, hand[k]) if f else (check_spec(spec, diagnose), [])
        out.records += records
        if f:
            for u in f.unmatched + lost:
                u.where = Path(path).name
            out.unmatched += sorted((u for u in _not_hand_written_numbers(spec, f.unmatched + lost)
                                     if u.unverified), key=lambda u: (u.where, u.line, u.column))
    _restated(out.records)
    return out


def _restated(records: list):
    """Mark each found wrong number that prints again, for the same entry, the wrong
    number an earlier line of its file printed (a summary table of results already shown),
    found or claimed (a hand-written claim names no file of a spec's several: any of them):
    one mistake, printed twice; it is still fixed in both places."""
    first: dict = {}
    for r in sorted((r for r in records if r.verdict == "wrong"), key=lambda r: (r.line, r.column or 0)):
        entry = (r.example, r.step, tuple(map(str, r.at)), r.printed.replace("\u2212", "-"))
        earlier = first.get(entry + (r.source,)) or first.get(entry)
        if r.found and earlier is not None and earlier < r.line:
            r.restates = earlier
        else:
            first.setdefault(entry + (r.source,) if r.found else entry, r.line)


def _check(spec: Spec, f, diagnose: bool, written: list):
    """The records of a spec's part (one file): its claims and those found there, less the
    found ones that a hand-written claim of the spec (``written``: of every part) names."""
    hand = spec.claims
    claims = _not_scalar_claimed(spec, written, _not_hand_written(written, f.claims))
    lost = []
    try:
        if f.tentative:
            spec.claims = hand + claims
            first = check_spec(spec, diagnose=diagnose and bool(f.rows), ev=f.ev)
            bad = _not_kept(f, {(r.line, r.column): r for r in first if r.found})
            claims = [c for c in claims if (c.line, c.columns[0]) not in bad]
            m = Matcher(spec, f.ev)
            lost = [unmatched(m, f.pending[k]) for k in sorted(bad)]
        spec.claims = hand + claims
        return check_spec(spec, diagnose, ev=f.ev), lost
    finally:
        spec.claims = hand


def _not_kept(f, records: dict) -> set:
    """The tentative claims to drop: a lone number unless carried; a row or block unless each
    of its numbers is right, carried, follows from the article's wrong prints (recomputed from them, as
    carried is from its right ones) or is reproduced by a known mistake in the computation."""
    def kept(k, mistakes: bool) -> bool:
        r = records.get(k)                       # None: the claim went to another example
        return r is None or r.verdict in KEPT or (mistakes and r.verdict == "correct") or (
            mistakes and r.verdict == "wrong" and any(
                not d.startswith(PRINTING) or d.startswith(FOLLOWS) for d in r.diagnosis or ()))
    in_rows = set().union(*f.rows) if f.rows else set()
    bad = {k for k in f.tentative - in_rows if not kept(k, False)}
    for row in f.rows:
        if not all(kept(k, True) for k in row):
            bad |= row
    return bad


def _not_scalar_claimed(spec: Spec, hand: list, found: list) -> list:
    """Found claims less those on a one-number step on a line where a hand-written claim
    says which number prints it (``-[0 × log(0.20) + 1 × log(0.80)] = -log(0.80) = 0.22``:
    the 0.22, not the 0.20 beside it); the same number again stays (``= 0.32 = 32%``)."""
    said: dict = {}
    for c in hand:
        if spec.tensors.get(c.step) is not None and spec.tensors[c.step].shape == (1, 1):
            said.setdefault((c.line, c.step), []).append(_value(c.printed))
    return [c for c in found if (c.line, c.step) not in said
            or any(_same_print(_value(c.printed), v) for v in said[(c.line, c.step)])]


def _value(printed: str):
    try:
        return parse_printed(printed).entries[0]
    except SymattnError:
        return None


def _same_print(a, b) -> bool:
    """Do two printed numbers print one value (``0.32`` and ``32%``), within the coarser's
    half unit?"""
    from ..claims.printed import last_place
    if a is None or b is None or a.value is NEG_INF or b.value is NEG_INF:
        return a is not None and b is not None and a.value is b.value
    ua, ub = (Fraction(1, 100) if x.percent else 1 for x in (a, b))
    return abs(a.value * ua - b.value * ub) <= max(last_place(a) * ua, last_place(b) * ub) / 2


def _not_hand_written(hand: list, found: list) -> list:
    """Found claims less the printed numbers a hand-written claim already names."""
    return _less_hand_written(hand, found, lambda c: [(c.line, e.value)
                                                      for e in parse_printed(c.printed).entries])


def _not_hand_written_numbers(spec: Spec, unmatched: list) -> list:
    """Unmatched numbers less those a hand-written claim names (at its line)."""
    def keys(u):
        try:
            return [(u.line, parse_printed(u.printed).entries[0].value)]
        except SymattnError:
            return [(u.line, None)]
    return _less_hand_written(spec.claims, unmatched, keys)


def _less_hand_written(hand: list, items: list, keys) -> list:
    """``items`` less those whose (line, value) keys a hand-written claim names, each
    printed number of the hand-written claims used once, the rightmost on a line first (a
    result is written after its operands: ``0.1+0.141 = 0.241``)."""
    named = Counter(k for c in hand for k in [(c.line, e.value) for e in parse_printed(c.printed).entries])
    dropped = set()
    for k, item in sorted(enumerate(items), key=lambda t: -_rightmost(t[1])):
        ks = keys(item)
        if all(named[x] > 0 for x in ks):
            named.subtract(ks)
            dropped.add(k)
    return [item for k, item in enumerate(items) if k not in dropped]


def _rightmost(item) -> int:
    """The last column a found claim (or an unmatched number) prints at."""
    columns = getattr(item, "columns", None) or [getattr(item, "column", 0) or 0]
    return max(c or 0 for c in columns)


def _hand_claims_printed(spec: Spec, path: str, lines: list[Line]):
    bad = unprinted(spec, lines)
    if bad:
        c = bad[0]
        raise SpecError(f"the claim says line {c.line} of {Path(path).name} prints "
                        f"{c.printed[:60]!r}, but that line does not",
                        where=spec.where(c.spec_line),
                        hint="correct the claim's line or printed text")


def unprinted(spec: Spec, lines: list[Line]) -> list:
    """The claims of ``spec`` whose line of the article (``lines``) does not print their
    numbers (a claim whose printed text does not parse is the checker's to name)."""
    by_line: dict = {}                           # an HTML line may be read as several
    for ln in lines:
        for number in ln.source_lines():
            by_line.setdefault(number, []).append(ln)
    glued = glued_rows(lines)
    out = []
    for c in spec.claims:
        here = by_line.get(c.line, [])
        printed = Counter(n.value for ln in here for n in numbers_in(ln) if n.line == c.line)
        for way in readings(here[-1], glued[c.line]) if c.line in glued else ():
            printed.update(n.value for n in way)         # 成分100: the cells 0 and 0
        try:
            want = Counter(e.value for e in parse_printed(c.printed).entries)
        except SymattnError:
            continue
        if not here or not all(printed[v] + printed[-v] >= k for v, k in want.items()):  # 3-4: -4
            out.append(c)
    return out


def _one_example_per_number(parts: list, found: dict):
    """A number in the lines of several examples belongs to the one with the narrowest range."""
    owner: dict = {}
    for k, (spec, path) in enumerate(parts):
        f = found.get(k)
        if f is None:
            continue
        width = sum(b - a for a, b in spec.lines) if spec.lines else 10 ** 9
        for c in f.claims:
            for col in c.columns:
                key = (path, c.line, col)
                if key not in owner or width < owner[key][0]:
                    owner[key] = (width, k)
    for k, (spec, path) in enumerate(parts):
        f = found.get(k)
        if f is not None:
            f.claims = [c for c in f.claims
                        if all(owner[(path, c.line, col)][1] == k for col in c.columns)]
