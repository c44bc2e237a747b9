"""The engine's operations evaluated exactly on SymPy symbols: what the proofs are about.

A proof states an identity about an operation symattn ships (``symattn.softmax``,
``symattn.layer_norm``, ...). Its general derivation (every n) uses the operation's
textbook definition; these helpers build the same operation from the engine's own graph
(``symattn.matrix`` of SymPy symbols, evaluated by the exact context) so that a proof can
check, for concrete sizes, that the engine computes that definition and that the identity
holds of the engine's values themselves. The operations are looked up on ``symattn`` when
called, so a proof follows whatever the engine ships.
"""

from __future__ import annotations

import sys
from pathlib import Path

import sympy

try:
    import symattn
except ModuleNotFoundError:  # run as a script from a source checkout: proofs/ is beside symattn/
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import symattn

__all__ = ["check_loss", "engine", "symbol_matrix", "tensor", "value"]

engine = symattn


def symbol_matrix(name: str, rows: int, cols: int, **assumptions) -> sympy.Matrix:
    """A rows x cols matrix of SymPy symbols ``name_ij`` (1-based); real unless told otherwise."""
    assumptions.setdefault("real", True)
    return sympy.Matrix(rows, cols, lambda i, j: sympy.Symbol(f"{name}_{i + 1}{j + 1}",
                                                               **assumptions))


def tensor(entries) -> "symattn.Tensor":
    """The engine's exact constant holding ``entries`` (a SymPy matrix, or nested lists of
    SymPy expressions, numbers and ``symattn.NEG_INF``)."""
    if isinstance(entries, sympy.MatrixBase):
        entries = entries.tolist()
    return symattn.matrix(entries)


def value(t) -> sympy.Matrix:
    """The engine's exact value of ``t`` (no closed-form size limit), ``-oo`` for a mask."""
    return sympy.Matrix(t.exact(max_size=None))


def check_loss(d, where: str, loss, z, statement: str, definition, gradient_text: str,
               gradient) -> None:
    """Three checks on derivation ``d`` of a 1x1 ``loss`` the engine built from ``z`` (a
    row of symbols): its value is ``definition`` (``statement`` says so), and SymPy's
    gradient of that value and ``symattn.grad``'s are both ``gradient`` (a 1 x n matrix)."""
    zs, loss_value = value(z), value(loss)[0]
    d.equal(f"engine, {where}: {statement}", loss_value, definition, show=False)
    d.equal(
        f"engine, {where}: SymPy's gradient of it is {gradient_text}",
        sympy.Matrix([[sympy.diff(loss_value, v) for v in zs]]),
        gradient,
        show=False,
    )
    d.equal(
        f"engine, {where}: symattn.grad gives the same {gradient_text}",
        sympy.Matrix(symattn.grad(loss, z)),
        gradient,
        show=False,
    )
