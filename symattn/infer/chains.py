"""The statistics of a printed block, worked number by number in the text after it.

An article that normalises a vector by hand prints the chain, one number at a time: the
sum, the mean, each difference from the mean, each square, the variance, the standard
deviation, the normalised entries (the steps of LayerNorm,
:func:`symattn.ops.norm.layer_norm_steps`, each of a row of the block). None of them need be
a block of its own, so the search of :mod:`.search` (blocks from blocks) never sees them.

The same holds for a cross-entropy worked from the probabilities at the targets (their
logs, the mean, its negation: the loss, and the perplexity, :data:`LOG_LIKELIHOOD`) and for
a softmax worked by hand (each exponential, their sum, the quotients, :data:`SOFTMAX`).

For every printed block ``X`` (or blocks printed one right after another, concatenated)
each chain's steps are written in the spec language (``mean(X)``, ``X - mean(X)``,
``var(X, ddof=0)`` …, every step the declared operation it names: its maths is that
operation's, never restated here), evaluated on the block's printed values, and looked up
among the numbers printed from the block down to the next block (its part of the article,
as :func:`.spec_out.line_ranges` gives it). A step is *shown* when most of its non-zero
entries are printed there (within half a unit of the print's last digit), each number
taken once. The chain is kept when its shown steps explain more numbers than they have
freedom (:data:`MIN_BEYOND` more than one per step, and the divisor ``d − 1`` chosen)
and one of them is worked entry by entry (:data:`ELEMENTWISE`; statistics of the rows
alone coincide too easily with the numbers of a long part), and two steps are shown at
least (one alone is a block derived from a block: the search's); a lone number never makes a
chain, and zeros (a mean of normalised entries) and whole numbers (a count, an index)
are no evidence.

A later block of the block's shape whose rows are its deviations each divided by a number
printed in its part is the normalised step computed from the text's own standard
deviations (:func:`_carried`), right or wrong: then the standard deviation is a step, and
the article check flags the wrong ones and the rows that follow from them.

The kept steps join the inferred spec; the article check then judges every number
printed for them, wrong ones included, as for a hand-written spec.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .blocks import Block
from .search import _reprints

# Each chain: (key, expression) in order; ``{x}``: the block (or the concatenation of
# blocks printed one after another), ``{ddof}``: the divisor's choice, ``{<key>}``: an
# earlier step (its name when shown, else its expression).
STATISTICS = (("sum", "sum({x})"),
              ("mean", "mean({x})"),
              ("deviations", "{x} - {mean}"),
              ("squared_deviations", "{deviations} ** 2"),
              ("sum_squares", "sum({squared_deviations})"),
              ("variance", "var({x}, ddof={ddof})"),
              ("std", "sqrt({variance})"),
              ("normalised", "{deviations} / {std}"))
LOG_LIKELIHOOD = (("log", "log({x})"),                 # of probabilities (at the targets)
                  ("neg_log", "-{log}"),
                  ("mean_log", "mean({log})"),
                  ("loss", "-{mean_log}"),             # the cross-entropy
                  ("perplexity", "exp({loss})"))
SOFTMAX = (("exp", "exp({x})"),
           ("sum_exp", "sum({exp})"),
           ("softmax", "{exp} / {sum_exp}"))
CHAINS = (STATISTICS, LOG_LIKELIHOOD, SOFTMAX)
ELEMENTWISE = ("deviations", "squared_deviations", "normalised", "log", "neg_log", "exp",
               "softmax")                           # a number per entry of X
DDOF = ("0", "1")          # the biased divisor d, then d − 1 (one more choice)
MOST = 3 / 4               # share of a step's non-zero entries printed
MIN_BEYOND = 3             # numbers explained beyond the chain's freedom
MIN_COLS = 3               # a row of two is too easily matched by chance
CARRIED = 2                # half-units a hand-divided entry may be off
GAP = 24                   # a step's numbers begin this many numbers after the last one explained
ROUNDED = 1e-3             # half a unit at most this share of an entry: a computed printout
SLACK = 10                 # lines after a chain's last number that are still its part
MAX_NEXT = 2               # blocks after a block's part tried as its normalised rows


@dataclass
class Chain:
    """The shown steps of the statistics of ``operands`` (one block, or blocks printed one
    after another, concatenated): (name, expression, line) in order (a step may be a later
    block: ``prints``), and how many printed numbers they explain."""
    operands: tuple
    steps: list
    explained: int
    prints: tuple = ()      # the later blocks a step of it is (their indices)
    end: int = 0            # the last line of its part: SLACK after the last number it explains


@dataclass
class _Printed:
    value: float
    half: float
    line: int


@dataclass
class _Candidate:
    """What a chain is of: ``text`` (a block's name, or ``concat(A, B)``) over ``operands``."""
    text: str
    operands: tuple
    name: str
    window: list
    nexts: list
    parts: dict             # next block's index -> the numbers of its own part


def chains(found: list[Block], parts: list, search, derived=()) -> dict[int, Chain]:
    """Index of the (last) block -> the chain of its statistics the text shows (``parts``:
    the article's (path, lines); ``search``: the :class:`.search.Search` whose ``value``
    evaluates; ``derived``: the blocks the search derives, no step of a chain)."""
    numbers = {path: _numbers(lines) for path, lines in parts}
    used = {b.name for b in found}
    out, taken_blocks = {}, set()
    for cand in _candidates(found, numbers, derived):
        if any(o.index in taken_blocks or o.index in out for o in cand.operands):
            continue
        cand.nexts = [o for o in cand.nexts if o.index not in taken_blocks]
        c = _best(cand, search, used)
        if c is not None:
            out[cand.operands[-1].index] = c
            used |= {name for name, _, _ in c.steps}
            taken_blocks |= set(c.prints)
    return out


def _candidates(found: list[Block], numbers: dict, derived):
    """Each block of three columns or more, then each run of blocks of as many rows
    printed one right after another (``concat(A, B)``: the probabilities of two texts)."""
    runs = [[b] for b in found if b.parent is None]
    for a, b in zip(found, found[1:]):
        if a.parent is None and b.parent is None and a.path == b.path and a.shape[0] == b.shape[0] \
                and 0 < b.line - a.line <= a.shape[0] + 1:
            runs.append([a, b])
    starts = sorted({(b.path, b.line) for b in found})

    def part(first: Block, run: list) -> tuple[list, int]:
        later = [ln for p, ln in starts if p == first.path and ln > run[-1].line]
        stop = later[0] - 1 if later else 10 ** 9
        return [n for n in numbers.get(first.path, ()) if first.line <= n.line <= stop
                and not any(_own(n, b) for b in run)], stop
    for run in runs:
        if sum(b.shape[1] for b in run) < MIN_COLS:
            continue
        window, stop = part(run[0], run)
        nexts = [o for o in found if o.path == run[-1].path and o.line > stop and o.parent is None
                 and o.index not in derived][:MAX_NEXT]
        text = run[0].name if len(run) == 1 else "concat(" + ", ".join(b.name for b in run) + ")"
        yield _Candidate(text, tuple(run), run[-1].name, window, nexts,
                         {o.index: part(o, [o])[0] for o in nexts})


def _numbers(lines) -> list[_Printed]:
    from ..article.tokens import numbers_in
    out = []
    for ln in lines:
        for n in numbers_in(ln):
            if n.neg_inf or n.exponent:
                continue
            d = len(n.printed.split("e")[0].partition(".")[2]) if "e" not in n.printed else None
            if not d or n.value == 0:     # a printed 0, a whole number: no evidence (too common)
                continue
            out.append(_Printed(float(n.value), 0.5 * 10.0 ** -d, n.line))
    return out


def _own(n: _Printed, b: Block) -> bool:
    """A number of the block's own print (its entries on its lines)."""
    return n.line < b.line + b.shape[0] + 1 and bool(np.any(np.abs(b.floats - n.value) <= 1e-12))


def _best(cand: _Candidate, search, used: set) -> Chain | None:
    """The chain that explains the most printed numbers, of each chain and divisor."""
    best, window = None, cand.window
    probabilities = all(bool(np.all((b.floats > 0) & (b.floats <= 1))) for b in cand.operands)
    for chain in CHAINS:
        if chain is LOG_LIKELIHOOD and not probabilities:
            continue
        for k, ddof in enumerate(DDOF if chain is STATISTICS else DDOF[:1]):
            cand.window = window
            c = _chain(cand, chain, search, used, ddof, k)
            if c is not None and (best is None or c.explained > best.explained):
                best = c
    return best


def _wrapped(text: str) -> str:
    return f"({text})" if any(op in text for op in (" + ", " - ", " * ", " / ", "**")) or \
        text.startswith("-") else text


def _chain(cand: _Candidate, chain: tuple, search, used: set, ddof: str, freedom: int
           ) -> Chain | None:
    taken: set = set()
    shown, explained, several, prints = [], 0, False, ()
    names: dict = {}
    inline: dict = {}
    last = -1                                # the window's last number explained so far
    for key, template in chain:
        inline[key] = template.format(x=_wrapped(cand.text), ddof=ddof,
                                      **{k: _wrapped(v) for k, v in inline.items()})
        with np.errstate(all="ignore"):       # exp of large entries: inf, no match
            v = search.value(inline[key], cand.operands)
        if v is None or _reprints(v, cand.operands):       # x − mean(x) of a centred x: x again
            continue
        v = np.atleast_2d(v)
        block = next((o for o in cand.nexts if o.index not in prints and _prints(o, v)), None)
        before = set(taken)
        got = _printed(v, cand.window, taken, last) if block is None else \
            int(np.count_nonzero(block.floats))
        if not got and block is None and all(_computed(b) for b in cand.operands):
            got = _printed(v, cand.window, taken, last, _spread(cand.operands, inline[key], v))
        if not got:
            continue
        last = max(taken, default=-1) if block is None else len(cand.window) - 1
        name = _name(cand.name, key, used) if block is None else block.name
        if block is not None:                 # its part prints the steps after it
            prints += (block.index,)
            cand.window = cand.window + cand.parts.get(block.index, [])
        expr = template.format(x=_wrapped(cand.text), ddof=ddof, **{
            k: names.get(k) or _wrapped(v) for k, v in inline.items() if k != key})
        names[key] = name
        line = block.line if block is not None else min(cand.window[k].line for k in taken - before)
        shown.append((name, expr, line))                  # where it is printed first
        explained += got
        several |= key in ELEMENTWISE and got >= 2
    if chain is STATISTICS and len(cand.operands) == 1 and "mean" in names \
            and "std" not in names and "normalised" not in names:
        got = _with_carried(cand, search, used, ddof, taken, names, inline, shown)
        if got is not None:
            explained += got[0]
            several, prints = True, prints + (got[1],)
    freedom += len(shown)
    if explained < freedom + MIN_BEYOND or not several or len(shown) < 2:
        return None                          # one step alone is a derivation, the search's
    end = max([cand.window[k].line for k in taken] + [b.line + b.shape[0] + 1 for b in cand.nexts
                                                      if b.index in prints]) + SLACK
    return Chain(tuple(o.index for o in cand.operands), shown, explained, prints, end)


def _with_carried(cand: _Candidate, search, used: set, ddof: str, taken: set, names: dict,
                  inline: dict, shown: list):
    """The standard deviation and a later block of normalised rows computed from the
    text's own (:func:`_carried`) added to ``shown``: (numbers explained, that block's
    index), or None."""
    b = cand.operands[0]
    with np.errstate(all="ignore"):
        dev = search.value(inline["deviations"], cand.operands)
    carried = _carried(b, dev, cand.window, taken, cand.nexts, search, ddof)
    if carried is None:
        return None
    target, got = carried
    names["std"] = _name(b.name, "std", used)
    shown.append((names["std"], f"sqrt({names.get('variance') or inline['variance']})", b.line))
    shown.append((target.name, f"({b.name} - {names['mean']}) / {names['std']}", target.line))
    return got, target.index


def _prints(o: Block, v: np.ndarray) -> bool:
    """Is block ``o`` the print of ``v`` (every entry within its rounding)?"""
    return o.shape == v.shape and bool(np.all(np.abs(o.floats - v) <= o.half * (1 + 1e-9) + 1e-12))


def _printed(v: np.ndarray, window: list, taken: set, last: int, spread=0.0) -> int | None:
    """How many of ``v``'s non-zero entries are printed in ``window`` (each number once,
    marked in ``taken``; each within :data:`GAP` numbers of the last one explained, the
    window's ``last`` before this step; within the print's rounding, plus ``spread``: what
    the operands' rounding moves each entry), when most are; else None (nothing taken)."""
    spread = np.broadcast_to(spread, v.shape).ravel().tolist()
    entries = [(x, e) for x, e in zip(v.ravel().tolist(), spread) if abs(x) > 1e-12]
    if not entries:
        return None
    picked = []
    for x, e in entries:
        reach = max(picked + [last]) + GAP
        k = next((i for i, n in enumerate(window[:reach]) if i not in taken and i not in picked
                  and abs(n.value - x) <= (n.half + e) * (1 + 1e-9) + 1e-12), None)
        if k is not None:
            picked.append(k)
    if len(picked) < MOST * len(entries):
        return None
    taken.update(picked)
    return len(picked)


def _computed(b: Block) -> bool:
    """A printout of computed numbers, four significant digits or more each (a model's
    probabilities): what a step computes from it carries their rounding."""
    return bool(np.all(b.half > 0) and np.all(b.half <= ROUNDED * np.abs(b.floats)))


def _spread(operands: tuple, text: str, v: np.ndarray):
    """How far ``text``'s value ``v`` moves when every operand's printed entry moves to an
    end of its rounding (all up, then all down), or 0 when that cannot be evaluated."""
    from .search import Search
    out = np.zeros_like(v)
    for sign in (1, -1):
        moved = tuple(_moved(b, sign) for b in operands)
        with np.errstate(all="ignore"):
            w = Search(list(moved), "").value(text, moved)
        if w is None or np.atleast_2d(w).shape != v.shape:
            return 0.0
        out = np.maximum(out, np.abs(np.atleast_2d(w) - v))
    return np.nan_to_num(out, nan=0.0, posinf=0.0)


def _moved(b: Block, sign: int) -> Block:
    """``b`` with every printed entry moved by ``sign`` × half a unit of its last digit."""
    from dataclasses import replace
    from fractions import Fraction
    p = b.printed
    values = tuple(tuple(Fraction(x) + sign * Fraction(str(h)) for x, h in zip(row, hs))
                   for row, hs in zip(p.values, b.half.tolist()))
    return replace(b, printed=replace(p, values=values), floats=b.floats + sign * b.half)


def _name(base: str, key: str, used: set) -> str:
    name, k = f"{base}_{key}", 2
    while name in used:
        name, k = f"{base}_{key}_{k}", k + 1
    return name


def _carried(b: Block, dev, window: list, taken: set, nexts: list, search, ddof: str):
    """(the block, numbers explained) of a later block of ``b``'s shape whose rows are
    ``b``'s deviations divided each by a number printed in ``b``'s part (the text's own
    standard deviations, right or wrong: the article check judges them and the rows
    computed from them), when most rows are, and more of those numbers are the
    standard deviation with this divisor than with the other (at least one); else None.
    ``dev``: ``b``'s deviations (rows × cols)."""
    stds = {d: search.value(f"sqrt(var({b.name}, ddof={d}))", (b,)) for d in DDOF}
    if dev is None or any(v is None for v in stds.values()):
        return None
    for target in nexts:
        if target.shape != b.shape:
            continue
        picked = {}
        for i in range(b.shape[0]):
            k = _divisor(dev[i], target.floats[i], target.half[i], window, taken | set(picked.values()))
            if k is not None:
                picked[i] = k
        if len(picked) < max(2, MOST * b.shape[0]):
            continue
        exact = {d: sum(abs(window[k].value - float(np.ravel(v)[i])) <= window[k].half * (1 + 1e-9)
                        for i, k in picked.items()) for d, v in stds.items()}
        other = max(n for d, n in exact.items() if d != ddof)
        if exact[ddof] < 1 or exact[ddof] <= other:
            continue
        taken.update(picked.values())
        return target, len(picked) + int(np.count_nonzero(target.floats))
    return None


def _divisor(dev: np.ndarray, row: np.ndarray, half: np.ndarray, window: list, taken: set):
    """The first number of ``window`` (not ``taken``) that the deviations ``dev`` divided
    by give the printed ``row`` (within one unit of its last digit: a hand division of
    rounded numbers; two non-zero entries at least)."""
    live = np.abs(dev) > 1e-12
    if np.any(np.abs(row[~live]) > half[~live]) or live.sum() < 2:
        return None
    for k, n in enumerate(window):
        if k not in taken and n.value > 0 and np.all(
                np.abs(dev[live] / n.value - row[live]) <= CARRIED * half[live] * (1 + 1e-9) + 1e-12):
            return k
    return None
