"""From the last decoder row to a token: logits, probabilities, choice, loss; each
declared for the spec language (:data:`LOGITS`, :data:`CROSS_ENTROPY`, ...)."""

from __future__ import annotations

from fractions import Fraction

from . import primitives as P
from .elementwise import log
from .operation import declare, Presentation
from .softmax import softmax, probabilities  # noqa: F401  (its old home)
from ..errors import InputError, ShapeError
from ..numbers import exact
from ..tensor import Tensor


def logits(h, W_vocab, b=None) -> Tensor:
    """``h·W_vocab (+ b)``: one score per vocabulary entry (columns). Tied weights: pass Eᵀ."""
    y = P.matmul(h, W_vocab)
    return y if b is None else y + b


def _targets(z: Tensor, target) -> list[int]:
    ts = target if isinstance(target, (list, tuple)) else [target]
    if len(ts) != z.shape[0]:
        raise ShapeError(f"{len(ts)} targets for {z.shape[0]} rows of logits")
    return [z.col_index(t) for t in ts]


def cross_entropy(z, target) -> Tensor:
    """−log p_target for each row of logits (target an index or a column label), m×1."""
    z = P.as_tensor(z)
    p = softmax(z)
    cols = _targets(z, target)
    picked = P.vcat([P.take(p, [i], [j]) for i, j in enumerate(cols)])
    return -log(picked)


def label_smoothing_loss(z, target, eps) -> Tensor:
    """−Σ_j q_j log p_j with q = (1 − ε)·onehot(target) + ε/V, per row."""
    z = P.as_tensor(z)
    e = exact(eps)
    if isinstance(e, Fraction) and not 0 <= e <= 1:
        raise InputError(f"label smoothing eps = {e} must lie in [0, 1]")
    V = z.shape[1]
    cols = _targets(z, target)
    q = P.const([[(1 - e) * (1 if j == c else 0) + e / V for j in range(V)] for c in cols])
    return -P.row_sum(q * log(softmax(z)))


def greedy(z, evaluator=None):
    """The label (or index) of the largest entry of a 1×V row, decided with certainty."""
    from ..evaluation.decide import argmax
    z = P.as_tensor(z)
    j = argmax(z, evaluator)
    return z.cols[j] if z.cols else j


def _logits_formula(show, a, f):
    """``h W`` (the bias, when given, shown as the operator's argument is not)."""
    h, W = show(a["h"]), show(a["W_vocab"], False)
    return f.Tex(f"{f.paren(h, f.MUL)} {f.paren(W, f.MUL)}", f.MUL, h.leaves + W.leaves)


LOGITS = declare("logits", logits, latex=Presentation("logits", formula=_logits_formula))
CROSS_ENTROPY = declare("cross_entropy", cross_entropy, convert={"target": "targets"},
                        latex=Presentation("CE", rows="first"))
LABEL_SMOOTHING_LOSS = declare("label_smoothing_loss", label_smoothing_loss,
                               convert={"target": "targets"},
                               latex=Presentation("LSLoss", rows="first"))
