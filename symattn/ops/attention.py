"""Scaled dot-product attention, masks, and multi-head attention.

Conventions: tokens are rows. ``Q`` is T_q×d_k, ``K`` is T_k×d_k, ``V`` is T_k×d_v.
``scores = Q·Kᵀ·scale`` (T_q×T_k) with ``scale=None`` meaning 1/√d_k and ``scale=1``
meaning no scaling (article 002's worked examples are unscaled). A mask is added to the
scaled scores before softmax: 0 where a key may be seen, −∞ where it may not.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from . import primitives as P
from .elementwise import sqrt
from .softmax import softmax
from .steps import Steps
from ..errors import ShapeError, InputError
from ..numbers import exact
from ..tensor import Tensor, NEG_INF


def causal_mask(n: int, fill=None) -> Tensor:
    """n×n: 0 on and below the diagonal, −∞ above (row i may see keys 0..i).

    ``fill`` replaces −∞ (``fill=0`` is the common mistake of a 0 mask).
    """
    n = _count(n)
    P.check_entries(n, n)             # before the rows are built
    zero = Fraction(0)                # one shared object: a T = 4096 mask is 16.7M entries
    f = NEG_INF if fill is None else exact(fill)
    return P.const([[zero] * (i + 1) + [f] * (n - i - 1) for i in range(n)], name="causal_mask")


def padding_mask(valid: Sequence, n_queries: int = 1, fill=None) -> Tensor:
    """n_queries×len(valid): 0 for a real key position (1 in ``valid``), −∞ for padding (0)."""
    keep = [_flag(v) for v in valid]
    if not keep:
        raise ShapeError("padding_mask of no positions")
    f = NEG_INF if fill is None else fill
    n = _count(n_queries)
    return P.const([[0 if k else f for k in keep] for _ in range(n)], name="padding_mask")


def _flag(v) -> bool:
    if isinstance(v, Tensor):
        raise InputError("padding_mask takes a list of 0/1 flags")
    if v in (0, 1) and not isinstance(v, float):
        return bool(v)
    raise InputError(f"padding_mask flag {v!r}: use 1 for a token and 0 for padding")


def _count(n) -> int:
    from fractions import Fraction
    if isinstance(n, Tensor) and n.op == "const" and n.shape == (1, 1):
        n = n.params["entries"][0][0]
    if isinstance(n, Fraction) and n.denominator == 1:
        n = int(n)
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise InputError(f"{n!r} is not a positive whole number of positions")
    return n


def default_scale(d_k: int) -> Tensor:
    """1/√d_k as an exact expression."""
    return 1 / sqrt(P.scalar(d_k))


def scores(Q, K, scale=None) -> Tensor:
    """``Q·Kᵀ·scale``: T_q×T_k, rows labelled by Q's rows, columns by K's rows."""
    Q, K = P.as_tensor(Q), P.as_tensor(K)
    if Q.shape[1] != K.shape[1]:
        raise ShapeError(f"scores: Q is {Q.shape[0]}×{Q.shape[1]} and K is "
                         f"{K.shape[0]}×{K.shape[1]}: Q and K need the same width d_k")
    s = Q @ K.T
    if scale is None:
        return s * default_scale(Q.shape[1])
    if not isinstance(scale, Tensor) and scale == 1:
        return s
    return s * scale


def attention_steps(Q, K, V, mask=None, scale=None) -> Steps:
    """Every step of one head: raw scores, scaled, masked, weights, output Z."""
    Q, K, V = P.as_tensor(Q), P.as_tensor(K), P.as_tensor(V)
    if K.shape[0] != V.shape[0]:
        raise ShapeError(f"attention: K has {K.shape[0]} rows and V has {V.shape[0]}: "
                         "one value row per key")
    st = Steps()
    st["raw_scores"] = scores(Q, K, scale=1)
    st["scores"] = scores(Q, K, scale)
    z = st["scores"]
    if mask is not None:
        mask = P.as_tensor(mask)
        if mask.shape != z.shape and mask.shape not in ((1, z.shape[1]), (z.shape[0], 1)):
            raise ShapeError(f"mask is {mask.shape[0]}×{mask.shape[1]} but the scores are "
                             f"{z.shape[0]}×{z.shape[1]}")
        z = z + mask
        st["masked_scores"] = z
    st["weights"] = softmax(z)
    st["output"] = st["weights"] @ V
    return st


def weights(Q, K, mask=None, scale=None) -> Tensor:
    """softmax(Q·Kᵀ·scale + mask), T_q×T_k: the attention weights A."""
    z = scores(Q, K, scale)
    return softmax(z if mask is None else z + P.as_tensor(mask))


def attention(Q, K, V, mask=None, scale=None) -> tuple[Tensor, Tensor]:
    """``(Z, A)``: the output ``A·V`` (T_q×d_v) and the weights ``A`` (T_q×T_k)."""
    st = attention_steps(Q, K, V, mask, scale)
    return st["output"], st["weights"]


@dataclass(frozen=True)
class Head:
    """One head's projections, each d_model×d_head (row vectors: q = x·W_Q)."""
    W_Q: object
    W_K: object
    W_V: object


def multi_head(X_q, X_kv, heads: Sequence, W_O=None, mask=None, scale=None) -> Steps:
    """Multi-head attention: per head Q=X_q·W_Q, K=X_kv·W_K, V=X_kv·W_V, attention;
    the heads' outputs side by side (concat), then ·W_O (omitted when W_O is None).

    Self-attention: ``X_kv = X_q``. Cross-attention: ``X_q`` the decoder rows, ``X_kv``
    the encoder's final output.
    """
    X_q, X_kv = P.as_tensor(X_q), P.as_tensor(X_kv)
    if not heads:
        raise ShapeError("multi_head needs at least one head")
    st = Steps()
    per_head = []
    for h in heads:
        h = h if isinstance(h, Head) else Head(*h)
        hs = Steps(Q=X_q @ h.W_Q, K=X_kv @ h.W_K, V=X_kv @ h.W_V)
        a = attention_steps(hs["Q"], hs["K"], hs["V"], mask, scale)
        for k, v in a.items():
            hs[k] = v
        per_head.append(hs)
    st["heads"] = per_head
    st["concat"] = P.hcat([h["output"] for h in per_head])
    st["output"] = st["concat"] if W_O is None else st["concat"] @ W_O
    return st


def self_attention(X, W_Q, W_K, W_V, mask=None, scale=None) -> Steps:
    """One head of self-attention: Q, K, V from the same rows X."""
    return multi_head(X, X, [Head(W_Q, W_K, W_V)], None, mask, scale)["heads"][0]


def cross_attention(X_dec, H_enc, W_Q, W_K, W_V, mask=None, scale=None) -> Steps:
    """One head of cross-attention: Q from the decoder rows, K and V from the encoder output."""
    return multi_head(X_dec, H_enc, [Head(W_Q, W_K, W_V)], None, mask, scale)["heads"][0]
