"""Evaluation of the one definition: exactly (SymPy), to certified digits (Arb balls), in
floating point (NumPy); :func:`~symattn.oracle.compare` (the float oracle) lives in :mod:`symattn.oracle`.

>>> import symattn
>>> w = symattn.softmax(symattn.matrix([["0", "1/2"]]))
>>> symattn.evaluate(w, digits=20)
[['0.37754066879814543536', '0.62245933120185456464']]
"""

from __future__ import annotations

from ..errors import LimitError, InputError
from ..tensor import Tensor, provide
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


provide(exact=exact_value, numpy=float_value)
