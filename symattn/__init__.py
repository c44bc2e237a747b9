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
from .tensor import Tensor, NEG_INF
from .ops import *  # noqa: F401,F403  (the operations are the public API)
from .evaluation import evaluate, compare, exact_value, float_value


def __getattr__(name):
    # the gradient machinery loads only when used, so `symattn --help` stays fast
    if name in ("grad", "gradient", "Gradient"):
        from . import gradients
        return getattr(gradients, name)
    raise AttributeError(f"module 'symattn' has no attribute {name!r}")

__version__ = "0.1.0"


def matrix(entries, rows=None, cols=None, name: str | None = None) -> Tensor:
    """An exact matrix from nested lists of decimal strings, ints, Fractions or SymPy
    numbers and symbols. A flat list is one row (1×n); a scalar is 1×1.

    Binary floats are refused (pass ``"0.1"``, not ``0.1``). ``rows``/``cols`` label the
    rows and columns (token labels such as ``"love"`` or ``"猫"``).
    """
    from .ops.primitives import const
    return const(entries, rows, cols, name=name)


def symbols(name: str, m: int, n: int | None = None) -> Tensor:
    """An m×n matrix of SymPy symbols ``name_ij`` (1-based, as the articles write w_ij);
    ``symbols("t", 1)`` is one symbol ``t``."""
    import sympy
    if n is None and m == 1:
        return const([[sympy.Symbol(name, real=True)]], name=name)
    n = m if n is None else n
    return const([[sympy.Symbol(f"{name}_{i + 1}{j + 1}", real=True) for j in range(n)]
                  for i in range(m)], name=name)
