"""Without positional encoding, self-attention is permutation-equivariant: SA(P X) = P SA(X)."""

import itertools

from sympy import Eq, Matrix, MatrixSymbol, exp, refine, Q, assuming, sqrt, symbols

try:
    from ._common import Derivation, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "permutation-equivariance"
STATEMENT = (
    "for every permutation matrix P: softmax((P X W_Q)(P X W_K)^T/sqrt(d_k)) (P X W_V) = "
    "P softmax((X W_Q)(X W_K)^T/sqrt(d_k)) (X W_V)"
)
GENERAL = True
SCOPE = (
    "for every n, d_model, d_k: the linear steps with MatrixSymbols (scores become P S P^T, "
    "values P V, and P^T P = I), plus the lemma softmax(P S P^T) = P softmax(S) P^T, which "
    "holds because (P S P^T)_ij = S_pi(i)pi(j) and reindexing the finite row sum by the "
    "bijection pi leaves it unchanged (the one step argued, not computed, for general n); "
    "the lemma and the whole identity are checked exactly for n = 2, 3 and all permutations; "
    "on the engine, symattn.softmax is softmax_rows and symattn.self_attention is the "
    "layer above for n = 2, 3 (symbolic X and weights), and its output satisfies "
    "SA(P X) = P SA(X) for every permutation"
)


def softmax_rows(matrix):
    return Matrix(
        matrix.rows,
        matrix.cols,
        lambda i, j: exp(matrix[i, j]) / sum(exp(matrix[i, k]) for k in range(matrix.cols)),
    )


def self_attention(x, wq, wk, wv):
    scores = (x * wq) * (x * wk).T / sqrt(wq.cols)
    return softmax_rows(scores) * (x * wv)


def permutation_matrix(perm):
    size = len(perm)
    return Matrix(size, size, lambda i, j: 1 if perm[i] == j else 0)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    n, dm, dk = symbols("n d_model d_k", integer=True, positive=True)
    P = MatrixSymbol("P", n, n)
    X = MatrixSymbol("X", n, dm)
    WQ, WK, WV = (MatrixSymbol(name, dm, dk) for name in ("W_Q", "W_K", "W_V"))
    S = (X * WQ) * (X * WK).T
    permuted_scores = (P * X * WQ) * (P * X * WK).T
    d.equal(
        "scores of the permuted input: (P X W_Q)(P X W_K)^T = P (X W_Q W_K^T X^T) P^T",
        permuted_scores,
        P * S * P.T,
    )
    d.equal("values of the permuted input: P X W_V = P (X W_V)", P * X * WV, P * (X * WV))
    A = MatrixSymbol("A", n, n)  # A = softmax(S / sqrt(d_k))
    d.note(
        "lemma (every n): softmax(P S P^T) = P softmax(S) P^T, since (P S P^T)_ij = "
        "S_pi(i)pi(j) and Sum_j exp(S_pi(i)pi(j)) = Sum_k exp(S_pi(i)k) (reindexing by pi); "
        "write A = softmax(S/sqrt(d_k))",
        Eq(MatrixSymbol("softmax(P S P^T)", n, n), P * A * P.T, evaluate=False),
    )
    with assuming(Q.orthogonal(P)):
        out = refine(P * A * P.T * P * (X * WV)).doit()
    d.equal(
        "so SA(P X) = P A P^T P X W_V = P A X W_V = P SA(X), using P^T P = I",
        out,
        P * A * X * WV,
        show=Eq(P * A * P.T * P * X * WV, P * A * X * WV, evaluate=False),
    )

    for size in (2, 3):
        s = Matrix(size, size, symbols(f"s1:{size * size + 1}", real=True))
        for perm in itertools.permutations(range(size)):
            pm = permutation_matrix(perm)
            d.equal(
                f"lemma, n = {size}, pi = {perm}: softmax(P S P^T) = P softmax(S) P^T",
                softmax_rows(pm * s * pm.T),
                pm * softmax_rows(s) * pm.T,
                show=False,
            )
    on_the_engine(d)
    return d.qed()


def on_the_engine(d: Derivation) -> None:
    """The engine's symattn.softmax and symattn.self_attention are the definitions above, and
    the engine's layer is permutation-equivariant."""
    for size, width in ((2, 2), (3, 2)):
        x = symbol_matrix("x", size, width)
        weights = [symbol_matrix(name, width, width) for name in ("a", "b", "c")]
        s = symbol_matrix("s", size, size)
        d.equal(
            f"engine, n = {size}: symattn.softmax is softmax_rows",
            value(engine.softmax(tensor(s))),
            softmax_rows(s),
            show=False,
        )

        def engine_layer(rows):
            return value(engine.self_attention(tensor(rows), *map(tensor, weights))["output"])

        base = engine_layer(x)
        d.equal(
            f"engine, n = {size}, d_model = d_k = {width}: symattn.self_attention(X, W_Q, W_K, "
            "W_V) is softmax((X W_Q)(X W_K)^T/sqrt(d_k)) (X W_V)",
            base,
            self_attention(x, *weights),
            show=False,
        )
        for perm in itertools.permutations(range(size)):
            pm = permutation_matrix(perm)
            d.equal(
                f"engine, whole layer, n = {size}, d_model = d_k = {width}, pi = {perm}: "
                "symattn.self_attention(P X) = P symattn.self_attention(X), symbolic X and "
                "weights",
                engine_layer(pm * x),
                pm * base,
                show=False,
            )


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
