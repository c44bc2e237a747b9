"""How a Tensor shows itself: certified values in a labelled grid (``repr``, ``str``,
Jupyter's HTML), cut to the first and last rows and columns when large, as NumPy does.

Values are certified digits from the evaluator (ball arithmetic), never formatted floats;
a matrix with symbols shows its exact entries. Nothing here raises: a value that cannot be
computed is named in the header instead.

>>> import symattn as sa
>>> print(sa.matrix([["1/3", "2"]], cols=["a", "b"], name="x"))
Tensor 'x' 1×2, exact decimals, else 6 significant digits (certified):
         a  b
  0.333333  2
"""

from __future__ import annotations

import html
import re
import unicodedata

from .errors import SymattnError

DIGITS = 6          # significant digits repr and str show
EDGE = 3            # rows or columns shown at each end of a cut axis
THRESHOLD = 8       # an axis with more entries than this is cut
MAX_EXACT = 2_000   # closed-form size (terms) repr shows for a matrix with symbols
MAX_PLACES = 12     # an exact terminating decimal is shown in full up to here


def shown(n: int) -> list[int | None]:
    """The indices shown along an axis of length n; None stands for the cut."""
    if n <= THRESHOLD:
        return list(range(n))
    return list(range(EDGE)) + [None] + list(range(n - EDGE, n))


def values(t, digits: int = DIGITS) -> tuple[list[int | None], list[int | None], dict, str]:
    """(rows shown, columns shown, {(i, j): text}, what the numbers are)."""
    from .ops.primitives import take
    rows, cols = shown(t.shape[0]), shown(t.shape[1])
    ri = [i for i in rows if i is not None]
    ci = [j for j in cols if j is not None]
    sub = t if (len(ri), len(ci)) == t.shape else take(t, ri, ci)
    try:
        grid = _certified(sub, digits)
        what = f"exact decimals, else {digits} significant digits (certified)"
    except SymattnError as e:
        try:
            from .evaluation import exact_value
            m = exact_value(sub, MAX_EXACT)
            grid = [[str(m[a, b]) for b in range(len(ci))] for a in range(len(ri))]
            what = "exact"
        except SymattnError:
            return rows, cols, {}, f"value not shown: {e.message}"
    return rows, cols, {(i, j): grid[a][b] for a, i in enumerate(ri)
                        for b, j in enumerate(ci)}, what


def _certified(t, digits: int) -> list[list[str]]:
    """Each entry exactly when it is a decimal of at most MAX_PLACES places, else rounded
    to ``digits`` significant digits; exactness is decided as ``symattn latex`` decides it."""
    from .evaluation import evaluate
    from .evaluation.rounding import format_units
    from .render.latex_values import Numbers
    grid = evaluate(t, digits=digits)
    numbers = Numbers()
    for i, row in enumerate(grid):
        for j, text in enumerate(row):
            q = None if text == "-inf" else numbers.exact_fraction(t, i, j)
            places = _places(q) if q is not None else None
            if places is not None:
                row[j] = format_units(int(q * 10 ** places), places)
    return grid


def _places(q) -> int | None:
    """The decimal places of a terminating decimal q (at most MAX_PLACES), else None."""
    d, places = q.denominator, 0
    while d % 2 == 0 or d % 5 == 0:
        d //= 10 if d % 10 == 0 else 2 if d % 2 == 0 else 5
        places += 1
    return places if d == 1 and places <= MAX_PLACES else None


def _width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def _pad(s: str, w: int, left: bool) -> str:
    fill = " " * (w - _width(s))
    return s + fill if left else fill + s


def header(t, what: str) -> str:
    name = f" {t.name!r}" if t.name else ""
    return f"Tensor{name} {t.shape[0]}×{t.shape[1]}, {what}"


def text(t, digits: int = DIGITS) -> str:
    """The grid as text: column labels above, row labels at the left, ``…``/``⋮`` at a cut."""
    rows, cols, cells, what = values(t, digits)
    if not cells:
        return header(t, what)
    return header(t, what) + ":\n" + grid(rows, cols, cells, t.row_label if t.rows else None,
                                          t.col_label if t.cols else None)


def grid(rows: list, cols: list, cells: dict, row_label=None, col_label=None) -> str:
    """Lines of ``cells[i, j]`` for the shown ``rows`` and ``cols`` (None: the cut), with
    ``row_label(i)``/``col_label(j)`` when given, aligned by display width."""
    table = []
    if col_label:
        table.append([""] + ["…" if j is None else col_label(j) for j in cols])
    for i in rows:
        lead = ["⋮" if i is None else row_label(i)] if row_label else [""]
        table.append(lead + ["…" if j is None else "⋮" if i is None else cells[i, j]
                             for j in cols])
    widths = [max(_width(r[k]) for r in table) for k in range(len(table[0]))]
    return "\n".join("  ".join(_pad(c, widths[k], k == 0) for k, c in enumerate(r)).rstrip()
                     for r in table)


def html_table(t, digits: int = DIGITS) -> str:
    """The grid as an HTML table (Jupyter), labels escaped; numbers aligned on the decimal
    point (figure and punctuation spaces stand for the digits and point a cell lacks)."""
    rows, cols, cells, what = values(t, digits)
    e = html.escape
    out = [f"<table><caption>{e(header(t, what))}</caption>"]
    if not cells:
        return out[0] + "</table>"
    parts = aligned(cells) if what.startswith("exact decimals") else None
    if t.cols:
        out.append("<tr><th></th>" + "".join(
            f"<th>{'…' if j is None else e(t.col_label(j))}</th>" for j in cols) + "</tr>")
    for i in rows:
        lead = f"<th>{'⋮' if i is None else e(t.row_label(i))}</th>" if t.rows else "<th></th>"
        tds = "".join(f'<td style="text-align:right;font-variant-numeric:tabular-nums">'
                      f"{'…' if j is None else '⋮' if i is None else e(_html_number(parts, cells, i, j))}</td>"
                      for j in cols)
        out.append(f"<tr>{lead}{tds}</tr>")
    return "".join(out) + "</table>"


_NUMBER = re.compile(r"([-−]?)(\d*)(?:\.(\d*))?(.*)", re.S)


class Parts:
    """A printed number cut at its decimal point, with what its column's widest has more:
    ``pad_sign``, ``pad_int`` digits before it; ``pad_point``, ``pad_frac`` digits and the
    exponent ``pad_rest`` (text) after it."""

    def __init__(self, text: str):
        m = _NUMBER.fullmatch(text)
        self.sign, self.int, frac, self.rest = m.group(1), m.group(2), m.group(3), m.group(4)
        self.point, self.frac = frac is not None, frac or ""
        self.pad_sign = self.pad_point = False
        self.pad_int = self.pad_frac = 0
        self.pad_rest = ""


def aligned(cells: dict) -> dict:
    """(i, j) -> :class:`Parts`, padded so that every column lines up on the decimal point."""
    parts = {ij: Parts(text) for ij, text in cells.items()}
    for j in {j for _, j in parts}:
        # −∞ (a masked score) has no decimal point: it stands apart, the others line up
        col = [p for (_, jj), p in parts.items() if jj == j and p.rest != "inf"]
        if not col:
            continue
        sign = any(p.sign for p in col)
        width = max(len(p.int) for p in col)
        point = any(p.point for p in col)
        frac = max(len(p.frac) for p in col)
        rest = max((p.rest for p in col), key=len)
        for p in col:
            p.pad_sign, p.pad_int = sign and not p.sign, width - len(p.int)
            p.pad_point, p.pad_frac = point and not p.point, frac - len(p.frac)
            p.pad_rest = rest if len(p.rest) < len(rest) else ""
    return parts


def _html_number(parts, cells: dict, i: int, j: int) -> str:
    if parts is None:
        return cells[i, j]
    p = parts[i, j]
    return ("\u2007" * (p.pad_int + p.pad_sign) + ("−" if p.sign else "") + p.int
            + ("." + p.frac if p.point else "") + "\u2008" * p.pad_point
            + "\u2007" * p.pad_frac + ("∞" if p.rest == "inf" else p.rest) + "\u2007" * len(p.pad_rest))


def latex(t) -> str | None:
    """LaTeX for Jupyter, the digits the HTML table shows, aligned on the decimal point;
    None (the HTML table is shown, cut) for a large shape. A matrix with symbols shows its
    closed form (``symattn latex``'s)."""
    if max(t.shape) > THRESHOLD:
        return None
    from .render.latex_values import tensor_latex, table, layout
    rows, cols, cells, what = values(t)
    if not cells or not what.startswith("exact decimals"):
        return "$$" + tensor_latex(t) + "$$"
    parts = aligned(cells)
    grid = [[_latex_number(parts[i, j]) for j in cols] for i in rows]
    if (t.rows or t.cols) and not (t.shape == (1, 1) and not t.cols):
        return "$$" + table(grid, t.rows, t.cols) + "$$"
    return "$$" + layout(grid) + "$$"


def _latex_number(p: Parts) -> str:
    def phantom(s: str) -> str:
        return rf"\phantom{{{s}}}" if s else ""
    rest = {"inf": r"\infty"}.get(p.rest, _exponent(p.rest))
    return (phantom("-" * p.pad_sign + "0" * p.pad_int) + ("-" if p.sign else "") + p.int
            + ("." + p.frac if p.point else "")
            + phantom("." * p.pad_point + "0" * p.pad_frac + _exponent(p.pad_rest)) + rest)


def _exponent(rest: str) -> str:
    """``e-12`` as ``\times 10^{-12}``."""
    m = re.fullmatch(r"e([-+]?)(\d+)", rest)
    if not m:
        return rest
    return rf"\times 10^{{{'-' if m.group(1) == '-' else ''}{int(m.group(2))}}}"
