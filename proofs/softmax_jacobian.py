"""softmax Jacobian: dp_i/dz_j = p_i (delta_ij - p_j)."""

from sympy import IndexedBase, KroneckerDelta, Matrix, Sum, diag, diff, exp, symbols

try:
    from ._common import Derivation, in_range, print_derivation
except ImportError:  # run as a plain script: python proofs/softmax_jacobian.py
    from _common import Derivation, in_range, print_derivation

NAME = "softmax-jacobian"
STATEMENT = "dp_i/dz_j = p_i (delta_ij - p_j), i.e. J = diag(p) - p p^T"
GENERAL = True
SCOPE = (
    "for every n, by symbolic differentiation of p_i = exp(z_i)/Sum_{k=1}^{n} exp(z_k) "
    "with z an IndexedBase and n a symbol; the matrix form is also checked for n = 2, 3, 4"
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

    for size in (2, 3, 4):
        zs = Matrix(symbols(f"z1:{size + 1}"))
        total = sum(exp(v) for v in zs)
        probs = zs.applyfunc(lambda v: exp(v) / total)
        jacobian = probs.jacobian(zs)
        d.equal(
            f"n = {size}: the full Jacobian equals diag(p) - p p^T",
            jacobian,
            diag(*probs) - probs * probs.T,
            show=False,
        )
    return d.qed()


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
