"""The inferred spec as TOML: what ``-o spec.toml`` writes and what ``check`` loads.

One spec per worked example: the blocks that derivations connect (operands and results)
are one example; examples whose lines interleave are one. Each has ``[inputs]`` (the
blocks its derivations use and nothing derives, with their article ``line``), ``[[steps]]``
(the derived blocks in reading order, each with the derivation's expression and its
``line``), ``source`` (the article's files, relative to the spec) and, when an article
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
from .order import dependency_order, ends_text
from .search import Derivation


def examples(found: list[Block], derived: dict[int, Derivation],
             reprints: dict | None = None) -> list[list[Block]]:
    """The blocks of each example (connected by derivations; a block printed again joins
    the example of the block it prints), in reading order."""
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
    used = {o.index for d in derived.values() for o in d.operands}   # a row X[1]: X
    groups: dict = {}
    for b in found:
        if b.index in derived or b.index in used or b.index in reprints:
            groups.setdefault(root(b.index), []).append(b)
    spans = sorted(groups.values(), key=lambda g: g[0].index)
    merged: list[list[Block]] = []
    for g in spans:                         # interleaved examples are one
        if merged and g[0].index < merged[-1][-1].index:
            merged[-1] = sorted(merged[-1] + g, key=lambda b: b.index)
        else:
            merged.append(g)
    return merged


def line_ranges(groups: list[list[Block]], found: list[Block], end: int) -> list[tuple]:
    """Each example's article lines: those of its blocks, each with the text after it up
    to the next block printed (the article's last line ``end`` after the last). A number printed
    in another block, or in the text after it, is no claim on the example. (A vector of the
    prose that no example takes is a piece of the text, not a block that ends one.)"""
    starts = sorted({b.line for b in found if ends_text(b)} | {b.line for g in groups for b in g})
    out = []
    for g in groups:
        regions: list[list[int]] = []
        for line in sorted({b.line for b in g}):
            later = [x for x in starts if x > line]
            stop = later[0] - 1 if later else max(end, line)
            if regions and line <= regions[-1][1] + 1:
                regions[-1][1] = max(regions[-1][1], stop)
            else:
                regions.append([line, stop])
        out.append(tuple(tuple(r) for r in regions))
    return out


def spec_text(group: list[Block], derived: dict[int, Derivation], sources: list[str],
              ident: str, lines: tuple | None) -> str:
    """The TOML of one example."""
    steps = dependency_order([b for b in group if b.index in derived], derived)
    taken = {o.index for b in steps for o in derived[b.index].operands}
    inputs = [b for b in group if b.index not in derived and b.index in taken]
    x = next((b for b in inputs if b.printed.rows), None)
    out = ["# Inferred by symattn from the article: which printed blocks are inputs and which are",
           "# computed was found by search; review it, edit it, then: symattn check THIS.toml",
           "[example]", f"id = {toml_string(ident)}",
           f"title = {toml_string('Worked example of ' + shown(Path(sources[0]).name))}",
           "source = " + (toml_string(sources[0]) if len(sources) == 1 else _strings(sources)),
           'rounding = "half-up"']
    if lines is not None:
        out.append("lines = [" + ", ".join(f"[{a}, {b}]" for a, b in lines) + "]")
    if x is not None:
        out.append(f"tokens = {_strings(x.printed.rows)}")
    out += ["", "[inputs]"]
    for b in inputs:
        rows = ""
        if b.printed.rows:
            rows = ', rows = "tokens"' if b.printed.rows == x.printed.rows else \
                f", rows = {_strings(b.printed.rows)}"
        rounded = ", rounded = true" if b.rounded else ""
        out.append(f"{toml_key(b.name)} = {{ value = {_value(b.printed)}{rows}{rounded}, line = {b.line} }}")
    for b in steps:
        d = derived[b.index]
        out += ["", "[[steps]]", f"name = {toml_string(b.name)}", f"expr = {toml_string(d.expr)}",
                f"line = {b.line}"]
        if d.mistake:
            out.append(f"# the print is reproduced by a common mistake of it: {d.mistake}")
    return "\n".join(out) + "\n"


def relative(path: str, folder: str) -> str:
    """``path`` relative to ``folder`` (as a spec's ``source`` is), with forward slashes."""
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(folder))).as_posix()


def identifier(path: str, k: int, n: int) -> str:
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(path).stem).strip("-") or "article"
    return stem if n == 1 else f"{stem}-ex{k + 1}"
