"""Cross-entropy gradient: d(-log p_y)/dz_j = p_j - [j = y]."""

from sympy import IndexedBase, KroneckerDelta, Matrix, Sum, diff, exp, log, symbols

try:
    from ._common import Derivation, in_range, print_derivation
    from ._engine import check_loss, engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, in_range, print_derivation
    from _engine import check_loss, engine, symbol_matrix, tensor, value

NAME = "cross-entropy-gradient"
STATEMENT = "L = -log softmax(z)_y has dL/dz_j = p_j - delta_jy, i.e. grad = p - onehot(y)"
GENERAL = True
SCOPE = (
    "for every n and every target y, by symbolic differentiation with z an IndexedBase and "
    "Sum_{l=1}^{n}; on the engine, for n = 2, 3, 4, each y and symbolic z: "
    "symattn.cross_entropy(z, y) is -log softmax(z)_y, SymPy's gradient of it is "
    "symattn.softmax(z) - onehot(y), and so is symattn.grad's"
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

    for size in (2, 3, 4):
        zs = symbol_matrix("z", 1, size)
        z_engine = tensor(zs)
        total = sum(exp(v) for v in zs)
        probs = value(engine.softmax(z_engine))
        for target in range(size):
            onehot = Matrix([[1 if r == target else 0 for r in range(size)]])
            check_loss(
                d,
                f"n = {size}, y = {target + 1}",
                engine.cross_entropy(z_engine, target),
                z_engine,
                "symattn.cross_entropy(z, y) is -log(exp(z_y)/Sum_l exp(z_l))",
                -log(exp(zs[target]) / total),
                "symattn.softmax(z) - onehot(y)",
                probs - onehot,
            )
    return d.qed()


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
