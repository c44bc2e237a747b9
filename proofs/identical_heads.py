"""Heads with identical weights give identical outputs (and collapse into one head)."""

from sympy import (
    BlockMatrix,
    Eq,
    Indexed,
    IndexedBase,
    Matrix,
    MatrixSymbol,
    Sum,
    Symbol,
    block_collapse,
    exp,
    sqrt,
    symbols,
)

try:
    from ._common import Derivation, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "identical-heads"
STATEMENT = (
    "if heads h and h' have the same W_Q, W_K, W_V their outputs are equal, and "
    "concat(Z, ..., Z) W_O = Z (W_O^(1) + ... + W_O^(H)): H identical heads act as one head"
)
GENERAL = True
SCOPE = (
    "for every n, d_model, d_k, d_v: head h's output entry is built with IndexedBases "
    "(weights indexed by head) and Sums, and tying the weights makes the two heads' "
    "expressions identical; the collapse through W_O is block-matrix algebra with "
    "MatrixSymbols for H = 2, 3, 4 (every H by the same block product); on the engine, "
    "symattn.multi_head with H = 2, 3 heads of the same symbolic weights (n = 2, d_model = 2, "
    "d_k = d_v = 1) gives equal head outputs and an output Z (W_O^(1) + ... + W_O^(H))"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    n, dm, dk = symbols("n d_model d_k", integer=True, positive=True)
    i, r, l, b, c, e, f = symbols("i r l b c e f", integer=True, positive=True)
    h = symbols("h", integer=True, positive=True)
    X = IndexedBase("X", real=True)
    WQ, WK, WV = (IndexedBase(name, real=True) for name in ("W_Q", "W_K", "W_V"))

    def head(k):
        """Entry (i, b) of head k's output."""

        def q(row, col):
            return Sum(X[row, e] * WQ[k, e, col], (e, 1, dm))

        def key(row, col):
            return Sum(X[row, f] * WK[k, f, col], (f, 1, dm))

        def score(row, other):
            return Sum(q(row, c) * key(other, c), (c, 1, dk)) / sqrt(dk)

        value = Sum(X[r, e] * WV[k, e, b], (e, 1, dm))
        return Sum(exp(score(i, r)) * value, (r, 1, n)) / Sum(exp(score(i, l)), (l, 1, n))

    d.note("entry (i, b) of head h's output, weights W_Q[h, :, :] etc.: Z^(h)_ib =", head(h))

    def tie(expr):
        """Substitute W_*[2, p, q] -> W_*[1, p, q] for the three projections."""
        return expr.replace(
            lambda x: isinstance(x, Indexed) and x.base in (WQ, WK, WV) and x.indices[0] == 2,
            lambda x: x.base[(1,) + tuple(x.indices[1:])],
        )

    second = head(h).subs(h, 2)
    tied = tie(second)
    d.equal(
        "substitute W_*[2, :, :] = W_*[1, :, :] into head 2: the result is head 1's output "
        "term for term (the difference cancels to 0 with no simplification)",
        tied,
        head(h).subs(h, 1),
        method=lambda expr: expr,
        show=Eq(Symbol("Z^(2)_ib"), Symbol("Z^(1)_ib"), evaluate=False),
    )

    dv, dout = symbols("d_v d_out", integer=True, positive=True)
    Z = MatrixSymbol("Z", n, dv)
    for heads in (2, 3, 4):
        blocks = [MatrixSymbol(f"W_O{k}", dv, dout) for k in range(1, heads + 1)]
        concat = BlockMatrix([[Z] * heads])
        stacked = BlockMatrix([[w] for w in blocks])
        product = block_collapse(concat * stacked)
        d.equal(
            f"H = {heads}: concat(Z, ..., Z) W_O = Z (W_O^(1) + ... + W_O^({heads})), "
            "one head with the summed output block",
            product,
            Z * sum(blocks[1:], blocks[0]),
            method=lambda expr: expr.expand().doit(),
        )
    on_the_engine(d)
    return d.qed()


def on_the_engine(d: Derivation) -> None:
    """The engine's symattn.multi_head with H heads of the same symbolic weights."""
    size, width = 2, 2
    x = symbol_matrix("x", size, width)
    shared = engine.Head(*(tensor(symbol_matrix(name, width, 1)) for name in ("a", "b", "c")))
    for heads in (2, 3):
        w_out = symbol_matrix("o", heads, 2)
        st = engine.multi_head(tensor(x), tensor(x), [shared] * heads, W_O=tensor(w_out))
        outputs = [value(head["output"]) for head in st["heads"]]
        d.equal(
            f"engine, H = {heads}: symattn.multi_head's heads with the same W_Q, W_K, W_V have "
            "equal outputs",
            Matrix.hstack(*outputs[1:]),
            Matrix.hstack(*outputs[:1] * (heads - 1)),
            show=False,
        )
        summed = sum((w_out[k, :] for k in range(heads)), Matrix.zeros(1, 2))
        d.equal(
            f"engine, H = {heads}: its output concat(Z, ..., Z) W_O = Z (W_O^(1) + ... + "
            f"W_O^({heads}))",
            value(st["output"]),
            outputs[0] * summed,
            show=False,
        )


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
