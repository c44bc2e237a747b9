"""softmax(z + c) = softmax(z): the max-subtracted form is the same function."""

from sympy import Eq, IndexedBase, Matrix, Max, Sum, exp, expand, symbols
from sympy.simplify.simplify import factor_sum

try:
    from ._common import Derivation, print_derivation
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation

NAME = "softmax-shift"
STATEMENT = (
    "softmax(z + c)_i = softmax(z)_i for every constant c; with c = -max_k z_k this is the "
    "numerically stable form, whose exponents are all <= 0"
)
GENERAL = True
SCOPE = (
    "for every n, with z an IndexedBase, Sum_{k=1}^{n} and a symbolic shift c (any c, so "
    "also c = -max z); the stable form with an explicit Max is also checked for n = 2, 3, 4"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    n = symbols("n", integer=True, positive=True)
    i, k = symbols("i k", integer=True, positive=True)
    c = symbols("c", real=True)
    z = IndexedBase("z", real=True)

    def softmax(shift):
        return exp(z[i] + shift) / Sum(exp(z[k] + shift), (k, 1, n))

    shifted = softmax(c)
    d.note("softmax of the shifted scores z + c: p_i(z + c) =", shifted)
    expanded = expand(shifted)
    pulled = expanded.replace(lambda e: isinstance(e, Sum), factor_sum)
    d.note("exp(z_k + c) = exp(c) exp(z_k); exp(c) does not depend on k: it comes out of the sum "
        "and cancels against exp(c) in the numerator", pulled)
    d.equal(
        "exp(c) cancels: p_i(z + c) = p_i(z)",
        pulled,
        softmax(0),
        show=Eq(shifted, softmax(0), evaluate=False),
    )

    for size in (2, 3, 4):
        zs = symbols(f"z1:{size + 1}", real=True)
        top = Max(*zs)
        plain = Matrix([exp(v) / sum(exp(w) for w in zs) for v in zs])
        stable = Matrix([exp(v - top) / sum(exp(w - top) for w in zs) for v in zs])
        d.equal(
            f"n = {size}: softmax(z - max(z)) equals softmax(z) exactly, Max kept symbolic",
            stable,
            plain,
            show=False,
        )
    return d.qed()


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
