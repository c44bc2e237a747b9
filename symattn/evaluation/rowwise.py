"""Attention row by row in the ball context, as fused kernels do.

``softmax(Q·Kᵀ·s + M)·V`` as :func:`symattn.ops.attention.attention_steps` builds it is,
when the weight matrix is large (``T_q·T_k >= ROWWISE_MIN``), evaluated a block of query
rows at a time: the scores, exponentials and weights of a block are made, used and
dropped, so memory grows with T (the block's rows, K, V and the output) and never holds
the T_q×T_k weights as balls. The balls differ from the whole-matrix path's (each row is
divided by its sum after the product with V), and like them contain the exact values.

Only the output node is memoised; the weights, when asked for themselves, are evaluated
on their own (the whole matrix then).
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import arb, arb_mat, fmpq, fmpq_mat

from ..errors import DomainError
from .ball import is_zero, to_arb
from ..tensor import Tensor, NEG_INF

ROWWISE_MIN = 256 * 256       # weight entries from which attention goes row by row
BLOCK_ENTRIES = 1 << 20       # scores held at once: rows per block = this // T_k


@dataclass(frozen=True)
class Pattern:
    """The pieces of ``softmax(Q·Kᵀ·scale + mask)·V``; ``scale``/``mask`` may be None.

    ``weights`` is the T_q×T_k softmax node (never evaluated whole here)."""
    Q: Tensor
    K: Tensor
    scale: Tensor | None
    mask: Tensor | None
    V: Tensor
    weights: Tensor


def attention_pattern(node: Tensor) -> Pattern | None:
    """The attention pieces if ``node`` is ``A·V`` with A a row softmax of scaled, masked
    scores ``Q·Kᵀ``; None for anything else (then it is evaluated as usual)."""
    if node.op != "matmul":
        return None
    w, V = node.args
    if w.op != "div" or "zero" not in w.params:
        return None
    e, rs = w.args
    if e.op != "exp" or rs.op != "row_sum" or rs.args[0] is not e or e.args[0].op != "stabilize":
        return None
    z = e.args[0].args[0]
    mask = None
    if z.op == "add" and z.args[0].shape == z.shape and z.args[0].op in ("mul", "matmul"):
        z, mask = z.args
    scale = None
    if z.op == "mul" and z.args[1].shape == (1, 1):
        z, scale = z.args
    if z.op != "matmul" or z.args[1].op != "transpose":
        return None
    return Pattern(z.args[0], z.args[1].args[0], scale, mask, V, w)


def streamed_nodes(p: Pattern) -> list[Tensor]:
    """The T_q×T_k nodes that row-by-row evaluation never holds whole (a constant mask is
    read row by row from the graph)."""
    w = p.weights
    e = w.args[0]
    out = [w, e, w.args[1], e.args[0]]
    if p.mask is not None and p.mask.op == "const":
        out.append(p.mask)
    z = e.args[0].args[0]
    while z is not p.Q and z.op in ("add", "mul", "matmul"):
        out.append(z)
        if z.op == "matmul":
            out.append(z.args[1])
            break
        z = z.args[0]
    return out


def fused_attention(ctx, node: Tensor, memo: dict):
    """``node``'s value block of rows by block of rows, or None when it is not attention
    or small. Row i is ``(Σ_j e_ij·v_j) / Σ_j e_ij`` with ``e_ij = exp(s·q_i·k_j + m_ij)``
    (the division after the product, as fused kernels do); masked keys cost nothing and
    keys masked for every row of a block (the causal future) are left out of the product:
    their weight is exactly 0."""
    p = attention_pattern(node)
    if p is None or p.weights.shape[0] * p.weights.shape[1] < ROWWISE_MIN:
        return None
    if p.mask is not None and p.mask.op != "const" and p.mask.shape == p.weights.shape:
        return None                 # a computed mask matrix: the whole-matrix path
    from .base import run
    Q, K, V = (run(ctx, t, memo) for t in (p.Q, p.K, p.V))
    ctx._no_mask(node, Q, K, V)
    s = run(ctx, p.scale, memo)[0][0] if p.scale is not None else None
    mask = MaskRows(ctx, p.mask, p.weights.shape[1], memo) if p.mask is not None else None
    Kt = _matrix(K).transpose()
    V_rows = [[to_arb(x) for x in r] for r in V]
    step = max(1, BLOCK_ENTRIES // len(K))
    out = []
    for start in range(0, len(Q), step):
        S = _scores(_matrix(Q[start:start + step]), Kt, s)
        E, totals = [], []
        for r, row in enumerate(S):
            e = [x.exp() for x in row] if mask is None else mask.exps(start + r, row)
            total = sum(e[1:], e[0]) if e else ctx.zero
            if is_zero(total):
                raise DomainError(p.weights.params["zero"] +
                                  f" (at [{p.weights.row_label(start + r)}, {p.weights.col_label(0)}])")
            E.append(e)
            totals.append(total)
        k = max(len(e) for e in E)
        E = [e + [ctx.zero] * (k - len(e)) for e in E]
        prod = (arb_mat(E) * arb_mat(V_rows[:k])).tolist()
        out.extend([x / t for x in r] for r, t in zip(prod, totals))
    return out


def _scores(Qb, Kt, s) -> list:
    """The block's scaled scores ``Q_b·Kᵀ·s`` as rows of balls (exact before the scale)."""
    if type(Qb) is not type(Kt):
        Qb, Kt = arb_mat(Qb), arb_mat(Kt)
    S = arb_mat(Qb * Kt)
    if s is not None:
        S = S * to_arb(s)
    return S.tolist()


class MaskRows:
    """The exponentials of one row of scores plus a mask (0 or −∞ entries, or any values),
    looked at through the ids of the mask's entries (NumPy, no Python loop over −∞)."""

    def __init__(self, ctx, mask: Tensor, T_k: int, memo: dict):
        if mask.op == "const":
            self.entries = mask.params["entries"]
        else:
            from .base import run
            self.entries = run(ctx, mask, memo)
        self.ctx, self.T_k = ctx, T_k
        self.one_row, self.one_col = mask.shape[0] == 1, mask.shape[1] == 1
        self.values: dict = {id(NEG_INF): NEG_INF}      # id -> added value (None: 0)
        self.keep_alive: list = []

    def _row(self, i: int):
        r = self.entries[0 if self.one_row else i]
        return r * self.T_k if self.one_col else r

    def _value(self, v):
        got = self.values.get(id(v), self)
        if got is self:
            x = v if isinstance(v, (fmpq, arb)) else self.ctx.scalar(v)
            got = self.values[id(v)] = None if type(x) is fmpq and x == 0 else x
            self.keep_alive.append(v)                   # its id stays its own
        return got

    def exps(self, i: int, scores: list) -> list:
        """e_ij = exp(score_j + m_ij), 0 where m_ij = −∞, cut after the last kept key."""
        import numpy as np                       # only for large attention: --help stays fast
        r = self._row(i)
        ids = np.fromiter(map(id, r), dtype=np.uintp, count=len(r))
        kept = np.flatnonzero(ids != id(NEG_INF))
        if not len(kept):
            return []
        last = int(kept[-1]) + 1
        u, first = np.unique(ids[kept], return_index=True)
        adds = {int(x): self._value(r[int(kept[f])]) for x, f in zip(u, first)}
        if len(kept) == last and all(a is None for a in adds.values()):
            return [x.exp() for x in scores[:last]]     # a prefix of zeros: causal, padding
        out = [self.ctx.zero] * last
        for j in kept.tolist():
            a = adds[int(ids[j])]
            out[j] = scores[j].exp() if a is None else (scores[j] + a).exp()
        return out


def _all_rational(rows) -> bool:
    return all(type(x) is fmpq for r in rows for x in r)


def _matrix(rows):
    """An fmpq_mat when every entry is rational, else an arb_mat."""
    return fmpq_mat(rows) if _all_rational(rows) else arb_mat(rows)
