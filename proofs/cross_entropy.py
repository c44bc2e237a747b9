"""Cross-entropy gradient: d(-log p_y)/dz_j = p_j - [j = y]."""

from sympy import IndexedBase, KroneckerDelta, Matrix, Sum, diff, exp, log, symbols

try:
    from ._common import Derivation, in_range, print_derivation
except ImportError:  # run as a plain script
    from _common import Derivation, in_range, print_derivation

NAME = "cross-entropy-gradient"
STATEMENT = "L = -log softmax(z)_y has dL/dz_j = p_j - delta_jy, i.e. grad = p - onehot(y)"
GENERAL = True
SCOPE = (
    "for every n and every target y, by symbolic differentiation with z an IndexedBase and "
    "Sum_{l=1}^{n}; the vector form is also checked for n = 3 and each y"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    n = symbols("n", integer=True, positive=True)
    j, l, y = symbols("j l y", integer=True, positive=True)
    z = IndexedBase("z", real=True)
    denominator = Sum(exp(z[l]), (l, 1, n))

    def p(a):
        return exp(z[a]) / denominator

    loss = -log(p(y))
    d.note("cross-entropy of the logits z for the target index y (1 <= y <= n): L =", loss)
    raw = diff(loss, z[j])
    d.note("differentiate with respect to z_j", raw)
    evaluated = in_range(raw.doit(), n, j, y)
    d.note("evaluate the Kronecker sum for 1 <= j <= n", evaluated)
    d.equal("dL/dz_j = p_j - delta_jy", evaluated, p(j) - KroneckerDelta(j, y))

    size = 3
    zs = Matrix(symbols(f"z1:{size + 1}", real=True))
    total = sum(exp(v) for v in zs)
    probs = zs.applyfunc(lambda v: exp(v) / total)
    for target in range(size):
        gradient = Matrix([diff(-log(probs[target]), v) for v in zs])
        onehot = Matrix([1 if r == target else 0 for r in range(size)])
        d.equal(
            f"n = {size}, target y = {target + 1}: the gradient vector is p - onehot(y)",
            gradient,
            probs - onehot,
            show=False,
        )
    return d.qed()


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
