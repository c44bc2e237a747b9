"""What the search of one block has found so far (:meth:`.search.Search.derive`): each
form on each tuple of operands is offered here (:meth:`Tried.one`), the best accepted
derivation is kept, and what needs every form tried first is kept aside and tried last
(:meth:`Tried.best_of`): the form the text states before the block, a scaling the text
forces, a row of a table or of the mask, and the common mistakes of near derivations (those
reproducing :data:`PARTLY` of the block, the :data:`MAX_NEAR` best)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from .blocks import Block, states_scale
from .evidence import preference, reprints, whole
from .forms import MOST, Form
from .masks import zero_filled
from .said import as_said, mistaken, needs_scale, one_head, scaled

if TYPE_CHECKING:                     # the search drives this; it is no import at run time
    from .search import Derivation, Search
MAX_TRIES = 300             # evaluations of one form per block (TRIES_PER_ENTRY for each entry, at most)
PARTLY = 1 / 3              # a derivation reproducing this share is near: its mistakes are tried
MAX_NEAR = 12               # near derivations whose mistakes are tried, the best first


class Tried:
    """What one block's search has found so far: the best accepted derivation, and the
    candidates tried after the forms (the text's own form, a forced scaling, near ones)."""

    def __init__(self, search: Search, target: Block, masked: bool, roots: set):
        self.search, self.target, self.masked, self.roots = search, target, masked, roots
        self.best: Derivation | None = None
        self.forced, self.partly, self.said = [], [], []
        self.stated: list = []                 # (candidate, value) of a form the text states

    def offer(self, cand: Derivation | None, share: float = MOST) -> None:
        """Keep ``cand`` if the search accepts it and it is preferred to the best so far."""
        s = self.search
        if cand is not None and s._accepts(cand, self.target.floats.size, share) and \
                (self.best is None or preference(cand) < preference(self.best)):
            self.best = cand

    def one(self, form: Form, operands: tuple, shape: tuple, text: str, slotted: str, cost: int) -> int:
        """Try ``text`` (``slotted``: over slots) on the target; the evaluations it took."""
        s, target, n = self.search, self.target, self.target.floats.size
        flip = shape != target.shape
        if not flip and needs_scale(s, form, operands, target):
            self.forced.append((operands, text, cost))
            return 0
        said = None if flip else as_said(form, text, operands, shape, target, s.derived, self.masked)
        if said is not None:                 # the text says masked, or X W_K: tried only so
            plain = s.candidate(target, text, operands, cost, form.template,
                                s.value(slotted, operands, slots=True))
            fits = s._accepts(plain, n) or said == text      # the mask as said, printed with 0s
            self.said.append((said, operands, cost, fits))
            return 1
        v = s.value(slotted, operands, slots=True)
        if reprints(v, operands, target):
            return 1
        if flip:
            v, text, cost = (None if v is None else v.T), f"({text}).T", cost + 1
        cand = s.candidate(target, text, operands, cost, form.template, v)
        m = cand.matched
        if form.unsaid:                      # the value a mistake: the step is the default's
            cand = replace(cand, expr=text.replace(form.unsaid, "", 1), mistake=form.mistake)
        before = self.best
        if form.said and not flip:           # offered once all are known (best_of)
            self.stated.append((cand, v))
        else:
            self.offer(cand, form.most)
        if self.best is before and (m >= PARTLY * n or (form.scales and states_scale(target.stating))):
            # near, or scaled as the text says: its mistakes; first the queries and
            # keys of one head as wide as the root the text states (√2: heads of 2)
            self.partly.append((not (form.scales and operands[-1].shape[1] in self.roots
                                     and one_head(operands)), cand))
        return 1

    def _offer_stated(self) -> None:
        """The candidates of a form the text states before the block (the scaled scores
        after "divide by √2"). When nothing else is accepted and every one that reproduces
        the whole block has the same value, the form, its root and which rows it takes are
        no choice (the text states the first two; the third changes no number): its
        freedom is none."""
        n = self.target.floats.size
        for cand, _ in self.stated:
            self.offer(cand)
        full = [(c, v) for c, v in self.stated if c.matched == n]
        if self.best is None and full and all(np.allclose(v, full[0][1], rtol=1e-12, atol=1e-12)
                                              for _, v in full):
            for cand, _ in full:
                self.offer(replace(cand, cost=0))

    def best_of(self, rows: list, earlier: list) -> Derivation | None:
        """The best derivation, after the text's own forms, the forced scalings, a row of a
        table or of the mask, and what a common mistake of a near derivation reproduces."""
        s, target = self.search, self.target
        self._offer_stated()
        for text, operands, cost, fits in self.said[:MAX_TRIES]:    # what the text says, or its
            cand = s.candidate(target, text, operands, cost, "")     # mistake where the plain form fits
            if not s._accepts(cand, target.floats.size) and fits:
                cand = zero_filled(s, text, operands, target, cost) or mistaken(s, text, operands, target, cost)
            self.offer(cand)
        for operands, text, cost in self.forced[:MAX_TRIES]:
            self.offer(scaled(s, text, operands, target, cost))
        best = self.best
        if best is None and min(target.shape) == 1:  # PE(pos): a position's row of a table
            from .positions import position_row
            best = position_row(s, target, rows)
        if best is None and target.shape[0] == 1:  # one query's scores, its future masked
            from .masks import masked_row
            best = masked_row(s, target, earlier + rows)
        if best is None and not whole(target):   # what a common mistake of a near derivation
            # reproduces (whole numbers: too easily reproduced by one of so many variants)
            for _, near in sorted(self.partly, key=lambda t: (t[0], preference(t[1])))[:MAX_NEAR]:
                best = mistaken(s, near.expr, near.operands, target, near.cost)
                if best is not None:
                    best.form = near.form
                    break
        return best
