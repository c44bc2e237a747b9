"""softmax(z/T): one-hot on a unique maximum as T -> 0+, uniform 1/n as T -> oo."""

from sympy import And, Eq, Le, Limit, Rational, exp, oo, symbols

try:
    from ._common import Derivation, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "temperature-limits"
STATEMENT = (
    "p_i(T) = exp(z_i/T)/Sum_k exp(z_k/T): as T -> 0+ it tends to 1 at the unique maximum "
    "and 0 elsewhere; as T -> oo every p_i tends to 1/n"
)
GENERAL = True
SCOPE = (
    "for every n by squeezing: the bounds below hold termwise for any n, and SymPy takes "
    "their limits with n a symbol (0 <= 1 - p_max <= (n - 1) exp(-delta/T), "
    "exp((z_i - b)/T)/n <= p_i <= exp((z_i - a)/T)/n with a = min z, b = max z, "
    "delta = the gap to the runner-up); the engine's symattn.softmax(z, T=T) is checked to "
    "be p(T) for n = 2, 3, 4 (symbolic z, T), and the limits are also taken directly on "
    "its output for n = 3"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    T = symbols("T", positive=True)
    n = symbols("n", integer=True, positive=True)
    delta = symbols("delta", positive=True)
    E = symbols("E", positive=True)

    # T -> 0+
    d.note(
        "T -> 0+. Let z_m be the unique maximum and d_k = z_m - z_k >= delta > 0 for k != m. "
        "Dividing by exp(z_m/T): p_m = 1/(1 + E(T)), E(T) = Sum_{k != m} exp(-d_k/T) > 0",
        Eq(symbols("p_m"), 1 / (1 + E), evaluate=False),
    )
    d.equal("1 - p_m = E/(1 + E)", 1 - 1 / (1 + E), E / (1 + E))
    d.positive("E/(1 + E) < E  (E - E/(1 + E) = E^2/(1 + E) > 0)", E - E / (1 + E))
    d.note(
        "each of the n - 1 terms of E is exp(-d_k/T) <= exp(-delta/T) (exp is increasing, "
        "d_k >= delta, T > 0), so 0 <= 1 - p_m < E(T) <= (n - 1) exp(-delta/T)",
        (n - 1) * exp(-delta / T),
    )
    d.limit("the upper bound tends to 0 for every n", (n - 1) * exp(-delta / T), T, 0, 0, "+")
    d.note(
        "hence p_m -> 1; for i != m, p_i = exp(-d_i/T) p_m <= exp(-delta/T) (p_m <= 1)",
        exp(-delta / T),
    )
    d.limit(
        "and exp(-delta/T) -> 0, so p_i -> 0: the limit is one-hot", exp(-delta / T), T, 0, 0, "+"
    )

    on_the_engine(d, T)

    # T -> oo
    a, b, zi = symbols("a b z_i", real=True)
    d.note(
        "T -> oo. With a = min z, b = max z and T > 0 every term lies between exp(a/T) and "
        "exp(b/T), so n exp(a/T) <= Sum_k exp(z_k/T) <= n exp(b/T) and",
        And(
            Le(exp((zi - b) / T) / n, symbols("p_i"), evaluate=False),
            Le(symbols("p_i"), exp((zi - a) / T) / n, evaluate=False),
        ),
    )
    lower, upper = exp((zi - b) / T) / n, exp((zi - a) / T) / n
    d.limit("the lower bound exp((z_i - b)/T)/n tends to 1/n", lower, T, oo, 1 / n, "-")
    d.limit("the upper bound exp((z_i - a)/T)/n tends to 1/n", upper, T, oo, 1 / n, "-")
    d.note(
        "so p_i -> 1/n for every i and every n: the uniform distribution",
        Eq(Limit(symbols("p_i"), T, oo), 1 / n, evaluate=False),
    )
    hot = value(engine.softmax(tensor(symbol_matrix("z", 1, 3)), T=T))
    d.limit(
        "engine, n = 3 directly, arbitrary real z: symattn.softmax(z, T=T)_1 -> 1/3",
        hot[0],
        T,
        oo,
        Rational(1, 3),
        "-",
    )
    return d.qed()


def on_the_engine(d: Derivation, T) -> None:
    """The engine's symattn.softmax(z, T=T) is p(T), and its T -> 0+ limits for n = 3."""
    for size in (2, 3, 4):
        zs = symbol_matrix("z", 1, size)
        d.equal(
            f"engine, n = {size}: symattn.softmax(z, T=T) is exp(z_i/T)/Sum_k exp(z_k/T)",
            value(engine.softmax(tensor(zs), T=T)),
            zs.applyfunc(lambda v: exp(v / T) / sum(exp(w / T) for w in zs)),
            show=False,
        )
    d1, d2 = symbols("d1 d2", positive=True)
    cold = value(engine.softmax(tensor([[0, -d1, -d2]]), T=T))
    d.limit(
        "engine, n = 3 directly (z_1 = 0 the unique maximum by shift invariance, z_2 = -d_1, "
        "z_3 = -d_2): symattn.softmax(z, T=T)_1 -> 1",
        cold[0],
        T,
        0,
        1,
        "+",
    )
    d.limit("engine, n = 3 directly: symattn.softmax(z, T=T)_2 -> 0", cold[1], T, 0, 0, "+")


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
