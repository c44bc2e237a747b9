"""softmax(z + c) = softmax(z): the max-subtracted form is the same function."""

from sympy import Eq, IndexedBase, Matrix, Max, Sum, exp, expand, symbols
from sympy.simplify.simplify import factor_sum

try:
    from ._common import Derivation, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "softmax-shift"
STATEMENT = (
    "softmax(z + c)_i = softmax(z)_i for every constant c; with c = -max_k z_k this is the "
    "numerically stable form, whose exponents are all <= 0"
)
GENERAL = True
SCOPE = (
    "for every n, with z an IndexedBase, Sum_{k=1}^{n} and a symbolic shift c (any c, so "
    "also c = -max z); for n = 2, 3, 4 and symbolic z, c the engine's symattn.softmax is "
    "that definition and gives softmax(z + c) = softmax(z) and softmax(z - max z) = "
    "softmax(z) with an explicit Max"
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
        zs = symbol_matrix("z", 1, size)
        plain = value(engine.softmax(tensor(zs)))
        d.equal(
            f"engine, n = {size}: symattn.softmax(z) is exp(z_i)/Sum_k exp(z_k)",
            plain,
            Matrix([[exp(v) / sum(exp(w) for w in zs) for v in zs]]),
            show=False,
        )
        d.equal(
            f"engine, n = {size}: symattn.softmax(z + c) = symattn.softmax(z), c a symbol",
            value(engine.softmax(tensor(zs) + tensor([[c]]))),
            plain,
            show=False,
        )
        d.equal(
            f"engine, n = {size}: symattn.softmax(z - max(z)) = symattn.softmax(z), Max kept "
            "symbolic",
            value(engine.softmax(tensor(zs) - tensor([[Max(*zs)]]))),
            plain,
            show=False,
        )
    return d.qed()


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
