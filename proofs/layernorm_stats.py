"""LayerNorm output rows have mean 0 and variance s^2/(s^2 + eps)."""

from sympy import Eq, IndexedBase, Sum, sqrt, symbols
from sympy.simplify.simplify import factor_sum

try:
    from ._common import Derivation, linear_sums, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, linear_sums, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "layernorm-stats"
STATEMENT = (
    "y_i = (x_i - mu)/sqrt(s^2 + eps) (mu the row mean, s^2 the biased row variance) has "
    "mean(y) = 0 and var(y) = s^2/(s^2 + eps) < 1 (eps > 0)"
)
GENERAL = True
SCOPE = (
    "for every row length n, with x an IndexedBase and Sums over k = 1..n (linearity of "
    "finite sums); on the engine, symattn.layer_norm(x, eps=eps) (gamma = 1, beta = 0) is "
    "that y for n = 2, 3, 4 with symbolic entries and eps, and its output has mean 0 and "
    "mean square s^2/(s^2 + eps)"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    n = symbols("n", integer=True, positive=True)
    k = symbols("k", integer=True, positive=True)
    x = IndexedBase("x", real=True)
    eps = symbols("epsilon", positive=True)
    s2 = symbols("s2", nonnegative=True)
    mu = Sum(x[k], (k, 1, n)) / n
    variance = Sum((x[k] - mu) ** 2, (k, 1, n)) / n
    d.note("row mean mu =", mu)
    d.note("biased row variance", Eq(s2, variance, evaluate=False))

    def y(a):
        return (x[a] - mu) / sqrt(s2 + eps)

    d.note("LayerNorm output (gamma = 1, beta = 0): y_k =", y(k))
    mean_y = Sum(y(k), (k, 1, n)) / n
    reduced = linear_sums(mean_y)
    d.note("split the sum (mu does not depend on k, Sum_k mu = n mu)", reduced)
    d.equal("mean(y) = 0", reduced, 0, show=Eq(mean_y, 0, evaluate=False))
    mean_square = Sum(y(k) ** 2, (k, 1, n)) / n
    pulled = mean_square.replace(lambda e: isinstance(e, Sum), factor_sum)
    d.note("var(y) = mean(y^2) (the mean is 0); 1/(s^2 + eps) comes out of the sum", pulled)
    pulled = pulled.subs(Sum((x[k] - mu) ** 2, (k, 1, n)), n * s2)
    d.note("Sum_k (x_k - mu)^2 = n s^2 by the definition of s^2", pulled)
    d.equal(
        "var(y) = s^2/(s^2 + eps)",
        pulled,
        s2 / (s2 + eps),
        show=Eq(mean_square, s2 / (s2 + eps), evaluate=False),
    )
    d.positive("1 - var(y) = eps/(s^2 + eps) > 0, so var(y) < 1", 1 - s2 / (s2 + eps))

    for size in (2, 3, 4):
        xs = symbol_matrix("x", 1, size)
        mean_x = sum(xs) / size
        var_x = sum((v - mean_x) ** 2 for v in xs) / size
        ys = value(engine.layer_norm(tensor(xs), eps=eps))
        d.equal(
            f"engine, n = {size}: symattn.layer_norm(x, eps=eps) is (x - mu)/sqrt(s^2 + eps)",
            ys,
            xs.applyfunc(lambda v: (v - mean_x) / sqrt(var_x + eps)),
            show=False,
        )
        d.equal(f"engine, n = {size}: mean(y) = 0", sum(ys) / size, 0, show=False)
        d.equal(
            f"engine, n = {size}: mean(y^2) = s^2/(s^2 + eps)",
            sum(v**2 for v in ys) / size,
            var_x / (var_x + eps),
            show=False,
        )
    return d.qed()


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
