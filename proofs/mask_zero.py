"""A 0 "mask" masks nothing: the weight stays exp(s_m)/Sum_k exp(s_k) != 0."""

from sympy import E, Eq, IndexedBase, Integer, Matrix, Sum, exp, limit, oo, symbols

try:
    from ._common import Derivation, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "mask-zero"
STATEMENT = (
    "using 0 instead of -oo as the mask value leaves a masked position the weight "
    "exp(s_m)/Sum_k exp(s_k) > 0 (exp(0)/Sum for a zero score), not 0"
)
GENERAL = True
SCOPE = (
    "for every n: with R = Sum over the other positions of exp(s_k) >= exp(s_j) > 0 (a "
    "positive symbol) the weight exp(s_m)/(exp(s_m) + R) is proven positive by SymPy's "
    "assumptions; on the engine: symattn.causal_mask(n, fill=0) (the 0-mask mistake) "
    "leaves symattn.softmax unchanged for n = 2, 3, 4 and symbolic scores, and the worked "
    "case scores [0, 1, 2] is computed exactly by symattn.softmax"
)


def additive_mask_weights(scores, mask_values):
    """The engine's exact ``symattn.softmax(scores + mask_values)`` of one row (SymPy
    numbers and symbols, no floats)."""
    if len(scores) != len(mask_values):
        raise ValueError("one mask value per score")
    return list(value(engine.softmax(tensor([list(scores)]) + tensor([list(mask_values)]))))


def zero_mask_weight(scores, masked_index):
    """The weight a masked position keeps when the mask value is 0 instead of -oo."""
    weights = additive_mask_weights(scores, [0] * len(scores))
    return weights[masked_index]


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    s_m = symbols("s_m", real=True)
    R = symbols("R", positive=True)
    n = symbols("n", integer=True, positive=True)
    k, m = symbols("k m", integer=True, positive=True)
    s = IndexedBase("s", real=True)

    weight = exp(s_m + 0) / (exp(s_m + 0) + R)
    d.note(
        "adding the 'mask' 0 to s_m changes no score; with R the sum of exp over the other "
        "n - 1 >= 1 positions the masked weight is",
        weight,
    )
    d.equal(
        "it is exactly the unmasked softmax weight of position m (s_m = s[m], 1 <= m <= n)",
        weight,
        exp(s_m) / (exp(s_m) + R),
        show=Eq(weight, exp(s[m]) / Sum(exp(s[k]), (k, 1, n)), evaluate=False),
    )
    d.positive("and it is strictly positive for every real s_m, i.e. never 0", weight)
    zero_score = weight.subs(s_m, 0)
    d.equal(
        "a masked position with score 0 keeps e^0/Sum = 1/(1 + R)",
        zero_score,
        1 / (1 + R),
    )
    d.positive("which is > 0", zero_score)

    on_the_engine(d)

    scores = [Integer(0), Integer(1), Integer(2)]
    got = zero_mask_weight(scores, 0)
    d.equal(
        "worked case on the engine: scores [0, 1, 2], position 1 'masked' with 0: "
        "symattn.softmax gives it 1/(1 + e + e^2)",
        got,
        1 / (1 + E + E**2),
    )
    d.positive("which is not 0", got)
    t = symbols("t", real=True)
    zero_masked = additive_mask_weights(scores, [0, 0, 0])
    limits = [limit(w, t, -oo) for w in additive_mask_weights(scores, [t, 0, 0])]
    d.equal(
        "the -oo mask (the limit t -> -oo of adding t) gives weights [0, 1/(1 + e), e/(1 + e)]",
        Matrix([limits]),
        Matrix([[0, 1 / (1 + E), E / (1 + E)]]),
    )
    d.equal(
        "engine: symattn.softmax([0, 1, 2] + [-oo, 0, 0]) is that limit",
        value(engine.softmax(tensor([scores]) + engine.matrix([[engine.NEG_INF, 0, 0]]))),
        Matrix([limits]),
        show=False,
    )
    d.positive(
        "with the 0 mask position 2 gets less than it should: "
        "1/(1 + e) - e/(1 + e + e^2) = 1/((1 + e)(1 + e + e^2)) > 0",
        limits[1] - zero_masked[1],
    )
    return d.qed()


def on_the_engine(d: Derivation) -> None:
    """The engine's symattn.causal_mask(n, fill=0) masks nothing."""
    for size in (2, 3, 4):
        rows = symbol_matrix("s", size, size)
        d.equal(
            f"engine, n = {size}: symattn.softmax(S + causal_mask(n, fill=0)) = "
            "symattn.softmax(S): a 0 mask masks nothing",
            value(engine.softmax(tensor(rows) + engine.causal_mask(size, fill=0))),
            value(engine.softmax(tensor(rows))),
            show=False,
        )


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
