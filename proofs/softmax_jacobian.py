"""softmax Jacobian: dp_i/dz_j = p_i (delta_ij - p_j)."""

from sympy import IndexedBase, KroneckerDelta, Sum, diag, diff, exp, symbols

try:
    from ._common import Derivation, in_range, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script: python proofs/softmax_jacobian.py
    from _common import Derivation, in_range, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "softmax-jacobian"
STATEMENT = "dp_i/dz_j = p_i (delta_ij - p_j), i.e. J = diag(p) - p p^T"
GENERAL = True
SCOPE = (
    "for every n, by symbolic differentiation of p_i = exp(z_i)/Sum_{k=1}^{n} exp(z_k) "
    "with z an IndexedBase and n a symbol; the engine's symattn.softmax is checked to be "
    "that p for n = 1..5 (symbolic z), and SymPy's Jacobian of the engine's own output is "
    "diag(p) - p p^T for n = 2, 3, 4"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    n = symbols("n", integer=True, positive=True)
    i, j, k = symbols("i j k", integer=True, positive=True)
    z = IndexedBase("z")
    denominator = Sum(exp(z[k]), (k, 1, n))

    def p(a):
        return exp(z[a]) / denominator

    d.note("softmax of z = (z_1, ..., z_n): p_i =", p(i))
    raw = diff(p(i), z[j])
    d.note("differentiate with respect to z_j (quotient rule, dz_k/dz_j = delta_kj)", raw)
    evaluated = in_range(raw.doit(), n, i, j)
    d.note("the sum over k of exp(z_k) delta_kj is exp(z_j) for 1 <= j <= n", evaluated)
    d.equal("this is p_i (delta_ij - p_j)", evaluated, p(i) * (KroneckerDelta(i, j) - p(j)))

    for size in range(1, 6):
        zs = symbol_matrix("z", 1, size)
        total = sum(exp(v) for v in zs)
        d.equal(
            f"engine, n = {size}: symattn.softmax of a row of symbols is p_i = exp(z_i)/Sum_k exp(z_k)",
            value(engine.softmax(tensor(zs))),
            zs.applyfunc(lambda v: exp(v) / total),
            show=False,
        )
    for size in (2, 3, 4):
        zs = symbol_matrix("z", 1, size)
        probs = value(engine.softmax(tensor(zs))).T
        d.equal(
            f"engine, n = {size}: the Jacobian of symattn.softmax's output equals diag(p) - p p^T",
            probs.jacobian(zs),
            diag(*probs) - probs * probs.T,
            show=False,
        )
    return d.qed()


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
