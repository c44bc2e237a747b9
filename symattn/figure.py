"""The Figure symattn's pictures are drawn on: a matplotlib Figure that Jupyter shows by
itself (as SVG, text kept as text), with no ``%matplotlib inline`` and no pyplot.

Imported only when a picture is drawn (it imports matplotlib).
"""

from __future__ import annotations

from matplotlib.figure import Figure


class ShownFigure(Figure):
    """A Figure with IPython's ``_repr_svg_``: the last value of a cell displays."""

    def _repr_svg_(self) -> str:
        from .plot import svg_text
        return svg_text(self)
