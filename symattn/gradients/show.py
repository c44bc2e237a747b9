"""How a gradient shows itself: as a Tensor does, certified digits in a grid labelled with
``wrt``'s rows and columns (:func:`symattn.display.grid`), never its closed form (which
can run to megabytes: ``Gradient.exact()`` gives it when asked)."""

from __future__ import annotations

from .. import display
from ..errors import SymattnError


def header(g, digits: int) -> str:
    name = getattr(g.wrt, "name", None)
    of = f" ∂L/∂{name}" if name else ""
    return f"Gradient{of} {g.shape[0]}×{g.shape[1]}, {digits} significant digits (certified)"


def text(g, values: list | None = None, digits: int = display.DIGITS) -> str:
    """The gradient's grid (``values``: its digits if already computed)."""
    m, n = g.shape
    try:
        values = g.evaluate(digits) if values is None else values
    except SymattnError as e:
        return header(g, digits).split(",")[0] + f", value not shown: {e.message}"
    rows, cols = display.shown(m), display.shown(n)
    cells = {(i, j): values[i][j] for i in rows if i is not None for j in cols if j is not None}
    return header(g, digits) + ":\n" + display.grid(
        rows, cols, cells, (lambda i: str(g.rows[i])) if g.rows else None,
        (lambda j: str(g.cols[j])) if g.cols else None)


class Digits(list):
    """``grad(..., digits=N)``: rows of decimal strings (a list, as before, equal to plain
    lists) that print as a labelled grid."""

    def __init__(self, rows: list, gradient, digits: int):
        super().__init__(rows)
        self.gradient, self.digits = gradient, digits

    def __repr__(self) -> str:
        return text(self.gradient, [list(r) for r in self], self.digits)

    __str__ = __repr__
