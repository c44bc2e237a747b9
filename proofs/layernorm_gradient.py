"""LayerNorm Jacobian: dy_i/dx_j = (delta_ij - 1/n - y_i y_j / n) / sqrt(s^2 + eps)."""

from sympy import (
    Derivative,
    Eq,
    IndexedBase,
    KroneckerDelta,
    Matrix,
    Rational,
    Sum,
    diff,
    sqrt,
    symbols,
)

try:
    from ._common import Derivation, in_range, linear_sums, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, in_range, linear_sums, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "layernorm-gradient"
STATEMENT = (
    "for y = (x - mu)/sqrt(s^2 + eps): dy_i/dx_j = (delta_ij - 1/n - y_i y_j/n)/sqrt(s^2 + eps); "
    "backward: dL/dx = (g - mean(g) - y mean(g * y))/sqrt(s^2 + eps) for g = dL/dy"
)
GENERAL = True
SCOPE = (
    "for every n: dmu/dx_j = 1/n and ds^2/dx_j = 2(x_j - mu)/n are derived with Sums over "
    "k = 1..n, then the chain rule through (x_i, mu, s^2) gives the Jacobian and a Sum over "
    "i gives the backward formula; on the engine, SymPy's Jacobian of symattn.layer_norm(x, "
    "eps=eps) equals the formula entry by entry for n = 2, 3 (symbolic x, eps), and "
    "symattn.grad of g . layer_norm(x) is the backward formula for n = 2, 3"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    n = symbols("n", integer=True, positive=True)
    i, j, k = symbols("i j k", integer=True, positive=True)
    x = IndexedBase("x", real=True)
    eps = symbols("epsilon", positive=True)
    mu, s2 = symbols("mu s2", real=True)
    xi, xj = symbols("x_i x_j", real=True)

    mean_def = Sum(x[k], (k, 1, n)) / n
    dmu = in_range(diff(mean_def, x[j]).doit(), n, j)
    d.equal(
        "dmu/dx_j = 1/n",
        dmu,
        1 / n,
        show=Eq(Derivative(mean_def, x[j]), 1 / n, evaluate=False),
    )

    var_def = Sum((x[k] - mu) ** 2, (k, 1, n)) / n
    direct = in_range(diff(var_def, x[j]).doit(), n, j)
    d.note("s^2 = Sum_k (x_k - mu)^2 / n; its partial derivative in x_j at fixed mu", direct)
    through_mu = linear_sums(diff(var_def, mu)).subs(Sum(x[k], (k, 1, n)), n * mu)
    d.equal(
        "its partial derivative in mu is -2 Sum_k (x_k - mu)/n = 0 (Sum_k x_k = n mu)",
        through_mu,
        0,
        show=Eq(Derivative(var_def, mu), 0, evaluate=False),
    )
    ds2 = direct + through_mu * dmu
    d.equal("so ds^2/dx_j = 2 (x_j - mu)/n", ds2, 2 * (x[j] - mu) / n)

    root = sqrt(s2 + eps)
    y_i = (xi - mu) / root
    y_j = (xj - mu) / root
    total = (
        diff(y_i, xi) * KroneckerDelta(i, j)
        + diff(y_i, mu) * dmu
        + diff(y_i, s2) * ds2.subs(x[j], xj)
    )
    d.note(
        "chain rule for y_i = (x_i - mu)/sqrt(s^2 + eps): dy_i/dx_j = "
        "dy_i/dx_i delta_ij + dy_i/dmu dmu/dx_j + dy_i/ds^2 ds^2/dx_j",
        total,
    )
    claimed = (KroneckerDelta(i, j) - 1 / n - y_i * y_j / n) / root
    d.equal("dy_i/dx_j = (delta_ij - 1/n - y_i y_j/n)/sqrt(s^2 + eps)", total, claimed)

    g, Y = IndexedBase("g", real=True), IndexedBase("y", real=True)
    jac = (KroneckerDelta(i, j) - 1 / n - Y[i] * Y[j] / n) / root
    backward = in_range(linear_sums(Sum(g[i] * jac, (i, 1, n))), n, j)
    d.note("backward pass: dL/dx_j = Sum_i g_i dy_i/dx_j =", backward)
    mean_g = Sum(g[i], (i, 1, n)) / n
    mean_gy = Sum(g[i] * Y[i], (i, 1, n)) / n
    d.equal(
        "dL/dx_j = (g_j - mean(g) - y_j mean(g y))/sqrt(s^2 + eps)",
        backward,
        (g[j] - mean_g - Y[j] * mean_gy) / root,
    )

    on_the_engine(d, eps)
    return d.qed()


def on_the_engine(d: Derivation, eps) -> None:
    """The engine's symattn.layer_norm: its Jacobian, and symattn.grad of g . layer_norm(x)."""
    for size in (2, 3):
        xs = symbol_matrix("x", 1, size)
        m = sum(xs) / size
        var = sum((v - m) ** 2 for v in xs) / size
        r = sqrt(var + eps)
        x_e = tensor(xs)
        ys = value(engine.layer_norm(x_e, eps=eps))
        formula = Matrix(
            size,
            size,
            lambda a, b: ((1 if a == b else 0) - Rational(1, size) - ys[a] * ys[b] / size) / r,
        )
        d.equal(
            f"engine, n = {size}: the Jacobian of symattn.layer_norm(x, eps=eps) equals the formula",
            ys.jacobian(xs),
            formula,
            show=False,
        )
        gs = symbol_matrix("g", 1, size)
        loss = engine.row_sum(tensor(gs) * engine.layer_norm(x_e, eps=eps))
        mean_gy = sum(gs[k] * ys[k] for k in range(size)) / size
        d.equal(
            f"engine, n = {size}: symattn.grad of g . layer_norm(x) is "
            "(g - mean(g) - y mean(g y))/sqrt(s^2 + eps)",
            Matrix(engine.grad(loss, x_e)),
            (gs - Matrix.ones(1, size) * sum(gs) / size - ys * mean_gy) / r,
            show=False,
        )


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
