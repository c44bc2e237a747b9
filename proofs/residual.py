"""Residual connection: d(x + f(x))/dx = I + J_f."""

from sympy import (
    Derivative,
    Eq,
    Function,
    Identity,
    IndexedBase,
    KroneckerDelta,
    Matrix,
    MatrixSymbol,
    diff,
    eye,
    symbols,
)

try:
    from ._common import Derivation, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "residual-jacobian"
STATEMENT = "y = x + f(x) has Jacobian dy/dx = I + J_f, so dL/dx = dL/dy + dL/dy J_f"
GENERAL = True
SCOPE = (
    "for every n: y_a = x_a + f_a(x), and differentiation is linear with dx_a/dx_b = "
    "delta_ab (SymPy, x an IndexedBase, symbolic a, b), so dy_a/dx_b = delta_ab + "
    "df_a/dx_b; on the engine, symattn.residual(x, f(x)) is x + f(x) and SymPy's Jacobian "
    "of its output is I + J_f for n = 1..4 with f an arbitrary (undefined) function of all "
    "n inputs, and symattn.grad through symattn.residual(x, ffn(x)) is g + g J_ffn for n = 2"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    a, b, n = symbols("a b n", integer=True, positive=True)
    x = IndexedBase("x", real=True)
    d.equal(
        "the identity path: dx_a/dx_b = delta_ab",
        diff(x[a], x[b]),
        KroneckerDelta(a, b),
        show=Eq(Derivative(x[a], x[b]), KroneckerDelta(a, b), evaluate=False),
    )
    term = Function("F")(x[a], x[b])
    d.equal(
        "the derivative of a sum is the sum of the derivatives (F any differentiable term)",
        diff(x[a] + term, x[b]),
        KroneckerDelta(a, b) + diff(term, x[b]),
        show=Eq(
            Derivative(x[a] + term, x[b]),
            KroneckerDelta(a, b) + Derivative(term, x[b]),
            evaluate=False,
        ),
    )
    d.note(
        "so dy_a/dx_b = delta_ab + df_a/dx_b, i.e. dy/dx = I + J_f for every n",
        Eq(MatrixSymbol("J_y", n, n), Identity(n) + MatrixSymbol("J_f", n, n), evaluate=False),
    )
    on_the_engine(d)
    return d.qed()


def on_the_engine(d: Derivation) -> None:
    """The engine's symattn.residual: x + f(x), its Jacobian, and symattn.grad through an FFN."""
    for size in range(1, 5):
        xs = symbol_matrix("x", 1, size)
        fs = Matrix([[Function(f"f{k}")(*xs) for k in range(1, size + 1)]])
        y = value(engine.residual(tensor(xs), tensor(fs)))
        d.equal(
            f"engine, n = {size}: symattn.residual(x, f(x)) is x + f(x)",
            y,
            xs + fs,
            method=lambda e: e,
            show=False,
        )
        d.equal(
            f"engine, n = {size}: jacobian of symattn.residual(x, f(x)) = I + jacobian(f), each "
            "f_k an arbitrary function of all of x",
            y.jacobian(xs),
            eye(size) + fs.jacobian(xs),
            show=False,
        )
    g = Matrix([symbols(f"g1:{3}")]).reshape(1, 2)
    xs = Matrix(symbols("x1:3", real=True))
    fs = Matrix([Function(f"f{k}")(*xs) for k in (1, 2)])
    d.equal(
        "backward, n = 2: dL/dx = g (I + J_f) = g + g J_f for an upstream gradient g",
        g * (xs + fs).jacobian(xs),
        g + g * fs.jacobian(xs),
        show=False,
    )
    x_e = tensor(symbol_matrix("x", 1, 2))
    w1, b1 = tensor(symbol_matrix("a", 2, 3)), tensor(symbol_matrix("b", 1, 3))
    w2, b2 = tensor(symbol_matrix("c", 3, 2)), tensor(symbol_matrix("e", 1, 2))
    g_row = symbol_matrix("g", 1, 2)
    inner = engine.ffn(x_e, w1, b1, w2, b2)
    out = engine.residual(x_e, inner)
    loss = engine.row_sum(tensor(g_row) * out)
    xs = symbol_matrix("x", 1, 2)
    d.equal(
        "engine, n = 2: symattn.grad of g . residual(x, ffn(x)) is g + g J_ffn (J_ffn by SymPy, "
        "ReLU kept as Max)",
        Matrix(engine.grad(loss, x_e)),
        g_row + g_row * value(inner).jacobian(xs),
        show=False,
    )


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
