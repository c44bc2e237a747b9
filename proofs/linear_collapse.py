"""Two Linear layers with no nonlinearity between them are one Linear layer."""

from sympy import (
    Abs,
    Eq,
    MatAdd,
    MatMul,
    MatrixSymbol,
    Max,
    Piecewise,
    ZeroMatrix,
    simplify,
    symbols,
)

try:
    from ._common import Derivation, print_derivation
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation

NAME = "linear-collapse"
STATEMENT = (
    "(X W1 + 1 b1) W2 + 1 b2 = X W + 1 b with W = W1 W2 and b = b1 W2 + b2: stacking "
    "Linear layers without a ReLU adds no expressive power"
)
GENERAL = True
SCOPE = (
    "for every batch size n and widths d_in, d_hidden, d_out, with MatrixSymbols (1 the n x 1 "
    "column of ones broadcasting the bias rows); a ReLU in between is shown to break "
    "additivity with an exact counterexample"
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
    t = symbols("t", real=True)
    relu_gap = Max(0, t) + Max(0, -t) - 2 * Max(0, 0)
    d.equal(
        "Linear-ReLU-Linear with 1 x 1 weights 1 and zero biases is relu, and "
        "relu(t) + relu(-t) - 2 relu(0) = |t|, not 0 for t != 0",
        relu_gap,
        Abs(t),
        method=lambda e: simplify(e.rewrite(Piecewise)),
    )
    return d.qed()


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
