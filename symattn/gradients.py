"""Exact gradients: differentiate the closed form of a scalar loss."""

from __future__ import annotations

from .errors import ShapeError, InputError
from .tensor import Tensor


def grad(loss: Tensor, wrt):
    """∂loss/∂w for every entry w of ``wrt`` (a matrix of SymPy symbols), exactly.

    ``loss`` must be 1×1. Returns a ``sympy.ImmutableMatrix`` shaped like ``wrt``.

    >>> import symattn as sa
    >>> z = sa.symbols("z", 1, 3)
    >>> g = sa.grad(sa.cross_entropy(z, 0), z)
    >>> import sympy; sympy.simplify(g[0] + g[1] + g[2])
    0
    """
    import sympy
    if loss.shape != (1, 1):
        raise ShapeError(f"the loss is {loss.shape[0]}×{loss.shape[1]}; a gradient needs a "
                         "scalar (1×1) loss", hint="sum or pick one entry")
    L = loss.exact()[0, 0]
    W = wrt.exact() if isinstance(wrt, Tensor) else sympy.ImmutableMatrix(wrt)
    for w in W:
        if not isinstance(w, sympy.Symbol):
            raise InputError(f"'{w}' is not a symbol: differentiate with respect to "
                             "symbols (symattn.symbols)")
    return sympy.ImmutableMatrix(W.shape[0], W.shape[1], [sympy.diff(L, w) for w in W])
