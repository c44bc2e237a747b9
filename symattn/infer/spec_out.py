"""The inferred spec as TOML: what ``-o spec.toml`` writes and what ``check`` loads.

One spec per worked example: the blocks that derivations connect (operands and results)
are one example; examples whose lines interleave are one. Each has ``[inputs]`` (the
blocks its derivations use and nothing derives, with their article ``line``), ``[[steps]]``
(the derived blocks in reading order, each with the derivation's expression and its
``line``), ``[[claims]]`` (a result written on a step's line, a block printed again whole),
``source`` (the article's files, relative to the spec) and, when an article
holds several examples, ``lines`` (its part of the article).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..article.starter import _strings, _value
from ..numbers import shown
from ..spec.toml_lines import toml_key, toml_string
from .blocks import Block
from .evidence import whole
from .order import dependency_order, ends_text
from .search import Derivation


def examples(found: list[Block], derived: dict[int, Derivation],
             reprints: dict | None = None, chained: dict | None = None) -> list[list[Block]]:
    """The blocks of each example (connected by derivations; a block printed again joins
    the example of the block it prints; a block whose statistics the text works out,
    ``chained``: index -> the later blocks its steps print, is one with them), in
    reading order."""
    chained = chained or {}
    reprints = reprints or {}
    parent = {b.index: b.index for b in found}

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    for i, d in derived.items():
        for o in d.operands:
            parent[root(o.index)] = root(i)
    for i, j in reprints.items():
        parent[root(i)] = root(j)
    for i, later in chained.items():
        for j in later:
            parent[root(j)] = root(i)
    used = {o.index for d in derived.values() for o in d.operands}   # a row X[1]: X
    taken = in_examples(derived, reprints, chained)
    groups: dict = {}
    for b in found:
        if b.index in taken:
            groups.setdefault(root(b.index), []).append(b)
    spans = sorted(groups.values(), key=lambda g: g[0].index)
    merged: list[list[Block]] = []
    for g in spans:                         # interleaved examples are one
        woven = [m for m in merged if _interleaved(m, g, derived, used)]
        merged = [m for m in merged if not any(m is w for w in woven)]
        merged.append(sorted(sum(woven, []) + g, key=lambda b: b.index))
    return sorted(merged, key=lambda g: g[0].index)


def in_examples(derived: dict, reprints: dict, chained: dict) -> set:
    """The indices of the blocks some example takes: derived, an operand (a row ``X[1]``:
    ``X``), printed again, or of a chain (``chained``: index -> the later blocks it takes)."""
    out = set(derived) | set(reprints) | set(chained) | {j for later in chained.values() for j in later}
    return out | {o.index for d in derived.values() for o in d.operands}


MIN_OWN_INPUTS = 2          # an example set in a pause of another: its own weights, at least


def _interleaved(a: list[Block], b: list[Block], derived: dict, used: set) -> bool:
    """Do two examples' blocks overlap in reading order, as one example? Not when one lies
    whole between two consecutive blocks of the other and has inputs of its own
    (:data:`MIN_OWN_INPUTS`): a worked example set in a pause of another (a cross-attention
    section between self-attention and the multi-head section that takes its result up
    again), not a side computation on one printed vector (a softmax worked out by hand)."""
    if not (a[0].index < b[-1].index and b[0].index < a[-1].index):
        return False
    return not any(_within(inner, outer) and
                   sum(x.index not in derived and x.index in used for x in inner) >= MIN_OWN_INPUTS
                   for inner, outer in ((a, b), (b, a)))


def _within(inner: list[Block], outer: list[Block]) -> bool:
    lo, hi = inner[0].index, inner[-1].index
    return not any(lo <= x.index <= hi for x in outer)


def line_ranges(groups: list[list[Block]], found: list[Block], end: int,
                ends: dict | None = None) -> list[tuple]:
    """Each example's article lines: those of its blocks, each with the text after it up
    to the next block printed (the article's last line ``end`` after the last; for a block
    in ``ends``, index -> line, that line at most: the last number a chain of its statistics
    explains; a table of the chain's rows printed runs to the next block). A number printed in another block, or in the text after it, is no claim on
    the example. (A vector of the prose that no example takes is a piece of the text, not a
    block that ends one.)"""
    starts = sorted({b.line for b in found if ends_text(b)} | {b.line for g in groups for b in g})
    ends = ends or {}
    out = []
    for g in groups:
        regions: list[list[int]] = []
        cap = {}
        for b in g:
            if b.index in ends:
                cap[b.line] = max(cap.get(b.line, 0), ends[b.index])
        for line in sorted({b.line for b in g}):
            later = [x for x in starts if x > line]
            stop = later[0] - 1 if later else max(end, line)
            if line in cap:
                stop = max(line, min(stop, cap[line]))
            if regions and line <= regions[-1][1] + 1:
                regions[-1][1] = max(regions[-1][1], stop)
            else:
                regions.append([line, stop])
        out.append(tuple(tuple(r) for r in regions))
    return out


def spec_text(group: list[Block], derived: dict[int, Derivation], sources: list[str],
              ident: str, lines: tuple | None, chained: dict | None = None,
              echoed: dict | None = None) -> str:
    """The TOML of one example (``chained``: block index -> the :class:`.chains.Chain` of
    its statistics, steps after the block's own; ``echoed``: :func:`echoed`)."""
    chained = chained or {}
    steps = dependency_order([b for b in group if b.index in derived or b.index in chained], derived, chained)
    taken = {o.index for b in steps if b.index in derived for o in derived[b.index].operands}
    taken |= {o for b in group if b.index in chained for o in chained[b.index].operands}
    taken -= {j for b in group if b.index in chained for j in chained[b.index].prints}  # steps
    inputs = [b for b in group if b.index not in derived and b.index in taken]
    x = next((b for b in inputs if b.printed.rows), None)
    out = _header(sources, ident, lines)
    if x is not None:
        out.append(f"tokens = {_strings(x.printed.rows)}")
    out += ["", "[inputs]"]
    for b in inputs:
        rows = ""
        if b.printed.rows:
            rows = ', rows = "tokens"' if b.printed.rows == x.printed.rows else \
                f", rows = {_strings(b.printed.rows)}"
        rounded = ", rounded = true" if b.rounded else ""
        if len(b.given) > 1:                # one matrix the text states under several names
            out.append(f"# {' = '.join(b.given)}, as the text states (line {b.line})")
        out.append(f"{toml_key(b.name)} = {{ value = {_value(b.printed)}{rows}{rounded}, line = {b.line} }}")
    for b in steps:
        d = derived.get(b.index)
        if d is not None:
            for name, expr in d.steps:      # unprinted steps of a chain (.heads)
                out += _step(name, expr)
            out += _step(b.name, d.expr, b.line)
            if d.mistake:
                out.append(f"# the print is reproduced by a common mistake of it: {d.mistake}")
            for name, expr, line in d.after:    # printed where no block is (.program)
                out += _step(name, expr, line)
        for name, expr, line in (chained[b.index].steps if b.index in chained else ()):
            out += _step(name, expr, line)
    for b in steps:                         # a result the text writes on its step's line
        out += _claims(chained[b.index]) if b.index in chained else []
    for b in steps:                         # its numbers printed again
        out += [t for name, at, printed, line in (echoed or {}).get(b.index, ()) if b.index in derived
                and (lines is None or any(lo <= line <= hi for lo, hi in lines))
                for t in ("", "[[claims]]", f"step = {toml_string(name)}", f"at = {at}",
                          f"printed = {toml_string(printed)}", f"line = {line}")]
    return "\n".join(out) + "\n"


ROWS_APART = 2              # lines between the rows of a block printed again, at most


def echoed(found: list[Block], parts: list, derived: dict, taken: dict | None = None) -> dict:
    """Block index -> (name, at, printed, line) of each row (``at``: its index; ``[row,
    column]`` for the entries :func:`.written_steps.written_steps` adds to it) of a derived
    block printed again as first printed, whole (``q₁ = [0.31, 0.33, 0.29]`` restated below
    its derivation) or one row alone (``Row 2 (sat query q=[0.793, 0.836])``), a vector as
    a row of a later table (:func:`_table_rows`), on the line that prints the row: claims on
    its step there, so a wrong number printed again is judged as the step's, not left
    unverified. Not a row printed alone after a row derived from the
    same operands: the text computes that token's row again, and its prints are that
    recomputation's (a LayerNorm worked again for 'Hello'). Nor the numbers ``taken`` (line
    -> Counter of values) by the arithmetic written there (``[0.1+0.141, …] = [0.241, …]``:
    its results, claimed once)."""
    from collections import Counter
    from ..article.tokens import numbers_in
    taken = taken or {}
    read = {path: [(ln, numbers_in(ln)) for ln in ls] for path, ls in parts}
    lines = {path: {ln.number: Counter(n.value for n in ns) - taken.get(ln.number, Counter()) for ln, ns in got}
             for path, got in read.items()}
    as_printed = {path: {(n.line, n.value): n.printed for _, ns in got for n in reversed(ns)}
                  for path, got in read.items()}        # ``1.1920e-01`` as the line prints it
    out: dict = {}
    for b in found:
        if getattr(b, "named", False) and b.index in derived:      # its rows, each on a line of its own
            out[b.index] = [(b.name, i, "[" + ", ".join(r.printed.texts[0]) + "]", r.line)
                            for i, r in enumerate(b.parts) if r.index not in derived
                            and Counter(r.printed.values[0]) <= lines[r.path].get(r.line, Counter())]
        texts = list(b.printed.texts)
        for path, p in b.echoes + _table_rows(b, found, derived):
            if path != b.path or p.line <= b.line:
                continue
            if list(p.texts) == texts:
                rows = list(enumerate(texts))
            elif len(p.texts) == 1 and texts.count(p.texts[0]) == 1 and \
                    not _recomputed(b, p.line, derived):
                rows = [(texts.index(p.texts[0]), p.texts[0])]
            else:
                continue
            line, left = p.line, {}              # the numbers of each line not yet claimed
            for i, row in rows:
                want = Counter(b.printed.values[i])
                line = next((n for n in range(line, line + ROWS_APART + 1) if want <= left.setdefault(
                    n, Counter(lines[path].get(n, ())))), None)
                if line is None:
                    break
                left[line] -= want
                row = [as_printed[path].get((line, v), t) for v, t in zip(b.printed.values[i], row)]
                out.setdefault(b.index, []).append((b.name, i, "[" + ", ".join(row) + "]", line))
    return out


def _table_rows(b: Block, found: list[Block], derived: dict) -> tuple:
    """(path, Printed) of each row of a later table that no derivation computes which
    prints a derived vector ``b`` again, digit for digit and not in whole numbers alone
    (the final output of every token, after one token's worked through): ``b``'s numbers
    printed again there."""
    from ..article.cells import Printed
    if b.index not in derived or b.shape[0] != 1 or whole(b):
        return ()
    return tuple((t.path, Printed("", t.printed.line + i, (t.printed.values[i],), (row,)))
                 for t in found if t.index > b.index and t.path == b.path and t.parent is None
                 and t.index not in derived and t.shape[0] > 1 and t.shape[1] == b.shape[1]
                 for i, row in enumerate(t.printed.texts) if row == b.printed.texts[0])


def _recomputed(b: Block, line: int, derived: dict) -> bool:
    """Is a one-row block printed between ``b`` and ``line`` derived from one of the operands
    of ``b``'s derivation (a token's row taken up again: ``embeddings[0]``)?"""
    d = derived.get(b.index)
    if d is None:
        return True
    sources = {(o.parent or o).index for o in d.operands}
    return any(b.line < c.block.line < line and c.block.shape[0] == 1 and
               any((o.parent or o).index in sources for o in c.operands) for c in derived.values())


def written_text(chain, sources: list[str], ident: str, lines: tuple) -> str:
    """The TOML of an example that is arithmetic on numbers as written alone (``chain``:
    the :class:`.chains.Chain` of its steps), no block an input."""
    out = _header(sources, ident, lines)
    for name, expr, line in chain.steps:
        out += _step(name, expr, line)
    return "\n".join(out + _claims(chain)) + "\n"


def _header(sources: list[str], ident: str, lines: tuple | None) -> list[str]:
    out = ["# Inferred by symattn from the article: which printed blocks are inputs and which are",
           "# computed was found by search; review it, edit it, then: symattn check THIS.toml",
           "[example]", f"id = {toml_string(ident)}",
           f"title = {toml_string('Worked example of ' + shown(Path(sources[0]).name))}",
           "source = " + (toml_string(sources[0]) if len(sources) == 1 else _strings(sources)),
           'rounding = "half-up"']
    if lines is not None:
        out.append("lines = [" + ", ".join(f"[{a}, {b}]" for a, b in lines) + "]")
    return out


def _step(name: str, expr: str, line: int | None = None) -> list[str]:
    out = ["", "[[steps]]", f"name = {toml_string(name)}", f"expr = {toml_string(expr)}"]
    return out + ([f"line = {line}"] if line is not None else [])


def _claims(chain) -> list[str]:
    """A result the text writes on its step's line: which number there the step's claim is."""
    return [t for name, printed, line, *at in chain.claims for t in
            ("", "[[claims]]", f"step = {toml_string(name)}", f"printed = {toml_string(printed)}",
             f"line = {line}") + tuple(f"at = [{a[0]}, {a[1]}]" for a in at)]


def relative(path: str, folder: str) -> str:
    """``path`` relative to ``folder`` (as a spec's ``source`` is), with forward slashes."""
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(folder))).as_posix()


def identifier(path: str, k: int, n: int) -> str:
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(path).stem).strip("-") or "article"
    return stem if n == 1 else f"{stem}-ex{k + 1}"
