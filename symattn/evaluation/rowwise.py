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
    """The T_q×T_k nodes that row-by-row evaluation never holds whole."""
    w = p.weights
    e = w.args[0]
    out = [w, e, w.args[1], e.args[0]]
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
    (the division after the product, as fused kernels do); keys masked for every row of
    a block (the causal future) are skipped: their weight is exactly 0."""
    p = attention_pattern(node)
    if p is None or p.weights.shape[0] * p.weights.shape[1] < ROWWISE_MIN:
        return None
    if p.mask is not None and p.mask.op != "const" and p.mask.shape == p.weights.shape:
        return None                 # a computed mask matrix: the whole-matrix path
    from .base import run
    Q, K, V = (run(ctx, t, memo) for t in (p.Q, p.K, p.V))
    ctx._no_mask(node, Q, K, V)
    s = run(ctx, p.scale, memo)[0][0] if p.scale is not None else None
    mask = _mask_rows(ctx, p.mask, p.weights.shape, memo)
    Kt = _matrix(K).transpose()
    V_rows = [[to_arb(x) for x in r] for r in V]
    step = max(1, BLOCK_ENTRIES // len(K))
    out = []
    for start in range(0, len(Q), step):
        S = _scores(_matrix(Q[start:start + step]), Kt, s)
        E, totals, k = [], [], 0
        for r, row in enumerate(S):
            e = _exps(ctx, row, mask(start + r) if mask is not None else None)
            total = sum(e[1:], e[0])
            if is_zero(total):
                raise DomainError(p.weights.params["zero"] +
                                  f" (at [{p.weights.row_label(start + r)}, {p.weights.col_label(0)}])")
            k = max(k, _last_kept(e) + 1)
            E.append(e)
            totals.append(total)
        if k == 0:                      # every weight of the block is a rational 0
            k = 1
        prod = (arb_mat([e[:k] for e in E]) * arb_mat(V_rows[:k])).tolist()
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


def _exps(ctx, row: list, m: list | None) -> list:
    if m is None:
        return [x.exp() for x in row]
    zero = ctx.zero
    return [zero if y is NEG_INF else (x.exp() if y is None else (x + y).exp())
            for x, y in zip(row, m)]


def _last_kept(e: list) -> int:
    """The index of the last entry that is not an exact rational 0 (-1 if none)."""
    for j in range(len(e) - 1, -1, -1):
        if type(e[j]) is not fmpq:
            return j
    return -1


def _mask_rows(ctx, mask: Tensor | None, shape: tuple[int, int], memo: dict):
    """A function i -> row i of the mask broadcast to T_k entries: −∞ kept, None for an
    exact 0 (nothing to add); None instead of the function when there is no mask."""
    if mask is None:
        return None
    cache: dict = {}

    def scalar(v):
        if v is NEG_INF:
            return v
        got = cache.get(id(v), cache)
        if got is cache:
            x = ctx.scalar(v) if not isinstance(v, (fmpq, arb)) else v
            got = cache[id(v)] = None if type(x) is fmpq and x == 0 else x
            cache[("keep", id(v))] = v          # the id stays this object's
        return got

    if mask.op == "const":
        entries = mask.params["entries"]
    else:
        from .base import run
        entries = run(ctx, mask, memo)
    m, n = mask.shape
    T_k = shape[1]
    conv = lambda row: [scalar(v) for v in row]  # noqa: E731
    if m == 1:
        row = conv(entries[0])
        row = row * T_k if n == 1 else row
        return lambda i: row
    return lambda i: conv(entries[i]) * T_k if n == 1 else conv(entries[i])


def _all_rational(rows) -> bool:
    return all(type(x) is fmpq for r in rows for x in r)


def _matrix(rows):
    """An fmpq_mat when every entry is rational, else an arb_mat."""
    return fmpq_mat(rows) if _all_rational(rows) else arb_mat(rows)
