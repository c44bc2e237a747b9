"""Attention score gradients: dL/dq_i = Sum_j g_ij k_j, dL/dk_j = Sum_i g_ij q_i."""

from sympy import Eq, Function, IndexedBase, Matrix, Sum, diff, sqrt, symbols

try:
    from ._common import Derivation, in_range, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, in_range, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "attention-gradient"
STATEMENT = (
    "for s_ij = q_i.k_j and g_ij = dL/ds_ij: dL/dq_i = Sum_j g_ij k_j and "
    "dL/dk_j = Sum_i g_ij q_i (dL/dQ = G K, dL/dK = G^T Q); with scaled scores "
    "s_ij/sqrt(d_k) and g~_ij = dL/d(s_ij/sqrt(d_k)) both get a factor 1/sqrt(d_k)"
)
GENERAL = True
SCOPE = (
    "for every n (queries), m (keys) and d_k, with Q, K, g IndexedBases and the chain rule "
    "dL/dQ_ab = Sum_ij g_ij ds_ij/dQ_ab; on the engine, symattn.scores(Q, K) (scale 1 and "
    "the default 1/sqrt(d_k)) is Q K^T scale for n, m, d_k in 1..3, the matrix form is "
    "checked for n = m = d_k = 2 with L an arbitrary (undefined) function of the engine's "
    "four scores, differentiated by SymPy, and symattn.grad of Sum_ij g_ij s_ij gives "
    "scale G K and scale G^T Q for n = 2, m = 3, d_k = 2"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    n, m, dk = symbols("n m d_k", integer=True, positive=True)
    a, b, c, i, j = symbols("a b c i j", integer=True, positive=True)
    Qb, Kb, g = IndexedBase("Q"), IndexedBase("K"), IndexedBase("g")

    score = Sum(Qb[i, c] * Kb[j, c], (c, 1, dk))
    d.note("unscaled score of query i and key j: s_ij = q_i . k_j =", score)
    ds_dq = in_range(diff(score, Qb[a, b]).doit(), dk, b)
    d.note("ds_ij/dQ_ab (1 <= b <= d_k)", ds_dq)
    grad_q = in_range(Sum(g[i, j] * ds_dq, (i, 1, n), (j, 1, m)).doit(), n, a)
    d.note("chain rule: dL/dQ_ab = Sum_i Sum_j g_ij ds_ij/dQ_ab, evaluated for 1 <= a <= n", grad_q)
    d.equal(
        "dL/dq_a = Sum_j g_aj k_j, i.e. dL/dQ = G K",
        grad_q,
        Sum(g[a, j] * Kb[j, b], (j, 1, m)),
    )
    ds_dk = in_range(diff(score, Kb[a, b]).doit(), dk, b)
    d.note("ds_ij/dK_ab", ds_dk)
    grad_k = in_range(Sum(g[i, j] * ds_dk, (j, 1, m), (i, 1, n)).doit(), m, a)
    d.note("chain rule: dL/dK_ab = Sum_i Sum_j g_ij ds_ij/dK_ab, for 1 <= a <= m", grad_k)
    d.equal(
        "dL/dk_a = Sum_i g_ia q_i, i.e. dL/dK = G^T Q",
        grad_k,
        Sum(g[i, a] * Qb[i, b], (i, 1, n)),
    )

    gt = IndexedBase("gt")  # g~_ij = dL/d(scaled score)
    scaled = score / sqrt(dk)
    d.note("scaled score s~_ij = s_ij / sqrt(d_k); let g~_ij = dL/ds~_ij", scaled)
    grad_q_scaled = in_range(
        Sum(gt[i, j] * in_range(diff(scaled, Qb[a, b]).doit(), dk, b), (i, 1, n), (j, 1, m)).doit(),
        n,
        a,
    )
    d.equal(
        "dL/dq_a = (1/sqrt(d_k)) Sum_j g~_aj k_j",
        grad_q_scaled,
        Sum(gt[a, j] * Kb[j, b], (j, 1, m)) / sqrt(dk),
    )
    grad_k_scaled = in_range(
        Sum(gt[i, j] * in_range(diff(scaled, Kb[a, b]).doit(), dk, b), (j, 1, m), (i, 1, n)).doit(),
        m,
        a,
    )
    d.equal(
        "dL/dk_a = (1/sqrt(d_k)) Sum_i g~_ia q_i",
        grad_k_scaled,
        Sum(gt[i, a] * Qb[i, b], (i, 1, n)) / sqrt(dk),
    )
    d.note(
        "equivalently g_ij = g~_ij / sqrt(d_k): the gradient with respect to the unscaled "
        "score is the scaled-score gradient divided by sqrt(d_k), and the first formulas apply",
        Eq(g[i, j], gt[i, j] / sqrt(dk), evaluate=False),
    )

    on_the_engine(d)
    return d.qed()


def on_the_engine(d: Derivation) -> None:
    """The engine's symattn.scores is Q K^T scale; the gradients through it (SymPy's, for an arbitrary
    L, and symattn.grad's) are scale G K and scale G^T Q."""
    # the engine's scores: Q K^T, or Q K^T / sqrt(d_k) by default
    for rows, keys, width in ((1, 1, 1), (2, 3, 2), (3, 2, 3)):
        qs, ks = symbol_matrix("q", rows, width), symbol_matrix("k", keys, width)
        for label, scale, kw in (("scale=1", 1, {"scale": 1}),
                                 ("default scale", 1 / sqrt(width), {})):
            d.equal(
                f"engine, n = {rows}, m = {keys}, d_k = {width}: symattn.scores(Q, K, {label}) "
                "is Q K^T scale",
                value(engine.scores(tensor(qs), tensor(ks), **kw)),
                qs * ks.T * scale,
                show=False,
            )

    # n = m = d_k = 2, L an arbitrary function of the engine's scores
    qs, ks = symbol_matrix("q", 2, 2), symbol_matrix("k", 2, 2)
    f = Function("L")
    for label, scale, kw in (("unscaled", 1, {"scale": 1}),
                             ("scaled by 1/sqrt(2)", 1 / sqrt(2), {})):
        scores = value(engine.scores(tensor(qs), tensor(ks), **kw))
        loss = f(*scores)
        slots = symbols("x1:5")
        G = Matrix(2, 2, [f(*slots).diff(x).subs(dict(zip(slots, scores))) for x in slots])
        d.equal(
            f"n = m = d_k = 2, {label}: SymPy's own chain rule on L(s) gives dL/dQ = scale * G K",
            Matrix(2, 2, [diff(loss, v) for v in qs]),
            scale * G * ks,
            show=False,
        )
        d.equal(
            f"n = m = d_k = 2, {label}: dL/dK = scale * G^T Q",
            Matrix(2, 2, [diff(loss, v) for v in ks]),
            scale * G.T * qs,
            show=False,
        )

    # symattn.grad through the engine's scaled scores, L = Sum_ij g_ij s_ij
    qs, ks, G = symbol_matrix("q", 2, 2), symbol_matrix("k", 3, 2), symbol_matrix("g", 2, 3)
    Q_e, K_e = tensor(qs), tensor(ks)
    weighted = tensor(G) * engine.scores(Q_e, K_e)
    loss = engine.row_sum(engine.transpose(engine.row_sum(weighted)))
    d.equal(
        "engine, n = 2, m = 3, d_k = 2: symattn.grad of L = Sum_ij g_ij s_ij with respect to "
        "Q is G K / sqrt(d_k)",
        Matrix(engine.grad(loss, Q_e)),
        G * ks / sqrt(2),
        show=False,
    )
    d.equal(
        "engine: and with respect to K it is G^T Q / sqrt(d_k)",
        Matrix(engine.grad(loss, K_e)),
        G.T * qs / sqrt(2),
        show=False,
    )


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
