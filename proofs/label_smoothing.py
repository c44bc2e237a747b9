"""Label smoothing: the loss -Sum_k q_k log p_k and its gradient p - q."""

from sympy import Eq, IndexedBase, KroneckerDelta, Matrix, Sum, diff, exp, log, symbols
from sympy.simplify.simplify import factor_sum

try:
    from ._common import Derivation, in_range, print_derivation
    from ._engine import check_loss, engine, symbol_matrix, tensor
except ImportError:  # run as a plain script
    from _common import Derivation, in_range, print_derivation
    from _engine import check_loss, engine, symbol_matrix, tensor

NAME = "label-smoothing"
STATEMENT = (
    "with q_k = (1 - eps) delta_ky + eps/n: L = -Sum_k q_k log p_k = (1 - eps)(-log p_y) "
    "+ eps * mean_k(-log p_k), and dL/dz_j = p_j - q_j"
)
GENERAL = True
SCOPE = (
    "for every n, target y and eps, with z and q IndexedBases and Sums over k = 1..n; the "
    "gradient p - q is first derived for an arbitrary target distribution q (Sum_k q_k = 1), "
    "so it also covers the eps/(n - 1)-on-the-other-classes convention; on the engine, for "
    "n = 2, 3, each y and symbolic z, eps: symattn.label_smoothing_loss(z, y, eps) is "
    "-Sum_k q_k log p_k, and SymPy's gradient of it and symattn.grad's are p - q"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    n = symbols("n", integer=True, positive=True)
    j, k, l, y = symbols("j k l y", integer=True, positive=True)
    eps = symbols("epsilon", nonnegative=True)
    z = IndexedBase("z", real=True)
    target = IndexedBase("q", nonnegative=True)
    denominator = Sum(exp(z[l]), (l, 1, n))

    def p(a):
        return exp(z[a]) / denominator

    # 1. an arbitrary target distribution q
    general_loss = -Sum(target[k] * log(p(k)), (k, 1, n))
    d.note("loss against a target distribution q (q_k >= 0, Sum_k q_k = 1): L =", general_loss)
    raw = in_range(diff(general_loss, z[j]).doit(), n, j)
    d.note("differentiate with respect to z_j and evaluate the Kronecker sums", raw)
    raw = raw.replace(lambda e: isinstance(e, Sum), factor_sum)
    d.note("take the factors that do not depend on k out of the sum", raw)
    mass = Sum(target[k], (k, 1, n))
    reduced = raw.subs(mass, 1)
    d.note("use Sum_k q_k = 1", reduced)
    d.equal("for any target distribution, dL/dz_j = p_j - q_j", reduced, p(j) - target[j])

    # 2. the smoothed one-hot target
    def q(a):
        return (1 - eps) * KroneckerDelta(a, y) + eps / n

    d.note("label smoothing: q_k =", q(k))
    d.equal(
        "q is a distribution: Sum_k q_k = 1 (for 1 <= y <= n)",
        in_range(Sum(q(k), (k, 1, n)).doit(), n, y),
        1,
        show=Eq(Sum(q(k), (k, 1, n)), 1, evaluate=False),
    )
    loss = -Sum(q(k) * log(p(k)), (k, 1, n))
    d.note("smoothed loss: L =", loss)
    expanded = in_range(Sum((q(k) * log(p(k))).expand(), (k, 1, n)).doit(), n, y)
    split = (1 - eps) * (-log(p(y))) + eps * Sum(-log(p(k)), (k, 1, n)) / n
    d.equal(
        "L = (1 - eps)(-log p_y) + eps * (1/n) Sum_k (-log p_k)",
        -expanded,
        split,
        show=Eq(loss, split, evaluate=False),
    )
    gradient = in_range(diff(loss, z[j]).doit(), n, j, y)
    d.note("differentiate the smoothed loss with respect to z_j directly", gradient)
    d.equal("dL/dz_j = p_j - q_j = p_j - (1 - eps) delta_jy - eps/n", gradient, p(j) - q(j))

    on_the_engine(d, eps)
    return d.qed()


def on_the_engine(d: Derivation, eps) -> None:
    """The engine's symattn.label_smoothing_loss: its value, SymPy's gradient and symattn.grad's."""
    for size in (2, 3):
        zs = symbol_matrix("z", 1, size)
        z_engine = tensor(zs)
        probs = zs.applyfunc(lambda v: exp(v) / sum(exp(w) for w in zs))
        for label in range(size):
            smooth = Matrix([[(1 - eps) * (1 if c == label else 0) + eps / size
                              for c in range(size)]])
            check_loss(
                d,
                f"n = {size}, y = {label + 1}",
                engine.label_smoothing_loss(z_engine, label, eps),
                z_engine,
                "symattn.label_smoothing_loss(z, y, eps) is -Sum_k q_k log p_k",
                -sum(smooth[c] * log(probs[c]) for c in range(size)),
                "p - q",
                probs - smooth,
            )


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
