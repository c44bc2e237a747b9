"""symattn: exact arithmetic for hand-computed Transformer worked examples.

Build a computation from exact inputs; evaluate it exactly, to certified digits, or in
NumPy floats, from the one definition of each operation.

>>> import symattn as sa
>>> X = sa.matrix([["1.0", "0.5"], ["0.8", "1.2"]], rows=["I", "love"])
>>> W_Q = sa.matrix([["1.0", "0.2"], ["0.1", "0.9"]])
>>> (X @ W_Q)["love"].exact()
Matrix([[23/25, 31/25]])
"""

from __future__ import annotations

from .errors import (SymattnError, InputError, ShapeError, MaskError, DomainError, ParseError,
                     SpecError, LimitError, CertificationError)
from .tensor import Tensor, NEG_INF, provide
from .ops import *  # noqa: F401,F403  (the operations are the public API)
from .evaluation import exact_value, float_value
from .interop import from_numpy, from_torch


def _display(name: str):
    """A Tensor's repr, HTML or LaTeX from :mod:`symattn.display`, loaded when first shown."""
    def show(t):
        from . import display
        return getattr(display, name)(t)
    return show


provide(text=_display("text"), html=_display("html_table"), latex=_display("latex"))

def load_ipython_extension(ipython) -> None:
    """``%load_ext symattn`` in IPython or Jupyter: the ``%%symattn`` cell magic
    (:mod:`symattn.jupyter`; IPython itself is not imported by symattn)."""
    from .jupyter import load_ipython_extension as load
    load(ipython)


# The spec language's names for operations Python spells otherwise. They are served by
# __getattr__ so that `from symattn import *` does not shadow the builtins sum, max, abs.
SPEC_NAMES = {"sum": "row_sum", "max": "row_max", "abs": "abs_", "round": "round_"}


def __getattr__(name):
    # the gradient machinery loads only when used, so `symattn --help` stays fast
    if name in ("grad", "gradient", "Gradient"):
        from . import gradients
        return getattr(gradients, name)
    if name == "compare":                   # the float oracle, loaded when used
        from .oracle import compare
        return compare
    if name == "plot":                      # matplotlib loads only when a picture is drawn
        import importlib
        return importlib.import_module(".plot", __name__)
    if name in SPEC_NAMES:
        from . import ops
        return getattr(ops, SPEC_NAMES[name])
    raise AttributeError(f"module 'symattn' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(SPEC_NAMES) | {"grad", "gradient", "Gradient"})

from .about import version as _version

__version__ = _version()


def matrix(entries, rows=None, cols=None, name: str | None = None) -> Tensor:
    """An exact matrix from nested lists of decimal strings, ints, Fractions or SymPy
    numbers and symbols, or from a NumPy array (or PyTorch tensor) of integers or decimal
    strings. A flat list or 1-D array is one row (1×n); a scalar is 1×1.

    Binary floats are refused (pass ``"0.1"``, not ``0.1``; for float arrays see
    :func:`from_numpy`). ``rows``/``cols`` label the rows and columns (token labels such
    as ``"love"`` or ``"猫"``).
    """
    from .interop import is_array, exact_entries
    from .ops.primitives import const
    if is_array(entries):
        entries = exact_entries(entries)
    return const(entries, rows, cols, name=name)


def evaluate(t: Tensor, digits: int | None = None, *, decimals: int | None = None,
             rounding: str | None = None, exact: bool = False, dtype: str | None = None,
             mode: str | None = None, max_size: int | None = 50_000):
    """Evaluate ``t`` from its one definition; entries as decimal strings, certified.

    - ``decimals=N``: N places after the point, rounded ``"half-up"`` unless ``rounding``
      says otherwise: a spec's and the command line's default, the way an article prints;
    - ``digits=N``: N significant digits, rounded ``"half-even"`` unless ``rounding`` says
      otherwise (15 digits when neither is given);
    - ``exact=True``: the closed form, a ``sympy.ImmutableMatrix``;
    - ``dtype="float64"`` or ``"float32"``: the NumPy float path.

    ``rounding`` is ``"half-up"``, ``"half-even"`` or ``"truncate"`` (``mode`` is its old name).

    >>> x = matrix([["1.16045", "0.0565549"]])
    >>> evaluate(x, decimals=4), evaluate(x, digits=4)
    ([['1.1605', '0.0566']], [['1.160', '0.05655']])
    """
    from .evaluation import evaluate as by_digits, MAX_DIGITS
    from .evaluation.evaluator import Evaluator
    from .evaluation.rounding import check_mode
    if rounding is not None and mode is not None and rounding != mode:
        raise InputError(f"rounding={rounding!r} and mode={mode!r}: give one of them")
    rounding = rounding or mode
    if decimals is None or exact or dtype is not None:
        if decimals is not None and digits is not None:
            raise InputError("give digits= (significant) or decimals= (places), not both")
        return by_digits(t, 15 if digits is None else digits, exact=exact, dtype=dtype,
                         mode=rounding or "half-even", max_size=max_size)
    if digits is not None:
        raise InputError("give digits= (significant) or decimals= (places), not both")
    if not isinstance(decimals, int) or isinstance(decimals, bool) or decimals < 0:
        raise InputError(f"decimals={decimals!r}: give a whole number of places, 0 or more")
    if decimals > MAX_DIGITS:
        raise LimitError(f"decimals={decimals} is more than {MAX_DIGITS}",
                         hint="raise symattn.evaluation.MAX_DIGITS on purpose")
    rows = Evaluator().rounded_matrix(t, decimals=decimals, mode=check_mode(rounding or "half-up"))
    return [["-inf" if r is None else str(r) for r in row] for row in rows]



provide(evaluate=evaluate)

def width(x) -> int:
    """The number of columns (the spec language's ``width(x)``)."""
    from .ops.primitives import as_tensor
    return as_tensor(x).shape[1]


def argmax(x, row: int = 0) -> int:
    """The index of the largest entry of a row, decided with certainty (ball arithmetic)."""
    from .evaluation.decide import argmax as decide
    from .ops.primitives import as_tensor
    return decide(as_tensor(x), row=row)


def keep_mask(mask) -> Tensor:
    """1 where a mask keeps a position, 0 where it is −∞ (the spec's ``keep_mask``)."""
    from .ops.primitives import finite
    return finite(mask)


def symbols(name: str, m: int, n: int | None = None) -> Tensor:
    """An m×n matrix of SymPy symbols ``name_ij`` (1-based, as the articles write w_ij);
    ``symbols("t", 1)`` is one symbol ``t``."""
    import sympy
    if n is None and m == 1:
        return const([[sympy.Symbol(name, real=True)]], name=name)
    n = m if n is None else n
    return const([[sympy.Symbol(f"{name}_{i + 1}{j + 1}", real=True) for j in range(n)]
                  for i in range(m)], name=name)
