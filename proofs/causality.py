"""Causal attention: output row i depends on no row j > i; no gradient reaches future values."""

import sympy
from sympy import IndexedBase, KroneckerDelta, Matrix, Sum, diff, exp, oo, sqrt, symbols

try:
    from ._common import Derivation, in_range, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, in_range, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "causality"
STATEMENT = (
    "with the causal mask, z_i = Sum_{r<=i} softmax_r(s_i1..s_ii) v_r: dz_i/dx_j = 0 and "
    "dz_i/dv_j = 0 for every j > i, so dL/dv_j collects only outputs i >= j"
)
GENERAL = True
SCOPE = (
    "for every sequence length, row i, future row j = i + u (u >= 1), d_model and d_k: "
    "Q = X W_Q, K = X W_K, V = X W_V and z_i (the masked form given by mask-limit, Sums up "
    "to i) are built from IndexedBases and SymPy differentiates them; dz_i/dX_j is assembled "
    "by the chain rule through Q, K, V and reduces to exactly 0; the mask limit t -> -oo "
    "itself is also taken for n = 2, d = 1; on the engine, symattn.self_attention(X, W_Q, "
    "W_K, W_V, mask=causal_mask(n)) for n = 3, d_model = d_k = 2 and symbolic X, weights is "
    "that masked form row by row, SymPy's dz_i/dX_j of its output is 0 for j > i, and "
    "symattn.grad of each output row's sum is 0 on the future rows of X"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    dm, dk = symbols("d d_k", integer=True, positive=True)
    i, u, h, b, g, r, l, c, e = symbols("i u h b g r l c e", integer=True, positive=True)
    X = IndexedBase("X", real=True)
    Qb, Kb, Vb = (IndexedBase(name, real=True) for name in ("Q", "K", "V"))
    weights = {
        Qb: IndexedBase("W_Q", real=True),
        Kb: IndexedBase("W_K", real=True),
        Vb: IndexedBase("W_V", real=True),
    }
    j = i + u

    # 1. the projections act row by row
    for target, weight in weights.items():
        entry = Sum(X[r, e] * weight[e, g], (e, 1, dm))
        partial = in_range(diff(entry, X[j, h]).doit(), dm, h)
        d.equal(
            f"{target}[r, g] = Sum_e X[r, e] {weight}[e, g] depends on row r of X only: "
            f"d{target}[r, g]/dX[j, h] = delta_rj {weight}[h, g]",
            partial,
            KroneckerDelta(r, j) * weight[h, g],
        )

    # 2. the masked attention row as a function of Q, K, V
    def score(row, other):
        return Sum(Qb[row, c] * Kb[other, c], (c, 1, dk)) / sqrt(dk)

    out = Sum(exp(score(i, r)) * Vb[r, b], (r, 1, i)) / Sum(exp(score(i, l)), (l, 1, i))
    d.note(
        "the causal mask puts -oo on every key r > i; by mask-limit row i is then the softmax "
        "over r = 1..i only: z_ib =",
        out,
    )
    partials = {}
    for target in (Qb, Kb, Vb):
        raw = diff(out, target[j, g])
        partials[target] = raw.doit()
        d.zero(
            f"dz_ib/d{target}[j, g] = 0 for a future row j = i + u, u >= 1 (every delta_rj "
            "sits in a sum over r <= i < j)",
            partials[target],
            show=raw,
        )
    chain = Sum(sum(partials[t] * weights[t][h, g] for t in (Qb, Kb, Vb)), (g, 1, dk))
    d.zero(
        "chain rule through step 1: dz_ib/dX[j, h] = Sum_g (dz_ib/dQ[j, g] W_Q[h, g] + "
        "dz_ib/dK[j, g] W_K[h, g] + dz_ib/dV[j, g] W_V[h, g]) = 0",
        chain.doit(),
        show=False,
    )
    present = in_range(diff(out, Vb[i, h]).doit(), dk, h)
    d.note("the current value row does get gradient: dz_ib/dV[i, h] = a_ii delta_bh", present)
    d.positive("(for h = b it is the weight a_ii > 0)", present.subs(h, b))
    d.note(
        "so dL/dV[j, :] = Sum_i a_ij dL/dz_i receives contributions from outputs i >= j only",
    )

    on_the_engine(d)
    the_limit(d)
    return d.qed()


def on_the_engine(d: Derivation) -> None:
    """The engine's causal self-attention (n = 3, d_model = d_k = 2): the masked form row by
    row, and no derivative (SymPy's, symattn.grad's) of an output row reaches a future row."""
    # 3. the engine's causal self-attention, n = 3, d_model = d_k = 2
    size, width = 3, 2
    xs = symbol_matrix("x", size, width)
    ws = [symbol_matrix(name, width, width) for name in ("a", "b", "c")]
    X_e = tensor(xs)
    Z_e = engine.self_attention(X_e, *map(tensor, ws), mask=engine.causal_mask(size))["output"]
    Z = value(Z_e)
    qm, km, vm = (xs * w for w in ws)
    for row in range(size):
        seen = range(row + 1)
        e_row = [exp((qm[row, :] * km[r, :].T)[0] / sqrt(width)) for r in seen]
        definition = sum((e_row[r] * vm[r, :] for r in seen), Matrix.zeros(1, width)) / sum(e_row)
        d.equal(
            f"engine, n = {size}: row {row + 1} of symattn.self_attention with causal_mask(n) is "
            "softmax over keys r <= i of the scaled scores, times V",
            Z[row, :],
            definition,
            show=False,
        )
    d.true(
        f"engine, n = {size}: SymPy's dz_ib/dX_jh of the engine's output is exactly 0 for "
        "every j > i",
        sympy.true if all(diff(Z[row, col], xs[future, h]) == 0
                          for row in range(size) for col in range(width)
                          for future in range(row + 1, size) for h in range(width))
        else sympy.false,
        show=False,
    )
    for row in range(size - 1):
        gradient = Matrix(engine.grad(engine.row_sum(Z_e[row]), X_e))
        d.equal(
            f"engine, n = {size}: symattn.grad of the sum of output row {row + 1} is 0 on rows "
            f"{row + 2}..{size} of X",
            gradient[row + 1:, :],
            Matrix.zeros(size - row - 1, width),
            show=False,
        )


def the_limit(d: Derivation) -> None:
    """The -oo mask as the limit t -> -oo of a finite mask value t, n = 2, d = d_k = 1, on
    the engine's symattn.self_attention with causal_mask(2, fill=t)."""
    # 4. the -oo limit itself, n = 2, d = d_k = 1
    t = symbols("t", real=True)
    x1, x2, wq, wk, wv = symbols("x1 x2 w_q w_k w_v", real=True)
    s11, s12 = (x1 * wq * xk * wk for xk in (x1, x2))
    masked = (exp(s11) * x1 * wv + exp(s12 + t) * x2 * wv) / (exp(s11) + exp(s12 + t))
    d.note("n = 2, d = 1, the mask value t on the future score s_12: z_1 =", masked)
    finite = engine.self_attention(tensor([[x1], [x2]]), *(tensor([[w]]) for w in (wq, wk, wv)),
                                   mask=engine.causal_mask(2, fill=t))["output"]
    d.equal(
        "engine: symattn.self_attention with causal_mask(2, fill=t) gives that z_1",
        value(finite)[0, 0],
        masked,
    )
    d.limit("as t -> -oo, z_1 -> x_1 w_v (all weight on row 1)", masked, t, -oo, x1 * wv, "+")
    d.limit(
        "and the finite-t derivative dz_1/dx_2 itself tends to 0 as t -> -oo",
        diff(masked, x2),
        t,
        -oo,
        0,
        "+",
    )


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
