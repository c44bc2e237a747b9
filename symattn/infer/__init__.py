"""A worked example inferred from its article alone (``symattn check ARTICLE``).

The printed blocks are the candidates (:mod:`.blocks`); which are computed, and from what,
is found by search over the declared operations (:mod:`.search`); the result is a spec
(:mod:`.spec_out`) that is then checked exactly as a hand-written one, through the same
article check: nothing is called wrong by the search itself.

Several files whose names differ only by ``.partN`` are one article (an example printed
across notebooks); other files are inferred each on its own. One spec per worked example.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..article.read import READERS as ARTICLE_SUFFIXES   # the suffixes an article is read by
from ..errors import SpecError


@dataclass
class Inferred:
    """One inferred example: its id, the article files and the spec's TOML text (its
    ``source`` relative to ``folder``)."""
    id: str
    articles: list
    text: str
    folder: str


def is_article(path: str) -> bool:
    """Is ``path`` an article (or a folder of them) rather than a spec? A file of another
    suffix than ``.toml`` and an article reader's (a lesson kept as ``.ts``, ``.rst``) is
    one unless it opens a spec's ``[example]`` table."""
    p = Path(path)
    if p.is_dir():
        return not any(p.glob("*.toml")) and any(article_files(str(p)))
    suffix = p.suffix.lower()
    return suffix in ARTICLE_SUFFIXES or suffix != ".toml" and p.is_file() and not _spec_like(p)


_SPEC_TABLE = re.compile(rb"^\s*\[\s*example\s*\]", re.M)


def _spec_like(path: Path) -> bool:
    """Does the file hold a spec's ``[example]`` table (it is read as a spec, its errors
    reported as a spec's)?"""
    from ..errors import SymattnError
    from ..spec.files import read_regular
    try:
        return _SPEC_TABLE.search(read_regular(str(path), 1 << 20)) is not None
    except SymattnError:
        return True


def article_files(folder: str) -> list[str]:
    return sorted(str(p) for p in Path(folder).iterdir()
                  if p.is_file() and p.suffix.lower() in ARTICLE_SUFFIXES)


def _articles(paths: list[str]) -> list[list[str]]:
    """The files of each article (``x.part1.ipynb`` and ``x.part2.ipynb`` are one)."""
    from ..article.check import article_name
    files = [f for p in paths for f in (article_files(p) if Path(p).is_dir() else [p])]
    out: dict = {}
    for f in files:
        out.setdefault((str(Path(f).parent), article_name(f)), []).append(f)
    return [sorted(v) for v in out.values()]


def infer(paths: list[str], folder: str | None = None, skipped: list | None = None) -> list[Inferred]:
    """The inferred examples of the articles at ``paths`` (files or folders); ``folder``:
    where the spec will be (its ``source`` is relative to it; default: the article's).
    With ``skipped`` (a list), an article of several in which nothing is inferred is left
    out and its error added there; the error is raised when no article has an example."""
    out, errors = [], []
    for files in _articles(paths):
        try:
            out += infer_article(files, folder)
        except SpecError as e:
            if skipped is None or "no worked example found" not in str(e):
                raise
            errors.append(e)
    if errors and not out:
        raise errors[0]
    if skipped is not None:
        skipped += errors
    return out


def infer_article(files: list[str], folder: str | None = None) -> list[Inferred]:
    """The examples of one article (its files in order). An article in which no block is
    derived from others is a one-line error: nothing could be checked."""
    from ..article.read import read_article
    from .blocks import blocks
    from .chains import chains
    from .order import linked
    from .passes import infer_derivations
    from .restated import restated
    from .search import Search
    from .stated import code_names, with_stated
    from .spec_out import (echoed, examples, identifier, in_examples, line_ranges, relative, spec_text,
                           written_text)
    from .written_steps import written_claims, written_steps
    parts = [(f, read_article(f)) for f in files]
    found = code_names(with_stated(blocks(parts), parts), parts)
    text = "\n".join(ln.text for _, lines in parts for ln in lines)   # code states parameters too (eps=0)
    derived, reprints = infer_derivations(found, text, parts)
    shown = chains(found, parts, Search(found, ""), derived)
    for c in shown.values():             # a block the search derived that a chain works out: the chain's step
        for i in c.prints:
            derived.pop(i, None)
    taken = {i: c.prints + c.operands for i, c in shown.items()}
    onto: dict = {}                       # claims of written arithmetic on derived blocks' entries
    lone = written_steps(found, parts, shown, in_examples(derived, reprints, taken),
                         _names(found, derived, shown), derived, set(reprints), onto)
    _written_over(found, derived, written_claims(list(shown.values()) + [lone], {}))   # not onto it
    moved = restated(found, derived, reprints, lone)    # softmax([0.577, …]) of 1 / 1.732 = 0.577
    joined = {i: c.prints + c.operands for i, c in shown.items()}
    for i, js in linked(shown, derived).items():
        joined[i] = joined.get(i, ()) + js
    groups = examples(found, derived, reprints, joined)
    folder = folder or str(Path(files[0]).parent)
    sources = [relative(f, folder) for f in files]
    if not groups and not lone.steps:
        what = "no block of numbers is printed" if not found else (
            f"of the {len(found)} blocks of numbers printed, none is computed from the others by "
            "the operations symattn knows" if len(found) > 1 else "one block of numbers is printed, "
            "computed from nothing else printed")
        raise SpecError(f"no worked example found: {what}",
                        where=f"{files[0]}:1", hint="write its spec (docs/spec-format.md) and run: "
                        f"symattn check SPEC --article {files[0]}")
    last = max((ln.number for ln in parts[0][1]), default=1)
    by_index = {b.index: b for b in found}
    ends = {i: c.end for c in shown.values() for i in c.operands + c.prints
            if i not in c.prints or by_index[i].shape[0] < 2}   # a table of the chain's rows: its own text
    ranges = line_ranges(groups, found, last, ends) if len(files) == 1 and groups else [None] * len(groups)
    ranges = [r if r is None else _with_moved(r, g, moved) for g, r in zip(groups, ranges)]
    n = len(groups) + bool(lone.steps)      # arithmetic on no block's numbers (e^{2.0} = 7.389
    again = echoed(found, parts, derived, written_claims(list(shown.values()) + [lone], onto))  # in prose):
    for i, claims in onto.items():                                                                # an example too
        again.setdefault(i, []).extend(claims)
    ranges = [r if r is None else _with_spans(r, [(c[3], c[3]) for b in g if b.index in derived
                                                  for c in again.get(b.index, ())])   # printed again there
              for g, r in zip(groups, ranges)]
    out = [Inferred(identifier(files[0], k, n), files,
                    spec_text(g, derived, sources, identifier(files[0], k, n), r, shown, again), folder)
           for k, (g, r) in enumerate(zip(groups, ranges))]
    if lone.steps:
        lines = ((min(s[2] for s in lone.steps), max(s[2] for s in lone.steps)),) if len(files) == 1 else None
        out.append(Inferred(identifier(files[0], n - 1, n), files,
                            written_text(lone, sources, identifier(files[0], n - 1, n), lines), folder))
    return out


def _written_over(found: list, derived: dict, claimed: dict) -> None:
    """Drop the derivation of a one-row block whose every number the arithmetic written on
    its line claims (``[0.9929/1.9929, 1.0/1.9929] ≈ [0.498, 0.502]``): the written steps
    compute it, from the results they take up; a second step would claim its numbers again."""
    from collections import Counter
    by_index = {b.index: b for b in found}
    for i in list(derived):
        b = by_index.get(i)
        if b is None or b.shape[0] != 1 or b.line not in claimed:
            continue
        need = Counter(b.printed.values[0])
        if all(claimed[b.line][v] >= k for v, k in need.items()):
            derived.pop(i)


def _with_moved(ranges: tuple, group: list, moved: dict) -> tuple:
    """An example's line ranges with the lines of the written steps moved into it."""
    return _with_spans(ranges, [moved[b.index] for b in group if b.index in moved])


def _with_spans(ranges: tuple, extra: list) -> tuple:
    """Line ranges with the spans ``extra`` (first, last line) joined to them."""
    if not extra:
        return ranges
    spans = sorted([list(r) for r in ranges] + [list(e) for e in extra])
    out = [spans[0]]
    for a, b in spans[1:]:
        if a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return tuple(tuple(r) for r in out)


def _names(found: list, derived: dict, shown: dict) -> set:
    """Every name the inferred specs give."""
    out = {b.name for b in found}
    out |= {name for d in derived.values() for name, *_ in d.steps + d.after}
    return out | {name for c in shown.values() for name, _, _ in c.steps}
