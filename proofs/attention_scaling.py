"""Var(q.k) = d_k for independent zero-mean unit-variance entries; /sqrt(d_k) restores 1."""

import itertools

from sympy import Eq, Integer, KroneckerDelta, Mul, Poly, Pow, Rational, Sum, sqrt, symbols

try:
    from ._common import Derivation, in_range, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, in_range, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "attention-scaling"
STATEMENT = (
    "if the 2 d_k entries of q and k are independent with mean 0 and variance 1, then "
    "E[q.k] = 0 and Var(q.k) = d_k, so Var(q.k/sqrt(d_k)) = 1"
)
GENERAL = True
SCOPE = (
    "for every d_k and any such distribution: E[q_c q_e] = E[k_c k_e] = delta_ce (moments "
    "used: mean 0, variance 1, independence) and the double Sum over c, e = 1..d_k is "
    "evaluated symbolically; also expanded monomial by monomial for d_k = 1..4 and computed "
    "exactly for +-1 (Rademacher) entries, d_k = 1..3; on the engine, the score "
    "symattn.scores(q, k) of a query and a key of symbolic entries has mean 0 and variance "
    "exactly 1 for d_k = 1..6 by the same moment rules"
)


def moment(monomial_exponents):
    """E of a monomial in independent mean-0 variance-1 variables (degree <= 2 each):
    the product of E[x^p] over its variables, E[x^0] = E[x^2] = 1, E[x] = 0."""
    if any(power > 2 for power in monomial_exponents):
        raise ValueError("moments above 2 are not fixed by the hypotheses")
    if any(power == 1 for power in monomial_exponents):
        return Integer(0)
    return Integer(1)


def expectation(poly_expr, variables):
    poly = Poly(poly_expr, *variables)
    return sum(coeff * moment(exps) for exps, coeff in poly.terms())


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    dk = symbols("d_k", integer=True, positive=True)
    c, e = symbols("c e", integer=True, positive=True)

    d.note(
        "s = q.k = Sum_c q_c k_c. Independence and zero means give E[q_c k_c] = E[q_c] E[k_c] = 0",
        Eq(symbols("E[s]"), 0, evaluate=False),
    )
    second = KroneckerDelta(c, e) * KroneckerDelta(c, e)
    d.note(
        "E[s^2] = Sum_c Sum_e E[q_c q_e] E[k_c k_e] (q independent of k) with "
        "E[q_c q_e] = E[k_c k_e] = delta_ce (variance 1 on the diagonal, independence and "
        "zero means off it)",
        Sum(second, (e, 1, dk), (c, 1, dk)),
    )
    inner = in_range(Sum(second, (e, 1, dk)).doit(), dk, c)
    d.note("inner sum over e = 1..d_k (1 <= c <= d_k)", inner)
    total = Sum(inner, (c, 1, dk)).doit()
    d.equal(
        "Var(s) = E[s^2] - E[s]^2 = d_k",
        total,
        dk,
        show=Eq(Sum(second, (e, 1, dk), (c, 1, dk)), dk, evaluate=False),
    )
    d.equal(
        "Var(s/sqrt(d_k)) = Var(s)/d_k = 1",
        dk / sqrt(dk) ** 2,
        1,
        show=Eq(Mul(dk, Pow(sqrt(dk), -2, evaluate=False), evaluate=False), 1, evaluate=False),
    )

    for size in range(1, 5):
        qs = symbols(f"q1:{size + 1}")
        ks = symbols(f"k1:{size + 1}")
        s = sum(a * b for a, b in zip(qs, ks))
        variables = qs + ks
        mean = expectation(s, variables)
        second_moment = expectation(s**2, variables)
        d.equal(
            f"d_k = {size}: expanding s^2 and using only E[x] = 0, E[x^2] = 1 and "
            f"independence, Var(s) = {size}",
            second_moment - mean**2,
            size,
            show=False,
        )

    on_the_engine(d)

    for size in range(1, 4):
        count = 2 * size
        outcomes = list(itertools.product((-1, 1), repeat=count))
        values = [sum(o[i] * o[size + i] for i in range(size)) for o in outcomes]
        prob = Rational(1, len(outcomes))
        mean = sum(prob * v for v in values)
        var = sum(prob * v**2 for v in values) - mean**2
        d.equal(
            f"d_k = {size}, entries uniform on {{-1, 1}} (all {len(outcomes)} outcomes): "
            f"Var(s) = {size}, Var(s/sqrt({size})) = 1",
            var / size,
            1,
            show=False,
        )
    return d.qed()


def on_the_engine(d: Derivation) -> None:
    """The engine's symattn.scores of symbolic q, k has mean 0 and variance 1."""
    for size in range(1, 7):
        qs, ks = symbol_matrix("q", 1, size), symbol_matrix("k", 1, size)
        score = value(engine.scores(tensor(qs), tensor(ks)))[0]
        variables = tuple(qs) + tuple(ks)
        mean = expectation(score, variables)
        d.equal(f"engine, d_k = {size}: E[symattn.scores(q, k)] = 0", mean, 0, show=False)
        d.equal(
            f"engine, d_k = {size}: Var(symattn.scores(q, k)) = 1 (the engine divides by "
            f"sqrt({size}))",
            expectation(score**2, variables) - mean**2,
            1,
            show=False,
        )


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
