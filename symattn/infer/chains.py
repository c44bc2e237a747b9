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
chain, and zeros (a mean of normalised entries), whole numbers (a count, an index) and numbers
of one significant digit (0.1 prints 1/9 and many more) are no evidence.

A later block of the block's shape whose rows are its deviations each divided by a number
printed in its part is the normalised step computed from the text's own standard
deviations (:func:`.carried.carried`), right or wrong: then the standard deviation is a step, and
the article check flags the wrong ones and the rows that follow from them. A one-number step
between two shown ones (the variance between the deviations and the standard deviation) that
no number prints within its rounding takes the nearest number printed between them, within
:data:`.chain_numbers.NEAR` (a mistyped variance): the check judges it, and it is no evidence.

The kept steps join the inferred spec; the article check then judges every number
printed for them, wrong ones included, as for a hand-written spec.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .blocks import Block
from .carried import carried as rows_carried
from .chain_numbers import (MOST, Step, WindowNumber, line_of, match_steps, near_print,
                            printed_numbers)
from .evidence import reprints

# Each chain: (key, expression) in order; ``{x}``: the block (or the concatenation of
# blocks printed one after another), ``{ddof}``: the divisor's choice, ``{<key>}``: an
# earlier step (its name when shown, else its expression).
STATISTICS = (("sum", "sum({x})"),
              ("mean", "mean({x})"),
              ("deviations", "{x} - {mean}"),
              ("squared_deviations", "{deviations} ** 2"),
              ("sum_squares", "sum({squared_deviations})"),
              ("variance", "var({x}, ddof={ddof})"),
              ("std", "sqrt({variance}{eps})"),
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
MIN_BEYOND = 3             # numbers explained beyond the chain's freedom
MIN_COLS = 3               # a row of two is too easily matched by chance
ROUNDED = 1e-3             # half a unit at most this share of an entry: a computed printout
SLACK = 10                 # lines after a chain's last number (or a restatement of one: restated_to) still its part
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
    claims: list = field(default_factory=list)   # (step, printed, line) the text states (.written)


@dataclass
class _Candidate:
    """What a chain is of: ``text`` (a block's name, or ``concat(A, B)``) over ``operands``."""
    text: str
    operands: tuple
    name: str
    window: list
    nexts: list
    parts: dict             # next block's index -> the numbers of its own part
    eps: str = ""           # `` + ε`` under the root, where its part states an ε (``√(2 + 0.00001)``)
    moved: dict = field(default_factory=dict)   # sign -> (search, operands moved by their rounding)


def chains(found: list[Block], parts: list, search, derived=()) -> dict[int, Chain]:
    """Index of the (last) block -> the chain of its statistics the text shows (``parts``:
    the article's (path, lines); ``search``: the :class:`.search.Search` whose ``value``
    evaluates; ``derived``: the blocks the search derives, no step of a chain unless it is
    a statistic of the chain's block alone: then the chain's step, :func:`_of`)."""
    numbers = {path: printed_numbers(lines) for path, lines in parts}
    texts = {path: [(ln.number, ln.text) for ln in lines] for path, lines in parts}
    used = {b.name for b in found}
    out, taken_blocks = {}, set()
    for cand in _candidates(found, numbers, derived, texts):
        if any(o.index in taken_blocks or o.index in out for o in cand.operands):
            continue
        cand.nexts = [o for o in cand.nexts if o.index not in taken_blocks]
        c = _best(cand, search, used)
        if c is not None:
            out[cand.operands[-1].index] = c
            used |= {name for name, _, _ in c.steps}
            taken_blocks |= set(c.prints)
    return out


def _candidates(found: list[Block], numbers: dict, derived, texts: dict):
    """Each block of three columns or more, then each run of blocks of as many rows
    printed one right after another (``concat(A, B)``: the probabilities of two texts),
    with the ε its part (and :data:`SLACK` lines after its next blocks) states (LayerNorm's: :func:`.blocks.epsilons`)."""
    from ..ops import OPERATIONS
    from .blocks import epsilons
    words = OPERATIONS["layer_norm"].search.words["eps"]
    from .order import ends_text
    runs = [[b] for b in found if b.parent is None]
    for a, b in zip(found, found[1:]):
        if a.parent is None and b.parent is None and a.path == b.path and a.shape[0] == b.shape[0] \
                and 0 < b.line - a.line <= a.shape[0] + 1:
            runs.append([a, b])
    starts = sorted({(b.path, b.line) for b in found if ends_text(b)})   # not a prose vector

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
                 and (o.index not in derived or _of(derived[o.index], run))][:MAX_NEXT]
        text = run[0].name if len(run) == 1 else "concat(" + ", ".join(b.name for b in run) + ")"
        end = max([stop] + [o.end + 1 for o in nexts]) + SLACK     # its part and its nexts'
        said = epsilons("\n".join(t for n, t in texts.get(run[0].path, ()) if run[0].line <= n <= end), words)
        yield _Candidate(text, tuple(run), run[-1].name, window, nexts,
                         {o.index: part(o, [o])[0] for o in nexts}, eps=f" + {said[0]}" if said else "")


def _of(d, run: list) -> bool:
    """Is the derivation ``d`` a statistic of ``run``'s one block alone (its deviations
    ``X - mean(X)``, a chain's step that the search found first)? Not a common mistake of
    one: the chain would take the mistake for the text's own divisor."""
    return len(run) == 1 and tuple(o.index for o in d.operands) == (run[0].index,) and not d.mistake


def _own(n: WindowNumber, b: Block) -> bool:
    """A number of the block's own print (its entries on its lines, or on the lines where it
    is printed again: a notebook's ``print(data)`` under the code that writes it)."""
    if not np.any(np.abs(b.floats - n.value) <= 1e-12):
        return False
    return n.line < b.end + 2 or any(
        path == b.path and p.line <= n.line < (p.end or p.line + p.shape[0] - 1) + 2 for path, p in b.echoes)


def _best(cand: _Candidate, search, used: set) -> Chain | None:
    """The chain that explains the most printed numbers, of each chain and divisor."""
    best = None
    probabilities = all(bool(np.all((b.floats > 0) & (b.floats <= 1))) for b in cand.operands)
    for chain in CHAINS:
        if chain is LOG_LIKELIHOOD and not probabilities:
            continue
        for k, ddof in enumerate(DDOF if chain is STATISTICS else DDOF[:1]):
            c = _chain(cand, chain, search, used, ddof, k)
            if c is not None and (best is None or c.explained > best.explained):
                best = c
    return best


def _wrapped(text: str) -> str:
    return f"({text})" if any(op in text for op in (" + ", " - ", " * ", " / ", "**")) or \
        text.startswith("-") else text


def _steps(cand: _Candidate, chain: tuple, search, ddof: str) -> tuple[list, dict]:
    """The steps of ``chain`` that evaluate on ``cand`` (and change it), and each step's
    expression written out."""
    inline, out, prints = {}, [], set()
    computed = all(_computed(b) for b in cand.operands)
    for key, template in chain:
        inline[key] = template.format(x=_wrapped(cand.text), ddof=ddof, eps=cand.eps,
                                      **{k: _wrapped(v) for k, v in inline.items()})
        with np.errstate(all="ignore"):       # exp of large entries: inf, no match
            v = search.value(inline[key], cand.operands)
        if v is None or reprints(v, cand.operands):       # x − mean(x) of a centred x: x again
            continue
        v = np.atleast_2d(v)
        block = next((o for o in cand.nexts if o.index not in prints and _prints(o, v)), None)
        spread = _spread(cand, inline[key], v) if computed and block is None else 0.0
        spread = np.broadcast_to(spread, v.shape)
        entries = [(i, float(v[i, j]), float(spread[i, j])) for i in range(v.shape[0])
                   for j in range(v.shape[1]) if np.isfinite(v[i, j]) and abs(v[i, j]) > 1e-12]
        if block is not None:
            prints.add(block.index)
        out.append(Step(key, template, inline[key], v, block, entries, []))
    return out, inline


def _chain(cand: _Candidate, chain: tuple, search, used: set, ddof: str, freedom: int
           ) -> Chain | None:
    """The chain's steps shown on ``cand``, their numbers matched step by step or row by
    row (an article may work each row through every step), whichever explains more."""
    steps, inline = _steps(cand, chain, search, ddof)
    window, starts = list(cand.window), {}
    for st in steps:                          # a printed step's part prints the steps after it
        if st.block is not None:
            starts[st.block.index] = len(window)
            window += cand.parts.get(st.block.index, [])
    best = None
    for by_rows in (False, True):
        taken = match_steps(steps, window, starts, by_rows)
        c = _shown(cand, steps, inline, window, taken, search, used, ddof, freedom, chain)
        if c is not None and (best is None or c.explained > best.explained):
            best = c
    return best


def _shown(cand, steps, inline, window, taken, search, used, ddof, freedom, chain) -> Chain | None:
    """The chain of the steps that explain their numbers, if it explains enough; a step
    between two of them that some of its numbers print is one too (the chain computes it:
    the check judges its other prints), though no evidence."""
    shown, explained, several, prints, names, values = [], 0, False, (), {}, []
    counts = [int(np.count_nonzero(st.block.floats)) if st.block is not None else len(st.picked)
              for st in steps]
    kept = [k for k, n in enumerate(counts) if n]
    for k, st in enumerate(steps):
        got = counts[k]
        if not got and kept and kept[0] < k < kept[-1] and not st.partial:
            st.partial = near_print(st, window, taken, line_of(steps[max(j for j in kept if j < k)], window),
                               line_of(steps[min(j for j in kept if j > k)], window))
        if not got and not (st.partial and kept and kept[0] < k < kept[-1]):
            continue
        st.picked = st.picked or st.partial
        name = _name(cand.name, st.key, used) if st.block is None else st.block.name
        expr = st.template.format(x=_wrapped(cand.text), ddof=ddof, eps=cand.eps, **{
            k: names.get(k) or _wrapped(v) for k, v in inline.items() if k != st.key})
        names[st.key] = name
        values += [float(v) for v in np.ravel(st.value)]
        line = st.block.line if st.block is not None else min(window[k].line for k in st.picked)
        shown.append((name, expr, line))                  # where it is printed first
        explained += got
        several |= st.key in ELEMENTWISE and got >= 2
        prints += (st.block.index,) if st.block is not None else ()
    if chain is STATISTICS and len(cand.operands) == 1 and "mean" in names and "normalised" not in names:
        std = [k for st in steps if st.key == "std" and "std" in names for k in st.picked]
        got = _with_carried(cand, window, search, used, ddof, set(taken) - set(std), names, inline, shown)
        if got is not None:
            explained += got[0]
            several, prints = True, prints + (got[1],)
    freedom += len(shown)
    telling = explained - sum(not window[k].telling for st in steps if st.block is None for k in st.picked)
    if telling < freedom + MIN_BEYOND or not several or len(shown) < 2:
        return None                          # one step alone is a derivation, the search's; one
                                             # digit (0.1 of 1/9) is matched too easily to count
    end = max([window[k].line for st in steps for k in st.picked] +
              [b.end + 2 for b in cand.nexts if b.index in prints]) + SLACK
    return Chain(tuple(o.index for o in cand.operands), shown, explained, prints, restated_to(end, window, values))


def restated_to(end: int, window: list, values: list) -> int:
    """The end of a chain's part, moved :data:`SLACK` lines past each number of its part
    after it that prints a value of its steps again (``P("on")=0.58`` restated under a
    heading further down); a number of two significant digits or more, not 0."""
    for n in sorted(window, key=lambda n: n.line):
        if end - SLACK < n.line <= end and n.half and n.telling and any(n.prints(v) for v in values):
            end = max(end, n.line + SLACK)
    return end


def _with_carried(cand: _Candidate, window: list, search, used: set, ddof: str, taken: set,
                  names: dict, inline: dict, shown: list):
    """The standard deviation (unless shown already) and a later block of normalised rows
    computed from the text's own (:func:`.carried.carried`) added to ``shown``: (numbers
    explained, that block's index), or None."""
    b = cand.operands[0]
    with np.errstate(all="ignore"):
        dev = search.value(inline["deviations"], cand.operands)
    carried = rows_carried(b, dev, window, taken, cand.nexts, search, ddof, DDOF, MOST)
    if carried is None:
        return None
    target, got = carried
    if "std" not in names:
        names["std"] = _name(b.name, "std", used)
        shown.append((names["std"], f"sqrt({names.get('variance') or inline['variance']}{cand.eps})", b.line))
    shown.append((target.name, f"({b.name} - {names['mean']}) / {names['std']}", target.line))
    return got, target.index


def _prints(o: Block, v: np.ndarray) -> bool:
    """Is block ``o`` the print of ``v`` (every entry within its rounding)?"""
    return o.shape == v.shape and bool(np.all(np.abs(o.floats - v) <= o.half * (1 + 1e-9) + 1e-12))


def _computed(b: Block) -> bool:
    """A printout of computed numbers, four significant digits or more each (a model's
    probabilities): what a step computes from it carries their rounding."""
    return bool(np.all(b.half > 0) and np.all(b.half <= ROUNDED * np.abs(b.floats)))


def _spread(cand: _Candidate, text: str, v: np.ndarray):
    """How far ``text``'s value ``v`` moves when every operand's printed entry moves to an
    end of its rounding (all up, then all down), or 0 when that cannot be evaluated."""
    from .search import Search
    out = np.zeros_like(v)
    for sign in (1, -1):
        if sign not in cand.moved:
            moved = tuple(_moved(b, sign) for b in cand.operands)
            cand.moved[sign] = (Search(list(moved), ""), moved)
        search, moved = cand.moved[sign]
        with np.errstate(all="ignore"):
            w = search.value(text, moved)
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
