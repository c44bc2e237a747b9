"""Two Linear layers with no nonlinearity between them are one Linear layer."""

from sympy import (
    Abs,
    Eq,
    MatAdd,
    MatMul,
    MatrixSymbol,
    Matrix,
    Piecewise,
    ZeroMatrix,
    simplify,
    symbols,
)

try:
    from ._common import Derivation, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "linear-collapse"
STATEMENT = (
    "(X W1 + 1 b1) W2 + 1 b2 = X W + 1 b with W = W1 W2 and b = b1 W2 + b2: stacking "
    "Linear layers without a ReLU adds no expressive power"
)
GENERAL = True
SCOPE = (
    "for every batch size n and widths d_in, d_hidden, d_out, with MatrixSymbols (1 the n x 1 "
    "column of ones broadcasting the bias rows); a ReLU in between is shown to break "
    "additivity with an exact counterexample; on the engine, symattn.linear is x W + b and "
    "two symattn.linear layers equal one for n = 1, 2, 3 with symbolic entries of widths "
    "2, 3, 2, and the counterexample is computed with symattn.ffn"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    n, di, dh, do = symbols("n d_in d_hidden d_out", integer=True, positive=True)
    X = MatrixSymbol("X", n, di)
    W1, W2 = MatrixSymbol("W1", di, dh), MatrixSymbol("W2", dh, do)
    b1, b2 = MatrixSymbol("b1", 1, dh), MatrixSymbol("b2", 1, do)
    ones = MatrixSymbol("1", n, 1)
    stacked = (X * W1 + ones * b1) * W2 + ones * b2
    single = X * (W1 * W2) + ones * (b1 * W2 + b2)
    d.note("two Linear layers (row convention y = x W + b, biases broadcast over rows)", stacked)
    d.equal(
        "distribute and regroup: one Linear layer with W = W1 W2 and b = b1 W2 + b2",
        stacked.expand(),
        single.expand(),
        show=Eq(stacked, single, evaluate=False),
    )

    x = MatrixSymbol("x", 1, di)
    W, b = MatrixSymbol("W", di, do), MatrixSymbol("b", 1, do)

    def affine(v):
        return v * W + b

    d.equal(
        "every affine map f(x) = x W + b (so any stack of Linear layers) has "
        "f(x) + f(-x) - 2 f(0) = 0",
        (affine(x) + affine(-x) - 2 * b).expand(),
        ZeroMatrix(1, do),
        show=Eq(
            MatAdd(affine(x), affine(-x), MatMul(-2, b), evaluate=False),
            ZeroMatrix(1, do),
            evaluate=False,
        ),
    )
    on_the_engine(d)

    t = symbols("t", real=True)

    def relu_layers(v):
        """Linear-ReLU-Linear with 1 x 1 weights 1 and zero biases, on the engine."""
        return value(engine.ffn(tensor([[v]]), *(tensor([[k]]) for k in (1, 0, 1, 0))))[0]

    relu_gap = relu_layers(t) + relu_layers(-t) - 2 * relu_layers(0)
    d.equal(
        "symattn.ffn (Linear-ReLU-Linear) with 1 x 1 weights 1 and zero biases is relu, and "
        "relu(t) + relu(-t) - 2 relu(0) = |t|, not 0 for t != 0",
        relu_gap,
        Abs(t),
        method=lambda e: simplify(e.rewrite(Piecewise)),
    )
    return d.qed()


def on_the_engine(d: Derivation) -> None:
    """The engine's symattn.linear: x W + b, and two layers of it are one."""
    for rows in (1, 2, 3):
        xs = symbol_matrix("x", rows, 2)
        w1s, w2s = symbol_matrix("v", 2, 3), symbol_matrix("w", 3, 2)
        b1s, b2s = symbol_matrix("b", 1, 3), symbol_matrix("c", 1, 2)
        ones = Matrix.ones(rows, 1)
        first = engine.linear(tensor(xs), tensor(w1s), tensor(b1s))
        d.equal(
            f"engine, n = {rows}: symattn.linear(X, W1, b1) is X W1 + 1 b1",
            value(first),
            xs * w1s + ones * b1s,
            show=False,
        )
        d.equal(
            f"engine, n = {rows}: symattn.linear(symattn.linear(X, W1, b1), W2, b2) = "
            "symattn.linear(X, W1 W2, b1 W2 + b2)",
            value(engine.linear(first, tensor(w2s), tensor(b2s))),
            value(engine.linear(tensor(xs), tensor(w1s * w2s), tensor(b1s * w2s + b2s))),
            show=False,
        )


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
