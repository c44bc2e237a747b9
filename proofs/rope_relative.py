"""RoPE: the rotated q_m · k_n depends on the positions only through m - n."""

from sympy import Eq, Matrix, Rational, Symbol, cos, diff, expand, expand_trig, sin, symbols

try:
    from ._common import Derivation, print_derivation
    from ._engine import engine, tensor, value
except ImportError:  # run as a plain script
    from _common import Derivation, print_derivation
    from _engine import engine, tensor, value

NAME = "rope-relative-position"
STATEMENT = (
    "with RoPE rotating pair k of the row at position m by the angle m theta_k, "
    "theta_k = base^(-2k/d): rope(q at m) . rope(k at n) = Sum_k (q_a k_a + q_b k_b) "
    "cos((m - n) theta_k) + (q_a k_b - q_b k_a) sin((m - n) theta_k), a function of m - n "
    "only, in both layouts (pairs (2k, 2k+1) and halves (k, k + d/2))"
)
GENERAL = False
SCOPE = (
    "pair by pair for every frequency omega (R(m omega)^T R(n omega) = R((n - m) omega)); "
    "the engine's symattn.rope itself for d = 2, 4, 6 in both layouts, with symbolic q, k, "
    "positions m, n and base b > 0, so its frequencies 1, b^(-1/2), b^(-1/3), b^(-2/3) "
    "are any positive numbers"
)
WIDTHS = (2, 4, 6)


def engine_dot(d: int, layout: str, m, n, base):
    """rope(q at position m) . rope(k at position n) from the engine, q and k 1 x d symbols."""
    b = tensor([[base]])
    q, k = engine.symbols("q", 1, d), engine.symbols("k", 1, d)
    qm = engine.rope(q, base=b, layout=layout, positions=tensor([[m]]))
    kn = engine.rope(k, base=b, layout=layout, positions=tensor([[n]]))
    return value(qm @ kn.T)[0], value(q), value(k)


def _trig_expand(e):
    """Angle sums written out (sin((a + b) x) as products), then multiplied out."""
    return expand(expand_trig(expand(e)))


def derive() -> Derivation:
    d = Derivation(NAME, STATEMENT, GENERAL, SCOPE)
    m, n, t, w = symbols("m n t omega", real=True)

    def rotation(a):
        return Matrix([[cos(a), -sin(a)], [sin(a), cos(a)]])

    d.note("one pair (a, b) at position m is rotated: R(m omega) [a, b]", rotation(m * w))
    d.equal("R(m omega)^T R(n omega) = R((n - m) omega): the pair's dot product sees n - m",
            expand_trig(rotation(m * w).T * rotation(n * w)),
            expand_trig(rotation((n - m) * w)), show=Eq(rotation(m * w).T * rotation(n * w),
                                                         rotation((n - m) * w), evaluate=False))

    base = Symbol("b", positive=True)
    for width in WIDTHS:
        for layout in ("pairs", "halves"):
            dot, q, k = engine_dot(width, layout, m, n, base)
            d.zero(f"d = {width}, layout {layout!r}: the engine's q_m . k_n at m = n + t does "
                   "not change with n", expand_trig(diff(dot.subs(m, n + t), n)),
                   method=_trig_expand, show=False)
            half = width // 2
            pairs = ([(2 * j, 2 * j + 1) for j in range(half)] if layout == "pairs"
                     else [(j, j + half) for j in range(half)])
            theta = [base ** Rational(-2 * j, width) for j in range(half)]
            formula = sum(((q[a] * k[a] + q[c] * k[c]) * cos((m - n) * theta[j])
                           + (q[a] * k[c] - q[c] * k[a]) * sin((m - n) * theta[j]))
                          for j, (a, c) in enumerate(pairs))
            d.equal(f"d = {width}, layout {layout!r}: the engine's q_m . k_n is the sum over "
                    "pairs of the statement",
                    dot, formula, method=_trig_expand, show=False)
    return d.qed()


def main() -> None:
    print_derivation(derive())


if __name__ == "__main__":
    main()
