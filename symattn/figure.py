"""The Figure symattn's pictures are drawn on: a matplotlib Figure that Jupyter shows by
itself (as SVG, text kept as text), with no ``%matplotlib inline`` and no pyplot.

Imported only when a picture is drawn (it imports matplotlib).
"""

from __future__ import annotations

import io

from matplotlib.figure import Figure


class ShownFigure(Figure):
    """A Figure with IPython's ``_repr_svg_``: the last value of a cell displays."""

    def _repr_svg_(self) -> str:
        return svg_text(self)


def svg_text(fig, salt: str = "") -> str:
    """The figure as an inline ``<svg>`` element: no XML prolog, no metadata, no links."""
    import warnings
    import matplotlib
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": salt or "symattn", "svg.fonttype": "none"}), \
            warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing")   # text stays text
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None,
                                                  "Format": None, "Type": None})
    text = buf.getvalue()
    return text[text.index("<svg"):].strip()
