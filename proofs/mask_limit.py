"""Masking with -oo: masked weights -> 0, the rest -> softmax of the unmasked scores."""

from sympy import Eq, IndexedBase, Matrix, Sum, exp, limit, oo, simplify, symbols

try:
    from ._common import Derivation, print_derivation
    from ._engine import engine, symbol_matrix, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation
    from _engine import engine, symbol_matrix, tensor, value

NAME = "mask-limit"
STATEMENT = (
    "adding t -> -oo to the masked scores sends each masked weight to 0 and each unmasked "
    "weight to the softmax of the unmasked scores alone"
)
GENERAL = True
SCOPE = (
    "for every n and every set of masked positions with at least one unmasked one: the "
    "softmax denominator is exp(t) A + R with A = Sum over masked m of exp(s_m) > 0 and "
    "R = Sum over unmasked k of exp(s_k) > 0, neither depending on t; SymPy takes the "
    "limits t -> -oo with A, R positive symbols; on the engine, for n = 2, 3 and every mask "
    "pattern (symbolic scores), the limit of symattn.softmax(s + t on the masked "
    "positions) is symattn.softmax(s + the -oo mask), and symattn.causal_mask(n) is 0 on "
    "and below the diagonal, -oo above, for n = 1..5"
)


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    t = symbols("t", real=True)
    s_m, s_i = symbols("s_m s_i", real=True)
    A, R = symbols("A R", positive=True)
    r = symbols("r", integer=True, positive=True)
    i, k = symbols("i k", integer=True, positive=True)
    s = IndexedBase("s", real=True)

    d.note(
        "order the scores so that positions 1..r are unmasked and r+1..n masked; the mask "
        "adds t to every masked score, so the denominator is exp(t) A + R with",
        Eq(R, Sum(exp(s[k]), (k, 1, r)), evaluate=False),
    )
    masked = exp(s_m + t) / (exp(t) * A + R)
    unmasked = exp(s_i) / (exp(t) * A + R)
    d.note("a masked weight (s_m one of the masked scores)", masked)
    d.note("an unmasked weight (s_i one of the unmasked scores)", unmasked)
    d.limit("as t -> -oo a masked weight tends to 0", masked, t, -oo, 0)
    d.limit("as t -> -oo an unmasked weight tends to exp(s_i)/R", unmasked, t, -oo, exp(s_i) / R)
    d.note(
        "with s_i = s[i] (1 <= i <= r) this is the softmax of the r unmasked scores alone",
        Eq(exp(s_i) / R, exp(s[i]) / Sum(exp(s[k]), (k, 1, r)), evaluate=False),
    )
    for size in (2, 3):
        scores = symbol_matrix("s", 1, size)
        for pattern in range(1, 2**size - 1):  # masked positions: the bits of pattern
            masked = [pattern >> k & 1 for k in range(size)]
            shifted = value(engine.softmax(tensor(scores) + tensor([[t * m for m in masked]])))
            neg_inf = engine.matrix([[engine.NEG_INF if m else 0 for m in masked]])
            limits = shifted.applyfunc(lambda w: limit(w, t, -oo))
            d.equal(
                f"engine, n = {size}, masked positions {[k + 1 for k in range(size) if masked[k]]}: "
                "lim_(t -> -oo) symattn.softmax(s + t mask) = symattn.softmax(s + the -oo mask)",
                limits,
                value(engine.softmax(tensor(scores) + neg_inf)),
                show=False,
            )
    for size in range(1, 6):
        d.true(
            f"engine, n = {size}: symattn.causal_mask(n) is 0 for key <= query, -oo for key > query",
            Eq(value(engine.causal_mask(size)), Matrix(size, size, lambda a, b: -oo if b > a else 0)),
            show=False,
        )
    # a fully masked row: the mask is a common shift and changes nothing
    fully = exp(s_m + t) / (exp(t) * A)
    d.equal(
        "if every position is masked (R = 0) the mask is a common shift: the weight stays "
        "exp(s_m)/A for every t (a float -inf gives nan instead)",
        simplify(fully),
        exp(s_m) / A,
        show=Eq(fully, exp(s_m) / A, evaluate=False),
    )
    return d.qed()


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
