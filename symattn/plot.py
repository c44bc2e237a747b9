"""Pictures of a worked example: a heatmap of attention weights, the curve of entries as one
input moves. Drawn with matplotlib (imported only when a picture is asked for), from
certified values; matplotlib only draws them.

>>> import symattn as sa
>>> X = sa.matrix([["1", "0"], ["0", "1"]], rows=["猫", "眠る"])
>>> fig = sa.plot.heatmap(sa.softmax(X @ X.T))          # doctest: +SKIP
>>> svg_text(fig)                                        # doctest: +SKIP

Cell texts are SVG ``<text>`` elements (not paths), grouped as ``<g id="{gid}-cell-i-j">``,
so that the numbers in a picture can be read back by tools and tests.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from fractions import Fraction

from .errors import InputError, LimitError, ShapeError
from .tensor import Tensor

__all__ = ["heatmap", "sweep", "sweep_values", "svg_text", "png_bytes", "Sweep"]

MAX_CELLS = 400            # a heatmap with more cells is unreadable; refuse it
MAX_POINTS = 2001
CURVE_DIGITS = 12          # certified digits per point of a curve (far below a pixel)


def _figure(width: float, height: float):
    from .figure import ShownFigure          # Jupyter shows it without %matplotlib inline
    return ShownFigure(figsize=(width, height), layout="constrained")


def _style():
    """Our fonts for the figure being drawn, without touching the user's rcParams. Every
    text (a token label ``$\\undefined$``, a title) is drawn as written: matplotlib's
    mathtext and TeX are off, so no label is parsed as a formula."""
    import matplotlib
    return matplotlib.rc_context({"font.family": _families(), "text.parse_math": False,
                                  "text.usetex": False})


def _families() -> list[str]:
    """DejaVu Sans, then a CJK font when one is installed (token labels such as 猫)."""
    from matplotlib import font_manager
    have = {f.name for f in font_manager.fontManager.ttflist}
    cjk = [n for n in ("Noto Sans CJK JP", "IPAexGothic", "IPAGothic", "IPAPGothic",
                                       "TakaoGothic") if n in have]
    return ["DejaVu Sans"] + cjk[:1]


def heatmap(A: Tensor, *, decimals: int = 4, mode: str = "half-up", printed: dict | None = None,
            wrong: set | None = None, title: str | None = None, gid: str = "hm", evaluator=None):
    """A heatmap of the m×n matrix ``A`` (rows: queries, columns: keys).

    Each cell shows its value rounded at ``decimals`` (certified); ``printed`` maps
    ``(i, j)`` to the text the article printed there, drawn under the value when it
    differs; cells in ``wrong`` get a red frame. A cell that is exactly 0 (a −∞ mask) is
    hatched and says "masked". Returns a ``matplotlib.figure.Figure``.
    """
    from .evaluation.evaluator import Evaluator
    if not isinstance(A, Tensor):
        raise InputError("heatmap: give a symattn Tensor (e.g. the weights A)")
    m, n = A.shape
    if m * n > MAX_CELLS:
        raise ShapeError(f"heatmap: {m}×{n} is more than {MAX_CELLS} cells",
                         hint="draw a slice, e.g. A[0:8] ")
    ev = evaluator or Evaluator()
    rounded = ev.rounded_matrix(A, decimals=decimals, mode=mode)
    masked = {(i, j) for i in range(m) for j in range(n)
              if rounded[i][j] is None or (rounded[i][j].value == 0 and ev.proven_zero(A, i, j, 64))}
    values = [[0.0 if (i, j) in masked else float(rounded[i][j].value) for j in range(n)]
              for i in range(m)]
    printed, wrong = printed or {}, wrong or set()
    with _style():
        return _draw_heatmap(A, rounded, values, masked, printed, wrong, title, gid)


def _draw_heatmap(A, rounded, values, masked, printed, wrong, title, gid):
    m, n = A.shape
    fig = _figure(1.2 + 0.95 * n, 0.9 + 0.62 * m)
    ax = fig.add_subplot()
    ax.pcolormesh([j - 0.5 for j in range(n + 1)], [i - 0.5 for i in range(m + 1)], values,
                  cmap="Blues", vmin=0, vmax=max(1.0, max(max(r) for r in values)))  # vector
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(m - 0.5, -0.5)                      # the first query on top
    for i in range(m):
        for j in range(n):
            _cell(ax, i, j, rounded[i][j], values[i][j], (i, j) in masked,
                  printed.get((i, j)), (i, j) in wrong, f"{gid}-cell-{i}-{j}")
    ax.set_xticks(range(n), [A.col_label(j) for j in range(n)])
    ax.set_yticks(range(m), [A.row_label(i) for i in range(m)])
    ax.tick_params(length=0)
    ax.xaxis.tick_top()
    if title:
        ax.set_title(title, fontsize=10)
    return fig


def _cell(ax, i, j, r, v, masked, printed, wrong, gid):
    from matplotlib.patches import Rectangle
    if masked:
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///",
                               edgecolor="#999999", linewidth=0))
        text = "masked\n0"
    else:
        text = str(r)
        if printed is not None and printed != text:
            text += f"\nprinted {printed}"
    dark = v > 0.55
    t = ax.text(j, i, text, ha="center", va="center", fontsize=8,
                color="white" if dark else "black")
    t.set_gid(gid)
    if wrong:
        ax.add_patch(Rectangle((j - 0.47, i - 0.47), 0.94, 0.94, fill=False,
                               edgecolor="#c62828", linewidth=2.2))


def svg_text(fig, salt: str = "") -> str:
    """The figure as an inline ``<svg>`` element: no XML prolog, no metadata, no links."""
    from .figure import svg_text as svg
    return svg(fig, salt)


def png_bytes(fig, dpi: int = 110) -> bytes:
    """The figure as PNG bytes."""
    import warnings
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing")   # no CJK font here
        fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


# -- sweep ---------------------------------------------------------------------------------

@dataclass
class Sweep:
    """Certified values of chosen entries as one input moves: ``xs`` (Fractions) and, per
    entry label, ``ys`` (Fractions of the values rounded at ``CURVE_DIGITS`` digits)."""
    xs: list
    ys: dict


def _number(v, what: str) -> Fraction:
    from .numbers import parse_exact
    if isinstance(v, str):
        return parse_exact(v)
    if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
        raise InputError(f"{what}: give a decimal string, an int or a Fraction, not {v!r}")
    return Fraction(v)


def grid(frm, to, points: int) -> list[Fraction]:
    """``points`` exact values from ``frm`` to ``to`` (decimal strings, ints or Fractions)."""
    a, b = _number(frm, "from"), _number(to, "to")
    if not 2 <= points <= MAX_POINTS:
        raise InputError(f"points={points}: give from 2 to {MAX_POINTS}")
    if a == b:
        raise InputError("the range is empty: give two different ends")
    return [a + (b - a) * k / (points - 1) for k in range(points)]


def sweep_values(y: Tensor, x: Tensor, xs, entries, cell=None) -> Sweep:
    """Entries ``entries`` ((i, j) of ``y``) at every value of ``xs``, with the input node
    ``x`` replaced (the whole 1×1 input, or its ``cell`` (r, c))."""
    from .gradients import substitute
    from .evaluation.certified import value_of
    from .evaluation.evaluator import Evaluator
    from .ops.primitives import const
    if cell is None and x.shape != (1, 1):
        raise ShapeError(f"the input varied is {x.shape[0]}×{x.shape[1]}",
                         hint="vary one entry of it, e.g. W_Q[1,0]")
    if cell is not None and x.op != "const":
        raise ShapeError("only an input given by its numbers can have one entry varied")
    base = None if cell is None else x.params["entries"]
    ys = {(i, j): [] for i, j in entries}
    for v in xs:
        if cell is None:
            leaf = const([[v]], x.rows, x.cols)
        else:
            rows = [[base[r][c] for c in range(x.shape[1])] for r in range(x.shape[0])]
            rows[cell[0]][cell[1]] = v
            leaf = const(rows, x.rows, x.cols)
        t = substitute(y, lambda node: node is x, leaf)
        ev = Evaluator()
        for i, j in entries:
            r = ev.rounded(t, i, j, digits=CURVE_DIGITS, mode="half-even")
            ys[(i, j)].append(None if r is None else value_of(r))
    return Sweep(list(xs), ys)


def sweep(y: Tensor, x: Tensor, frm, to, *, points: int = 81, entries=None, cell=None,
          printed=(), xlabel: str | None = None, title: str | None = None):
    """The curve of entries of ``y`` as the input ``x`` (1×1, or its ``cell``) moves from
    ``frm`` to ``to``; ``printed`` is a list of ``(x, value, label)`` drawn as points on it.
    ``entries``: (i, j) pairs of ``y`` (default: every entry, at most 12). Returns a Figure.
    """
    m, n = y.shape
    if entries is None:
        if m * n > 12:
            raise ShapeError(f"{m}×{n} entries is too many curves", hint="choose entries")
        entries = [(i, j) for i in range(m) for j in range(n)]
    data = sweep_values(y, x, grid(frm, to, points), entries, cell)
    with _style():
        return _draw_sweep(y, x, data, printed, xlabel, title)


def _drawn(v: Fraction, t: Tensor, i: int = 0, j: int = 0) -> float:
    """``v`` as the float a picture draws; a value beyond the float range (e^1000) is refused
    in one line, not drawn as infinity."""
    try:
        return float(v)
    except OverflowError:
        import math
        digits = math.floor(math.log10(abs(v.numerator)) - math.log10(v.denominator))
        raise LimitError(f"{t.name or 'the value'}[{t.row_label(i)}, {t.col_label(j)}] reaches "
                         f"about 1e{digits}, beyond what a picture can draw (floats end at "
                         "1.8e308)", hint="sweep a smaller range or another step") from None


def _draw_sweep(y, x, data, printed, xlabel, title):
    fig = _figure(6.4, 4.0)
    ax = fig.add_subplot()
    name = y.name or "y"
    for (i, j), vs in data.ys.items():
        pts = [(_drawn(a, x), _drawn(b, y, i, j)) for a, b in zip(data.xs, vs) if b is not None]
        line, = ax.plot([p[0] for p in pts], [p[1] for p in pts],
                        label=f"{name}[{y.row_label(i)}, {y.col_label(j)}]")
        line.set_gid(f"curve-{i}-{j}")
    for k, (px, py, label) in enumerate(printed):
        dot = ax.plot([float(px)], [float(py)], "o", color="#c62828", markersize=6)[0]
        dot.set_gid(f"printed-{k}")
        ax.annotate(str(label), (float(px), float(py)), textcoords="offset points",
                    xytext=(6, 6), fontsize=8, color="#c62828")
    ax.set_xlabel(xlabel or (x.name or "x"))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    return fig
