"""Numbers, names and matrices as LaTeX: the leaves of every formula ``symattn latex`` writes.

Every number comes from the :class:`~symattn.evaluation.evaluator.Evaluator`: an exact
value whose decimal expansion ends within the allowed places is printed exactly (``0.92``,
``1``, ``0``); any other value is the certified rounding at the requested places in the
requested mode (never the formatting of a float). A masked entry is ``-\\infty``.

Token labels become ``\\text{...}`` with LaTeX's special characters escaped, so ``猫``,
``私は``, ``.`` and ``h1_1`` typeset in KaTeX, MathJax and LuaLaTeX alike.

>>> import symattn as sa
>>> tensor_latex(sa.matrix([["0.8", "1.2"]]) @ sa.matrix([["1.0", "0.2"], ["0.1", "0.9"]]))
'\\\\left[0.92,\\\\ 1.24\\\\right]'
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction

from .. import deadline
from ..evaluation import rounding as R
from ..tensor import Tensor, NEG_INF, walk
from ..primitives import keeps_rational

NEG_INF_TEX = r"-\infty"
MAX_EXACT_PLACES = 12          # an exact input such as 0.00001 is printed as it is up to here

# -- names ------------------------------------------------------------------------------

GREEK = {name: "\\" + name for name in (
    "alpha", "beta", "gamma", "delta", "zeta", "eta", "theta", "iota", "kappa", "lambda",
    "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega",
    "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega")}
GREEK.update({"epsilon": r"\varepsilon", "eps": r"\varepsilon"})

_TEXT_ESCAPES = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "%": r"\%", "&": r"\&",
    "#": r"\#", "$": r"\$", "^": r"\textasciicircum{}",
    # no HTML tag or Markdown link can form inside a $$ block of the Markdown output
    "<": r"\textless{}", ">": r"\textgreater{}", "[": "{[}", "]": "{]}",
}
_MINUSES = "\u2212\u2012\u2013\ufe63\uff0d"


def escape_text(s: str) -> str:
    """Text for inside ``\\text{}``: special characters escaped (``~`` leaves the text)."""
    out = []
    for ch in str(s):
        if ch in _MINUSES:
            ch = "-"
        if ch == "~":
            out.append(r"}{\sim}\text{")
        elif ch in ("\n", "\r", "\t"):
            out.append(" ")
        else:
            out.append(_TEXT_ESCAPES.get(ch, ch))
    return "".join(out)


def label_text(label) -> str:
    """A token or column label as ``\\text{...}``: ``猫`` → ``\\text{猫}``."""
    return r"\text{" + escape_text(label) + "}"


def _sub_part(s: str) -> str:
    if s.isdigit() or re.fullmatch(r"[A-Za-z]\d*", s):
        return s
    m = re.fullmatch(r"([A-Za-z]+)(\d*)", s)
    if m and m.group(1) in GREEK:
        return GREEK[m.group(1)] + m.group(2)
    return r"\mathrm{" + s + "}"


@dataclass(frozen=True)
class Sym:
    """A symbol ``base`` with subscripts, so an index can join them: ``Q_{1,\\text{love}}``."""
    base: str
    subs: tuple = ()

    def sub(self, *more: str) -> "Sym":
        return Sym(self.base, self.subs + tuple(more))

    def latex(self) -> str:
        return self.base if not self.subs else f"{self.base}_{{{','.join(self.subs)}}}"

    def __str__(self) -> str:
        return self.latex()


# -- a spec's own LaTeX for a name (``latex = "\\sigma^2"``) ----------------------------

SYMBOL_COMMANDS = set(GREEK) | {
    "varepsilon", "vartheta", "varphi", "varrho", "varsigma", "ell", "mathbf", "mathrm",
    "mathit", "mathsf", "mathcal", "boldsymbol", "hat", "bar", "tilde", "vec", "dot", "ddot",
    "top", "prime", "operatorname", "text", "cdot", "star", "ast", "infty", "partial"}
MAX_SYMBOL_LATEX = 100
_SYMBOL_TOKEN = re.compile(r"\\([A-Za-z]+)|([A-Za-z0-9 _^{}',()+\-*/.|])")

_NAMES: ContextVar[dict] = ContextVar("symattn_latex_names", default={})


def check_symbol_latex(text: str) -> str | None:
    """What is wrong with ``text`` as the LaTeX of a name, or None: ASCII letters, digits,
    ``_ ^ { } ' , ( ) + - * / . |``, spaces and commands of SYMBOL_COMMANDS, braces balanced.
    Nothing else reaches a document, so a spec cannot make LaTeX read files or run commands."""
    if not text.strip():
        return "it is empty"
    if len(text) > MAX_SYMBOL_LATEX:
        return f"longer than {MAX_SYMBOL_LATEX} characters"
    depth, pos = 0, 0
    while pos < len(text):
        m = _SYMBOL_TOKEN.match(text, pos)
        if not m:
            return f"{text[pos]!r} at column {pos + 1} is not allowed"
        if m.group(1) and m.group(1) not in SYMBOL_COMMANDS:
            return f"\\{m.group(1)} is not one of the commands a name may use"
        depth += {"{": 1, "}": -1}.get(m.group(), 0)
        if depth < 0:
            return f"a '}}' at column {pos + 1} closes nothing"
        if m.group() in "^_" and not re.match(r"\s*[A-Za-z0-9{\\']", text[m.end():]):
            return f"the {m.group()!r} at column {pos + 1} has nothing to raise or lower"
        pos = m.end()
    return "a '{' is never closed" if depth else None


@contextmanager
def spec_names(latex: dict):
    """Within the block, :func:`symbol` typesets these names (name -> LaTeX) as given."""
    token = _NAMES.set(dict(latex or {}))
    try:
        yield
    finally:
        _NAMES.reset(token)


def symbol(name: str) -> Sym:
    """The LaTeX symbol of a spec name: ``W_Q`` → W_Q, ``S_scaled`` → S_{scaled},
    ``mu1`` → μ_1, ``total`` → \\mathrm{total}, ``Em`` → E_m, a non-ASCII name → \\text{};
    a spec's ``latex = "\\sigma^2"`` for the name wins (in :func:`spec_names`)."""
    name = str(name)
    own = _NAMES.get().get(name)
    if own is not None:
        return Sym("{" + own + "}")
    if not name.isascii() or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return Sym(label_text(name))
    parts = name.split("_")
    if any(not p for p in parts):
        return Sym(r"\mathit{" + name.replace("_", r"\_") + "}")
    base, subs = parts[0], [_sub_part(p) for p in parts[1:]]
    m = re.fullmatch(r"([A-Za-z]+)(\d*)", base)
    if m and m.group(1) in GREEK:
        head, extra = GREEK[m.group(1)], [m.group(2)] if m.group(2) else []
    elif len(base) == 1:
        head, extra = base, []
    elif m and m.group(1).islower() and len(m.group(1)) > 1:
        head, extra = r"\mathrm{" + m.group(1) + "}", [m.group(2)] if m.group(2) else []
    elif len(base) <= 4 and (base[0].isupper() or base[1:].isdigit()):
        head, extra = base[0], [base[1:]]
    else:
        head, extra = r"\mathrm{" + base + "}", []
    return Sym(head, tuple(extra + subs))


def row_key(t: Tensor, i: int) -> str:
    """How row i of ``t`` is named in a subscript: its label, else its 1-based number."""
    return label_text(t.rows[i]) if t.rows else str(i + 1)


def col_key(t: Tensor, j: int) -> str:
    return label_text(t.cols[j]) if t.cols else str(j + 1)


# -- numbers ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Precision:
    """How a step's numbers are printed: ``decimals`` places in ``mode``; an exact value
    whose expansion ends within ``exact_places`` places is printed exactly."""
    decimals: int = 4
    mode: str = "half-up"
    exact_places: int | None = None

    @property
    def places(self) -> int:
        return self.decimals if self.exact_places is None else max(self.decimals, self.exact_places)


@dataclass(frozen=True)
class Cell:
    """One printed entry: its text, and whether it is exact, rounded or −∞."""
    text: str
    rounded: bool = False
    neg_inf: bool = False
    negative: bool = False
    places: int | None = None       # decimals of an exact value (None: rounded or −∞)
    value: Fraction | None = None   # the exact value when it is printed exactly


def _small_closed_form(t: Tensor, limit: int = 2000) -> bool:
    """Whether the exact (SymPy) value of ``t`` is small enough to build on the side."""
    try:
        from ..evaluation.size import closed_form_size
    except ImportError:                     # an engine without the estimate
        return True
    return closed_form_size(t) <= limit


def _terminating_places(q: Fraction, limit: int) -> int | None:
    """The number of decimals q needs, if its expansion ends within ``limit`` places."""
    d = q.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d != 1:
        return None
    p = max(twos, fives)
    return p if p <= limit else None


class Numbers:
    """Certified text for the entries of tensors, sharing one Evaluator."""

    def __init__(self, evaluator=None, exact: bool = False):
        from ..evaluation.evaluator import Evaluator
        self.ev = evaluator or Evaluator()
        self.exact_forms = exact
        self._rational: dict[int, bool] = {}
        self._keep: list = []

    # -- exactness ---------------------------------------------------------------------
    def is_rational(self, t: Tensor) -> bool:
        """True when the graph of ``t`` uses only operations that keep values rational."""
        key = id(t)
        if key in self._rational:
            return self._rational[key]
        ok = all(keeps_rational(n) for n in walk(t))
        self._rational[key] = ok
        self._keep.append(t)
        return ok

    def has_symbols(self, t: Tensor) -> bool:
        """True when an input of ``t`` is a SymPy symbol (a spec's ``{ symbol = "t" }``)."""
        key = ("sym", id(t))
        if key in self._rational:
            return self._rational[key]
        found = any(n.op == "const" and any(getattr(v, "free_symbols", None)
                                            for row in n.params["entries"] for v in row
                                            if v is not NEG_INF)
                    for n in walk(t))
        self._rational[key] = found
        self._keep.append(t)
        return found

    def exact_fraction(self, t: Tensor, i: int, j: int):
        """The exact value of entry (i, j) as a Fraction when it is known to be rational
        (NEG_INF for −∞), else None."""
        if self.is_rational(t):
            v = self.ev.exact(t)[i][j]
            if v is NEG_INF:
                return NEG_INF
            return Fraction(int(v.p), int(v.q))
        x = self.ev.ball(t, 64)[i][j]
        if x is NEG_INF:
            return NEG_INF
        if x.rad() == 0 and x.mid().is_finite():
            m, e = x.mid().man_exp()
            return Fraction(int(m)) * (Fraction(2) ** int(e))
        if self._near_short_decimal(x) and _small_closed_form(t):   # e/e, √2·√2: ask SymPy
            v = self.ev.exact(t)[i][j]
            if getattr(v, "is_Rational", False):
                return Fraction(int(v.p), int(v.q))
        return None

    @staticmethod
    def _near_short_decimal(x) -> bool:
        """The ball lies within 2^-40 of a decimal of at most 6 places."""
        from ..evaluation.evaluator import ball_bounds, beyond_exponent_limit
        if not x.is_finite() or beyond_exponent_limit(x):
            return False
        lo, hi = ball_bounds(x)
        q = Fraction(round((lo + hi) / 2 * 10 ** 6), 10 ** 6)
        return abs(q - lo) < Fraction(1, 1 << 40) and abs(hi - q) < Fraction(1, 1 << 40)

    # -- one entry ---------------------------------------------------------------------
    def cell(self, t: Tensor, i: int, j: int, prec: Precision) -> Cell:
        deadline.check()
        if self.exact_forms or self.has_symbols(t):           # a symbol: no number to print
            return self._closed_form(t, i, j, prec)
        q = self.exact_fraction(t, i, j)
        if q is NEG_INF:
            return Cell(NEG_INF_TEX, neg_inf=True, negative=True)
        if q is not None:
            p = _terminating_places(q, prec.places)
            if p is not None:
                return Cell(R.format_units(int(q * 10 ** p), p), negative=q < 0, places=p, value=q)
        r = self.ev.rounded(t, i, j, decimals=prec.decimals, mode=prec.mode)
        if r is None:
            return Cell(NEG_INF_TEX, neg_inf=True, negative=True)
        return Cell(str(r), rounded=True, negative=r.units < 0)

    def _closed_form(self, t, i, j, prec) -> Cell:
        import sympy
        v = self.ev.exact(t)[i][j]
        if v is NEG_INF:
            return Cell(NEG_INF_TEX, neg_inf=True, negative=True)
        if v.is_Rational:
            q = Fraction(int(v.p), int(v.q))
            p = _terminating_places(q, max(prec.places, MAX_EXACT_PLACES))
            if p is not None:
                return Cell(R.format_units(int(q * 10 ** p), p), negative=q < 0, places=p, value=q)
        text = sympy.latex(v)
        return Cell(text, negative=text.startswith("-"))

    def cells(self, t: Tensor, prec: Precision, rows=None, cols=None) -> list[list[Cell]]:
        """The cells of ``t`` (or of some rows/columns), exact ones padded to a common
        number of places (``[1.10, 0.40, 0.65]``), rounded ones at ``prec.decimals``."""
        rows = range(t.shape[0]) if rows is None else rows
        cols = range(t.shape[1]) if cols is None else cols
        out = [[self.cell(t, i, j, prec) for j in cols] for i in rows]
        return pad(out)

    def text(self, t: Tensor, prec: Precision, i: int = 0, j: int = 0) -> str:
        return self.cell(t, i, j, prec).text


def pad(cells: list[list[Cell]]) -> list[list[Cell]]:
    """Exact cells of one matrix printed with the same number of decimals."""
    places = [c.places for row in cells for c in row if c.places is not None]
    if not places:
        return cells
    p = max(places)
    rounded = [len(c.text.partition(".")[2]) for row in cells for c in row if c.rounded]
    if rounded:                    # beside rounded numbers 0.5 is 0.5000, and 0 and 1 stay
        p = max([p] + rounded)
    out = []
    for row in cells:
        r = []
        for c in row:
            if c.places is not None and c.places < p and not (rounded and c.places == 0):
                c = Cell(R.format_units(int(c.value * 10 ** p), p), negative=c.negative,
                         places=p, value=c.value)
            r.append(c)
        out.append(r)
    return out


# -- layouts ----------------------------------------------------------------------------

def bmatrix(rows: list[list[str]]) -> str:
    body = r" \\ ".join(" & ".join(r) for r in rows)
    return r"\begin{bmatrix} " + body + r" \end{bmatrix}"


def vector(items: list[str]) -> str:
    """A row vector as the articles print it: ``[0.92,\\ 1.24]``."""
    return r"\left[" + r",\ ".join(items) + r"\right]"


def layout(rows: list[list[str]]) -> str:
    """A scalar, a row vector or a bmatrix, by shape."""
    if len(rows) == 1 and len(rows[0]) == 1:
        return rows[0][0]
    if len(rows) == 1:
        return vector(rows[0])
    return bmatrix(rows)


def table(rows: list[list[str]], row_labels, col_labels) -> str:
    """A labelled table (an ``array`` with a header row and a label column)."""
    lead = row_labels is not None
    spec = ("l|" if lead else "") + "r" * len(rows[0])
    lines = []
    if col_labels is not None:
        head = ([""] if lead else []) + [label_text(c) for c in col_labels]
        lines.append(" & ".join(head).strip() + r" \\ \hline")
    for k, r in enumerate(rows):
        lines.append(" & ".join(([label_text(row_labels[k])] if lead else []) + r) + r" \\")
    if lines:
        lines[-1] = lines[-1].removesuffix(r" \\")
    return r"\begin{array}{" + spec + "} " + " ".join(lines) + r" \end{array}"


def texts(cells: list[list[Cell]]) -> list[list[str]]:
    return [[c.text for c in row] for row in cells]


def tensor_latex(t: Tensor, digits: int = 4, *, mode: str = "half-even", numbers: Numbers | None = None,
                 labels: bool = True) -> str:
    """The value of ``t`` as LaTeX (no ``$``): exact where it ends within ``digits`` places,
    else certified to ``digits`` places; a labelled table when ``t`` has labels.

    Used by ``Tensor._repr_latex_`` in Jupyter.
    """
    numbers = numbers or Numbers()
    cells = texts(numbers.cells(t, Precision(digits, mode)))
    if labels and (t.rows or t.cols) and not (t.shape == (1, 1) and not t.cols):
        return table(cells, t.rows, t.cols)
    return layout(cells)
