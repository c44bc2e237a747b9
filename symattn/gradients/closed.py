"""Closed forms of gradients: their size written out, tidying, exact rationality."""

from __future__ import annotations

from fractions import Fraction

from ..errors import LimitError
from ..tensor import Tensor, walk

MAX_CLOSED_FORM = 50_000           # nodes of one entry written out (about 100 kB of LaTeX)


def estimated_size(t: Tensor) -> int:
    """The engine's estimate of the largest entry of ``t``'s closed form (0 if unknown)."""
    try:
        from ..evaluation.size import closed_form_size
    except ImportError:
        return 0
    return closed_form_size(t)


def too_large(n: int, limit: int, what: str) -> LimitError:
    return LimitError(f"{what} would have about {n:,} nodes per entry written out "
                      f"(limit {limit:,})",
                      hint="ask for certified digits instead (digits=N, --digits N), or pass "
                           "max_size=None on purpose and do not print it")


TIDY_LIMIT = 4000          # tree size up to which exact entries are tidied
ZERO_TEST_LIMIT = 20000    # tree size up to which an undecided entry is tested for exactness


def tidy_expr(v):
    """``v`` as one tidy fraction (SymPy's ``together`` and ``factor_terms``) when it is
    small enough for that to be cheap and the result is not much larger; else ``v``.

    (``simplify``/``cancel`` are avoided on purpose: on these sums of exponentials they
    can take minutes, and with python-flint's ground types their gcd can crash.)
    """
    import sympy
    n = tree_size(v)
    if n > TIDY_LIMIT:
        return v
    try:
        w = sympy.factor_terms(sympy.together(v))
    except Exception:                   # noqa: BLE001 - tidying is optional
        return v
    return w if tree_size(w) <= 2 * n else v


def exact_rational(v) -> Fraction | None:
    """The value of ``v`` as a Fraction when it is provably rational (0 included), by
    bringing it to one fraction and expanding the numerator; None when that does not show
    it (or ``v`` is too large to try)."""
    import sympy
    if v.is_Rational:
        return Fraction(int(v.p), int(v.q))
    if tree_size(v) > ZERO_TEST_LIMIT:
        return None
    try:
        num, den = sympy.fraction(sympy.together(v))
        num = sympy.expand(num)
        if num == 0:
            return Fraction(0)
        den = sympy.expand(den)
        w = num / den
    except Exception:                   # noqa: BLE001 - an undecided entry stays pending
        return None
    return Fraction(int(w.p), int(w.q)) if w.is_Rational else None


def to_matrix(G, zero):
    import sympy
    return sympy.ImmutableMatrix([[zero if v is None else v for v in row] for row in G])


def tree_size(expr) -> int:
    """The number of nodes of ``expr`` written out as a tree (what printing it costs),
    counted in time linear in its shared graph (reverse mode shares subexpressions, so the
    written-out form can be exponentially larger than the object in memory)."""
    memo: dict[int, int] = {}
    for e in walk(expr):                   # each subexpression after its arguments
        memo[id(e)] = 1 + sum(memo[id(a)] for a in e.args)
    return memo[id(expr)]
