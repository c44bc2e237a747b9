"""Evaluation of the one definition: exactly (SymPy), to certified digits (Arb balls), in
floating point (NumPy), and the comparison of the float path with the exact values.

>>> import symattn
>>> w = symattn.softmax(symattn.matrix([["0", "1/2"]]))
>>> symattn.evaluate(w, digits=20)
[['0.37754066879814543536', '0.62245933120185456464']]
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import LimitError, InputError
from ..tensor import Tensor, NEG_INF
from .evaluator import Evaluator
from .rounding import check_mode

MAX_DIGITS = 100_000
MAX_CLOSED_FORM = 50_000      # estimated tree size of one entry (about 100 kB of LaTeX)


def exact_value(t: Tensor, max_size: int | None = MAX_CLOSED_FORM):
    """The exact value as a ``sympy.ImmutableMatrix`` (−∞ as ``-oo``).

    A closed form that would blow up (its estimated size above ``max_size``) is refused
    with a LimitError pointing at certified digits; ``max_size=None`` goes past on purpose.
    """
    from .exact import to_sympy_matrix
    from .size import closed_form_size
    if max_size is not None:
        n = closed_form_size(t)
        if n > max_size:
            raise LimitError(f"the closed form would have about {n:,} terms per entry "
                             f"(limit {max_size:,})",
                             hint="ask for certified digits instead (evaluate(..., digits=N), "
                                  "--digits N), or pass max_size=None on purpose")
    return to_sympy_matrix(Evaluator().exact(t))


def float_value(t: Tensor, dtype: str = "float64"):
    """The value computed by the NumPy float path."""
    return Evaluator().float(t, dtype)


def evaluate(t: Tensor, digits: int | None = 15, *, exact: bool = False, dtype: str | None = None,
             mode: str = "half-even", max_size: int | None = MAX_CLOSED_FORM):
    """Evaluate ``t`` from its one definition.

    - ``digits=N``: nested lists of decimal strings, each correctly rounded to N
      significant digits (certified by ball arithmetic; exact ties from the exact value);
    - ``exact=True``: the closed form, a ``sympy.ImmutableMatrix``;
    - ``dtype="float64"`` or ``"float32"``: the NumPy float path.
    """
    if exact:
        return exact_value(t, max_size)
    if dtype is not None:
        return float_value(t, dtype)
    if not isinstance(digits, int) or isinstance(digits, bool) or digits < 1:
        raise InputError(f"digits={digits!r}: give a positive whole number")
    if digits > MAX_DIGITS:
        raise LimitError(f"digits={digits} is more than {MAX_DIGITS}",
                         hint="raise symattn.evaluation.MAX_DIGITS on purpose")
    check_mode(mode)
    rows = Evaluator().rounded_matrix(t, digits=digits, mode=mode)
    return [["-inf" if r is None else str(r) for r in row] for row in rows]


@dataclass(frozen=True)
class Comparison:
    """The float path against certified values: per entry, absolute and relative error."""
    dtype: str
    float_values: object       # numpy array
    reference: list            # decimal strings, certified
    abs_err: object            # numpy float64 array
    rel_err: object

    def max_abs_err(self) -> float:
        return float(self.abs_err.max())

    def max_rel_err(self) -> float:
        return float(self.rel_err.max())


def compare(t: Tensor, dtype: str = "float64", digits: int = 30) -> Comparison:
    """Each entry's absolute and relative error of the ``dtype`` path against the exact value.

    The errors are computed in ball arithmetic from the float results (exact binary
    values) and the certified reference, so they are themselves right to many digits.
    """
    import numpy as np
    from fractions import Fraction
    from .ball import precision, fraction_to_arb
    from .evaluator import ball_bounds, start_precision
    ev = Evaluator()
    f = ev.float(t, dtype)
    prec = start_precision(digits=digits)
    ref = ev.ball(t, prec)
    m, n = t.shape
    abs_err = np.zeros((m, n))
    rel_err = np.zeros((m, n))
    with precision(prec):
        for i in range(m):
            for j in range(n):
                x, fx = ref[i][j], float(f[i, j])
                if x is NEG_INF:
                    continue
                err = fraction_to_arb(Fraction(fx)) - x
                lo, hi = ball_bounds(abs(err))
                abs_err[i, j] = float(hi)
                if not x.is_zero():
                    xl, xh = ball_bounds(abs(x))
                    rel_err[i, j] = float(hi / xl) if xl > 0 else float("inf")
    strings = [["-inf" if r is None else str(r) for r in row]
               for row in ev.rounded_matrix(t, digits=digits, mode="half-even")]
    return Comparison(dtype, f, strings, abs_err, rel_err)
