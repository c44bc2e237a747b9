"""A finite mask -M: the masked weight is bounded by an explicit multiple of exp(-M)."""

from sympy import Eq, Matrix, exp, oo, symbols

try:
    from ._common import Derivation, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "mask-finite"
STATEMENT = (
    "with a finite mask value -M (M > 0) the masked weights total "
    "A e^-M/(A e^-M + R) < (A/R) e^-M, each masked weight is < e^(s_m - s_j - M) for any "
    "unmasked j, and each unmasked weight is off its -oo-mask value by a factor (1 - that total)"
)
GENERAL = True
SCOPE = (
    "for every n and every mask pattern with an unmasked position: A = Sum over masked of "
    "exp(s_m) > 0, R = Sum over unmasked of exp(s_k) = exp(s_j) + r with r >= 0; the "
    "inequalities are differences that SymPy's assumptions prove positive / nonnegative; "
    "on the engine, symattn.softmax(S + causal_mask(n, fill=-M)) for n = 3, 4 and symbolic "
    "S, M has exactly that masked total in every row with a masked key, and its unmasked "
    "weights are those of the -oo mask times (1 - P(M))"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    M = symbols("M", positive=True)
    A, R = symbols("A R", positive=True)
    s_m, s_i, s_j = symbols("s_m s_i s_j", real=True)
    r = symbols("r", nonnegative=True)

    total = A * exp(-M) / (A * exp(-M) + R)
    d.note("the mask adds -M to every masked score; the masked weights add up to P(M) =", total)
    bound = A / R * exp(-M)
    d.positive(
        "explicit bound: (A/R) e^-M - P(M) = A^2 e^-2M / (R (A e^-M + R)) > 0",
        (bound - total).factor(),
        show=bound - total,
    )
    d.equal("the gap is exactly that", bound - total, A**2 * exp(-2 * M) / (R * (A * exp(-M) + R)))
    d.limit("P(M) -> 0 as M -> oo (the -oo mask)", total, M, oo, 0)

    one = exp(s_m - M) / (A * exp(-M) + R)
    d.note("one masked weight (s_m a masked score)", one)
    per_entry = exp(s_m - s_j - M)
    with_r = one.subs(R, exp(s_j) + r)
    d.positive(
        "it is below e^(s_m - s_j - M) for any unmasked score s_j (R = e^(s_j) + r, r >= 0)",
        (per_entry - with_r).factor(),
        show=per_entry - one,
    )

    finite = exp(s_i) / (A * exp(-M) + R)
    exact = exp(s_i) / R
    d.equal(
        "an unmasked weight is its -oo-mask value times (1 - P(M))",
        finite,
        exact * (1 - total),
    )
    d.equal(
        "so its error is exactly (its -oo-mask value) * P(M) < (A/R) e^-M",
        exact - finite,
        exact * total,
        show=Eq(exact - finite, exact * total, evaluate=False),
    )

    on_the_engine(d, M, total, A, R)
    return d.qed()


def on_the_engine(d: Derivation, M, total, A, R) -> None:
    """The engine's symattn.softmax(S + causal_mask(n, fill=-M)): P(M) = ``total`` with A, R
    the masked and unmasked exponential sums of each row."""
    for size in (3, 4):
        S = symbol_matrix("s", size, size)
        finite_w = value(engine.softmax(tensor(S) + engine.causal_mask(size, fill=-M)))
        exact_w = value(engine.softmax(tensor(S) + engine.causal_mask(size)))
        for row in range(size - 1):
            A_row = sum(exp(S[row, k]) for k in range(row + 1, size))
            R_row = sum(exp(S[row, k]) for k in range(row + 1))
            total_row = total.subs({A: A_row, R: R_row})
            d.equal(
                f"engine, n = {size}, row {row + 1}: the masked weights of "
                "symattn.softmax(S + causal_mask(n, fill=-M)) add up to P(M)",
                sum(finite_w[row, k] for k in range(row + 1, size)),
                total_row,
                show=False,
            )
            d.equal(
                f"engine, n = {size}, row {row + 1}: each unmasked weight is the -oo-mask "
                "weight times (1 - P(M))",
                Matrix([[finite_w[row, k] for k in range(row + 1)]]),
                Matrix([[exact_w[row, k] * (1 - total_row) for k in range(row + 1)]]),
                show=False,
            )


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
