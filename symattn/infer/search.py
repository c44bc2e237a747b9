"""Which printed blocks are computed, and from what: a search over the declared operations.

For each block in reading order, every *form* (:mod:`.forms`) is tried on earlier blocks whose shapes fit:
the spec language's own operators (``A @ B``, ``A @ B.T``, ``A + B``, ``A / sqrt(k)``) and
each declared operation that carries a :class:`~symattn.ops.operation.Search` (its operand
shapes, parameters and their usual values, the words the text states them with): a new
operation joins the search by its declaration alone. A form is evaluated on the NumPy
fast path (:func:`symattn.evaluation.float_value`) with the operands' printed values, so a
block computed from an article's own rounded numbers is reproduced as printed (the exact
check then calls it carried).

A derivation is a proposal, never a verdict: it is accepted when it reproduces at least
:data:`MOST` of the block's entries, and of its non-zero ones, within print rounding (half a unit of the entry's last
digit, plus what the rounding of computed operands can move), and explains more numbers
than it has freedom (:data:`MIN_ENTRIES`; never a 1×1 block). Among accepted ones the most
entries win, then the simplest (fewest searched choices), then the nearest operands.
A block no derivation reproduces but a common mistake of a near one does (one that
reproduces at least :data:`.tried.PARTLY` of it) is computed by that derivation. Where the text
between a scores product and its softmax states a scaling by a root
(``√d_k``), the softmax is taken of the scaled scores, and a block that only a common
mistake of that form reproduces (the catalogue of
:mod:`symattn.claims.diagnosis.computation`) is still computed by it: the exact check
gives the diagnosis. The search is bounded by counts (operands per form, tries per block;
the :data:`NEAREST` operand tuples of every form are tried even when a block's tries are
spent, so a late form such as ``layer_norm`` is not starved by the products before it),
never by the clock, so it answers the same on any machine.

Which blocks are a block's operands is :mod:`.order`'s (the nearest earlier ones, vectors of
the prose counted apart); per-token vectors that a product's rows print are stacked into
the matrix first (:mod:`.stacks`); after the search, a vector that a computed matrix's row
prints is taken as that row (:func:`.order.rows_again`, :func:`.order.inputs_as_rows`).
What the text says a step is, and the catalogue's mistakes of it, are :mod:`.said`'s; what
a match is evidence of (freedom, blocks that coincide too easily, preference), :mod:`.evidence`'s;
what one block's search keeps while it runs, and tries last, :mod:`.tried`'s.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..claims.printed import FLOAT32_TINY
from ..errors import SymattnError
from ..spec import expr as E
from .blocks import Block, row_shown, stated, states_scale, telling
from .evidence import (CARRIED, LOOSE, SMALL, binary, exact_match, few_whole, freedom, named, one_digit,
                       plain, preference, rows_whole, telling_slack, tight, truncated, within)
from .forms import MOST, SCORES, Form, _operand_tuples, elementwise, forms
from .masks import says_masked
from .order import operands as pool
from .said import HEAD_WIDTH, fitted_root, roots_said
from .tried import MAX_TRIES, Tried

MIN_ENTRIES = 2             # entries explained beyond the derivation's freedom
TRIES_PER_ENTRY = 40        # a small block is little evidence: fewer tries
MAX_BLOCK_TRIES = 1200      # evaluations per block, all forms (BLOCK_TRIES_PER_ENTRY per entry, at most)
BLOCK_TRIES_PER_ENTRY = 200
NEAREST = 4                 # operand tuples of each form tried when the block's budget is spent
MAX_SCALES = 6              # values of d_k tried for a division by sqrt(d_k)
FINE = 1e-10                # a print finer than this (``1.1e-14``) tells its size relative to itself

_EXPONENTIAL = ("exp(", "softmax(", "weights(")   # forms whose entries are exponentials or weights


@dataclass
class Derivation:
    """``block`` computed as ``expr`` (the spec language) from ``operands`` (blocks)."""
    block: Block
    expr: str
    operands: tuple
    matched: int
    cost: int
    mistake: str = ""           # the common mistake that reproduces it ('' when none)
    form: str = ""              # the form's template (``{0} @ {1}.T``)
    error: float = 0.0          # how far its prints may be off: the largest distance of a
                                # reproduced entry's print, or what its operands carry
    steps: tuple = ()           # (name, expr) of unprinted steps computed before it (.heads)
    after: tuple = ()           # (name, expr, line) of steps printed after it, in no block (.program)
    tight: int = 0              # entries reproduced within their own print's rounding, no
                                # operand's carried in (A W₁ rather than W₁ A when W₁ is 0.1, 0.2)
    missed: tuple | None = None  # (i, j) of the entries not reproduced, when known
    exact: bool = True          # every reproduced entry is its print's value, not a rounding of it

    def telling_shown(self) -> int:
        """The telling entries (:func:`.blocks.telling`) it reproduces; when which ones it
        misses is not known, as if every miss were a telling one."""
        n = self.block.floats.size
        if self.missed is not None and len(self.missed) == n - self.matched:
            return telling(self.block, set(self.missed))
        return telling(self.block) - (n - self.matched)


class Search:
    """The derivations of one article's blocks (:meth:`run`)."""

    def __init__(self, found: list[Block], text: str):
        self.blocks = found
        self.text = text
        self.forms = forms(text)
        self._near: dict = {}                  # the text before a block -> its forms
        self.derived: dict[int, Derivation] = {}
        self.reprints: dict[int, int] = {}
        self.aliases: dict[str, str] = {}      # a name the text gives a result it writes out -> the block's
        self._env: dict = {}
        self._trees: dict = {}                 # a form's text with slots -> its parsed tree
        self._values: dict = {}                # (text with slots, operand names) -> its value
        self._mini = None
        self.widths = tuple(int(w) for w in dict.fromkeys(stated(text, HEAD_WIDTH)) if w.isdigit() and int(w) > 0)
        self.margin = MIN_ENTRIES              # entries explained beyond the freedom (.small)
        self.slips = 0                         # entries of a few telling ones that may be off (.small)
        self.shown: set = set()                # (matrix index, row, line): the text prints that row
                                               # again there, no choice of it (filled by .small)

    def forms_near(self, target: Block) -> list:
        """The forms tried for ``target``: a parameter stated just before it first."""
        if target.stating not in self._near:
            self._near[target.stating] = forms(self.text, target.stating)
        return self._near[target.stating]

    def tensor(self, b: Block):
        """The block's printed values as a matrix (a row ``X[1]``: that row)."""
        if b.name not in self._env:
            from .. import matrix
            self._env[b.name] = matrix([list(r) for r in b.printed.values])
        return self._env[b.name]

    def taking(self, values: dict) -> None:
        """Evaluate from now on the blocks named in ``values`` (name -> tensor) at those
        values instead of their prints; ``{name: None}``: at their prints again. What was
        computed on them is forgotten either way."""
        for name, v in values.items():
            self._env.pop(name, None)
            if v is not None:
                self._env[name] = v
        for key in [k for k in self._values if set(values) & set(k[1])]:
            del self._values[key]

    def derived_value(self, d: Derivation):
        """The exact value of derivation ``d`` over its operands' prints (a tensor), or None."""
        from ..spec.build import build
        env = {(o.parent or o).name: self.tensor(o.parent or o) for o in d.operands}
        try:
            return build(E.parse(d.expr), env)
        except (SymattnError, ValueError, TypeError, ZeroDivisionError, ArithmeticError):
            return None

    def value(self, text: str, operands: tuple, slots: bool = False):
        """The float value of ``text`` over the operands' printed values, or None.
        ``slots``: the operands are named ``_0``, ``_1``… in ``text`` (parsed once)."""
        from ..evaluation import float_value
        from ..spec.build import build
        key = (text, tuple(b.name for b in operands))
        if slots and key in self._values:      # the same form on the same blocks: once
            return self._values[key]
        if slots:
            env = {f"_{i}": self.tensor(b) for i, b in enumerate(operands)}
        else:
            env = {(b.parent or b).name: self.tensor(b.parent or b) for b in operands}
        try:
            tree = self._trees.get(text) if slots else None
            if tree is None:
                tree = E.parse(text)
                if slots:
                    self._trees[text] = tree
            with np.errstate(all="ignore"):    # −∞ · 0, exp overflow: not a match, no warning
                v = np.asarray(float_value(build(tree, env)), dtype=float)
        except (SymattnError, ValueError, TypeError, ZeroDivisionError, ArithmeticError):
            v = None
        if slots:
            self._values[key] = v
        return v

    def matched(self, v, target: Block, operands: tuple) -> tuple[int, float]:
        """(entries reproduced, how far they may be off): within half a unit of
        the print's last digit, plus :data:`CARRIED` × what the operands' own prints may be off (a
        computed one: as far as its prints were; a printout: half its last digit), scaled
        by the entry's size)."""
        ok, err = self.reproduced(v, target, operands)
        return (0, 0.0) if ok is None else (int(ok.sum()), err)

    def reproduced(self, v, target: Block, operands: tuple) -> tuple:
        """(which entries of ``v`` print as ``target`` does, as :meth:`matched` counts them,
        or None; how far they may be off). The slack the operands' rounding allows counts for
        an entry only where it is small beside that entry (:data:`.evidence.LOOSE`): a
        0.0001 is no print of 0 that operands rounded to 0.0005 "carry"."""
        if v is None or v.shape != target.shape:
            return None, 0.0
        finite = np.isfinite(v)
        same = None if finite.all() else v == target.floats   # a mask's −∞ printed as −∞
        if same is not None and not np.all(finite | same):
            return None, 0.0
        carry = max((self.derived[o.index].error if o.index in self.derived else
                     float(o.half.max()) if (o.parent or o).rounded else 0.0 for o in operands), default=0.0)
        with np.errstate(invalid="ignore"):          # 1.1e-14: relative (not float32's subnormals)
            fine = (target.half < FINE) & (np.abs(target.floats) >= float(FLOAT32_TINY))
        scale = np.where(fine, np.abs(v), np.maximum(1, np.abs(v)))
        if not telling_slack(carry, scale, target):
            return None, 0.0
        with np.errstate(invalid="ignore"):
            off = np.abs(v - target.floats)
        if same is not None:
            scale, off = np.where(same, 1, scale), np.where(same, 0, off)
        with np.errstate(invalid="ignore"):
            slack = np.where(CARRIED * carry * scale <= LOOSE * np.abs(target.floats), CARRIED * carry, 0.0)
        ok = off <= target.half * 1.0001 + (slack + 1e-9) * scale
        if not ok.all() and truncated(v, target):
            ok = np.ones_like(ok)
        return ok, max(carry, float(off[ok].max()) if ok.any() else 0.0)

    def scales(self, earlier: list[Block], text: str, operands: tuple = ()) -> list[str]:
        """The d_k tried in ``sqrt(d_k)``: stated in the text (``d_k = 2``, ``\\sqrt{2}``),
        the width of the keys of a scores operand, then the widths of earlier blocks (2 or
        more), nearest first."""
        out = roots_said(text)
        for o in operands:
            d = self.derived.get(o.index)
            if d is not None and d.form == SCORES:
                out.append(str(d.operands[1].shape[1]))
        out += [str(b.shape[1]) for b in earlier if b.shape[1] > 1]
        return list(dict.fromkeys(x for x in out if x not in ("0", "1")))[:MAX_SCALES]

    @staticmethod
    def said(text: str) -> list[str]:
        """The d_k of ``sqrt(d_k)`` as the ``text`` states it (``d_k = 3``, ``\\sqrt{3}``), or none."""
        if not states_scale(text):
            return []
        return list(dict.fromkeys(x for x in roots_said(text) if x not in ("0", "1")))[:MAX_SCALES]

    def run(self) -> dict[int, Derivation]:
        """Each block's derivation. A block whose best derivation is an earlier block's (the
        same expression), or whose numbers are a computed block's printed again (within
        both prints' rounding), is no step of its own: it prints that block again
        (:attr:`reprints`, block index -> the index of the block it prints)."""
        from .. import deadline
        from .again import derive_again, settle
        done: dict = {}
        for b in list(self.blocks):
            deadline.check(f"{b.path}:{b.line}")       # the one deadline: an end, never a guess
            if b.again >= 0:                           # printed again: a step only if derived anew
                d = derive_again(self, b)
                if settle(self, b, d):
                    self.derived[b.index] = d
                continue
            if b.given:                                # a weight the text states: an input
                continue
            d = self.derive(b)
            if d is not None and d.expr in done:
                self.reprints[b.index] = done[d.expr]
            elif d is not None:
                self.derived[b.index] = d
                done[d.expr] = b.index
            else:
                again = self._printed_again(b)
                if again is not None:
                    self.reprints[b.index] = again
        return self.derived

    def _printed_again(self, b: Block) -> int | None:
        """The computed block ``b`` prints again: one it equals within both prints' rounding,
        else one whose value ``b`` reproduces in most entries (:data:`MOST`, 3 at least: the
        step is derived already, ``b`` adds no freedom; its other entries are then wrong
        prints of it). Not for a block of plain numbers, which coincide too easily."""
        for i, d in sorted(self.derived.items(), reverse=True):
            c = d.block
            if c.shape == b.shape and np.all(np.abs(b.floats - c.floats) <= b.half + c.half + 1e-9):
                return i
        if plain(b):
            return None
        for i, d in sorted(self.derived.items(), reverse=True):
            if d.block.shape == b.shape and not d.steps:
                m, _ = self.matched(self.value(d.expr, d.operands), b, d.operands)
                if m >= max(MOST * b.floats.size, 1 + MIN_ENTRIES):
                    return i
        return None

    def derive(self, target: Block, after: int = -1, later: tuple = ()) -> Derivation | None:
        """The target's derivation from earlier blocks (those printed after block ``after``),
        and the inputs ``later`` printed after it (a weight shown after its product), the
        farthest."""
        n = target.floats.size
        from .masks import is_unmasked, row_sums
        from .scores import scores_behind
        everything, rows = pool(self.blocks, target, self.widths)
        earlier = [b for b in everything if b.index > after] + list(later)
        if is_unmasked(target):                   # scores split from their masked print
            return scores_behind(self, target, earlier)
        rows = [r for r in rows if r.parent.index > after]
        if len(np.unique(target.floats)) < 2:
            return row_sums(self, target, earlier)  # ones: the row sums of computed weights
        if n < 1 + self.margin:                   # never accepted (_accepts)
            return None
        tried = Tried(self, target, says_masked(target.stating),
                       {int(k) for k in self.said(target.stating) if k.isdigit()})
        budget = min(MAX_TRIES, TRIES_PER_ENTRY * n)
        total = min(MAX_BLOCK_TRIES, BLOCK_TRIES_PER_ENTRY * n)
        # a row may print a column result (a mean per token) transposed
        shapes = [target.shape] + ([target.shape[::-1]] if target.shape[0] == 1 else [])
        tries, table = 0, False
        for form, shape in itertools.product(self.forms_near(target), shapes):
            total -= 0 if table else tries    # a table's few tries (one per operand): outside it
            tries, table = 0, bool(form.sizes)  # each form its own budget: none starves the next
            if form.within and not within(target, form.within):
                continue                      # weights: every entry in [0, 1]
            limit = MAX_TRIES if form.said else min(budget, max(total, NEAREST))
            for operands in _operand_tuples(form, shape, earlier, rows):
                if tries >= limit:    # the nearest operands of every form are tried; a form
                    break             # the text states before the block, as far as any
                if later and not any(o is x for o in operands for x in later):
                    continue          # tried already without them: the budget for the later ones
                if not self._fits(form, operands):
                    continue
                scales = self.said(target.stating) if form.said else \
                    self.scales(everything, target.stating, operands) if "{k}" in form.template else []
                if form.scaled and len(operands) == 1:        # softmax(S / sqrt(k)), k unsaid
                    fitted = fitted_root(target, operands[0])
                    scales = scales + [fitted] if fitted and fitted not in scales else scales
                for text, slotted, cost in self._texts(form, operands, shape, scales, target.line):
                    tries += tried.one(form, operands, shape, text, slotted, cost)
        return tried.best_of(rows, earlier)

    def _fits(self, form: Form, operands: tuple) -> bool:
        """Not a coincidence by construction: a block beside or added to itself (X = [I I],
        2·A), a positional encoding added to a result rather than to embeddings, a softmax
        of exponentials or of weights (near-equal exponentials give near-equal weights:
        ``softmax(exp(s))`` prints what ``exp(s) / sum(exp(s))`` does, and is no step), and
        attention in one step where the article prints weights (the context is A V)."""
        if (form.op == "concat" or form.template == "{0} + {1}") and len(set(map(id, operands))) < len(operands):
            return False
        if form.template.startswith(_EXPONENTIAL) and operands and self._exponential(operands[0]):
            return False
        if form.unless and any(d.expr.startswith(form.unless) for d in self.derived.values()):
            return False                      # weights printed: the context is their product with V
        return not (form.onto == "inputs" and operands[0].index in self.derived)

    def _exponential(self, b: Block) -> bool:
        """Is ``b`` (or the block it is a row of) derived as exponentials or as weights, or
        does it print the exponentials of a row of an earlier block (derived later: a block
        of three is taken only after the others)?"""
        d = self.derived.get((b.parent or b).index)
        if d is not None:
            return d.expr.startswith(_EXPONENTIAL)
        if b.shape[0] != 1 or not np.all(b.floats > 0):
            return False
        with np.errstate(all="ignore"):
            return any(np.all(np.abs(np.exp(row) - b.floats[0]) <= b.half[0] * 1.0001 + 1e-12)
                       for c in self.blocks if c.index < b.index and c.shape[1] == b.shape[1]
                       for row in c.floats)

    def _texts(self, form: Form, operands: tuple, shape: tuple, scales: list[str], line: int = 0):
        fill = {p: shape[0] if side == "rows" else shape[1] for p, side in form.sizes}
        fill.update(rows=shape[0], cols=shape[1])   # a parameter's value may name them: causal_mask({rows})
        names = [o.name for o in operands]
        slots = [f"_{i}" for i in range(len(operands))]
        cost = form.cost + len({o.name for o in operands
                                if o.parent is not None and not row_shown(o, line, self.shown)})
        for k in (scales if "{k}" in form.template else [None]):
            yield (form.template.format(*names, k=k, **fill), form.template.format(*slots, k=k, **fill),
                   cost)

    def candidate(self, target: Block, text: str, operands: tuple, cost: int, form: str,
                  value=None) -> Derivation:
        """``target`` derived as ``text`` over ``operands`` (``value``: its float value, when
        known), scored as every candidate is (for the modules beside this one)."""
        v = self.value(text, operands) if value is None else value
        ok, err = self.reproduced(v, target, operands)
        missed = None if ok is None or ok.ndim != 2 else \
            tuple((int(i), int(j)) for i, j in zip(*np.nonzero(~ok)))
        return Derivation(target, text, operands, 0 if ok is None else int(ok.sum()), cost, form=form,
                          error=err, tight=tight(v, target), missed=missed, exact=exact_match(v, target, ok))

    @staticmethod
    def rank(d: Derivation) -> tuple:
        """The order of preference of derivations (the least first): :func:`.evidence.preference`."""
        return preference(d)

    def _accepts(self, d: Derivation, n: int, share: float = MOST) -> bool:
        """Most entries reproduced, and more non-zero ones than the derivation's freedom
        (zeros follow from the structure: a product with a zero weight, a mask); of a
        block of 0s and one magnitude, all (most of it is a coincidence there), and of a few
        whole numbers too unless the text names every operand (``The scores Q Kᵀ``). Plain
        numbers coincide easily (a permutation of a 2×2 block is a product with another):
        for a block of them (:func:`.evidence.plain`) each operand chosen counts as freedom too.
        No function of each entry (``sin``) of a block printed at one digit: at that rounding
        ``sin x`` is ``x``."""
        if (n <= SMALL or d.form in elementwise()) and not d.exact and one_digit(d.block):
            return False                         # gelu([0.1, 0.2]) as [0.1, 0.1], sin(0.3) as 0.3: a guess
        nonzero = int(np.count_nonzero(d.block.floats))
        shown = nonzero - (n - d.matched)          # at least this many non-zero ones reproduced
        free = freedom(d)
        by_chance = few_whole(d.block) and named(d) < len(d.operands)   # not said to be of these
        most = 1 if binary(d.block) or by_chance or n <= SMALL else share   # 0s and 1s, or a few numbers: all
        slip = self.slips if most == 1 and n > 2 and not binary(d.block) \
            and d.telling_shown() > free else 0   # but one, where the rest tell
        if rows_whole(d) and d.matched >= free + self.margin and shown >= free + self.margin:
            return True                          # a row worked wrong, the others all right
        return d.matched >= max(most * n - slip, free + self.margin) and \
            shown >= max(most * nonzero - slip, free + self.margin)
