"""The gradient's API: :func:`grad`, :func:`gradient` and :class:`Gradient` (exact forms,
certified digits, floats, LaTeX, notes); reverse mode is :mod:`.reverse`, certified digits
:mod:`.digits`, closed forms :mod:`.closed`."""

from __future__ import annotations

from ..errors import ShapeError, InputError, DomainError
from ..tensor import Tensor, NEG_INF, describe, walk
from .closed import (MAX_CLOSED_FORM, estimated_size, too_large, to_matrix, tree_size,
                     tidy_expr)
from .reverse import Backprop, dependents, substitute
from ..display import DIGITS

METHODS = ("auto", "reverse", "symbolic")


def grad(loss: Tensor, wrt, *, digits: int | None = None, mode: str = "half-even",
         method: str = "auto"):
    """∂loss/∂w for every entry w of ``wrt``, exactly (or to ``digits`` certified digits).

    ``loss``: a 1×1 Tensor built with the engine. ``wrt``: a Tensor (or SymPy matrix) of
    symbols, a Tensor of numbers the loss was built from, or a node of the loss's graph.

    Returns, for ``wrt`` of numbers, the :class:`Gradient`: it prints like a Tensor
    (certified digits labelled with ``wrt``'s rows and columns), its entries (``g[i, j]``,
    iteration) and ``g.exact()`` are the closed forms, computed when asked; for ``wrt`` a
    matrix of symbols, the closed form (a ``sympy.ImmutableMatrix``, a formula has no
    digits). With ``digits=N``: rows of decimal strings with N certified significant digits
    (as :func:`symattn.evaluate`), which print as the labelled grid.
    """
    g = gradient(loss, wrt, method=method)
    if digits is not None:
        from .show import Digits
        return Digits(g.evaluate(digits, mode=mode), g, digits)
    if g.wrt is None or g.symbols is not None:
        return g.exact()
    g.shown = g.evaluate(DIGITS)      # what it prints; a tie or a −∞ loss raises here, at once
    return g


def gradient(loss: Tensor, wrt, *, method: str = "auto", missing: str = "error") -> "Gradient":
    """The gradient of ``loss`` with respect to ``wrt`` as a :class:`Gradient` (lazy: the
    exact form, certified digits and the notes are computed when asked for).

    ``missing="error"`` (default) refuses a Tensor of numbers that does not occur in the
    loss's graph (usually an equal copy rather than the object the loss was built from);
    ``missing="zero"`` answers zeros.
    """
    return Gradient(loss, wrt, method=method, missing=missing)


class Gradient:
    """∂loss/∂wrt: ``exact()``, ``evaluate(digits)``, ``balls(prec)``, ``numpy()``, ``notes``.

    ``shape``, ``rows`` and ``cols`` are those of ``wrt``.
    """

    def __init__(self, loss, wrt, *, method: str = "auto", missing: str = "error"):
        import sympy
        if not isinstance(loss, Tensor):
            raise InputError(f"the loss is a {type(loss).__name__}, not a Tensor built with "
                             "the engine")
        if loss.shape != (1, 1):
            raise ShapeError(f"the loss is {loss.shape[0]}×{loss.shape[1]}; a gradient needs a "
                             "scalar (1×1) loss", hint="sum or pick one entry")
        if method not in METHODS:
            raise InputError(f"method={method!r}: use one of {', '.join(METHODS)}")
        if missing not in ("error", "zero"):
            raise InputError(f"missing={missing!r}: use 'error' or 'zero'")
        self.loss = loss
        self.notes: list[str] = []
        self._exact = None
        self._tidy = None
        self._ball_memo: dict = {}
        self._sizes = None
        self._exact_memo: dict = {}
        self.rows = self.cols = None
        self.shown = None                  # the digits repr shows, once computed
        if isinstance(wrt, Tensor):
            self.wrt = wrt
            self.shape = wrt.shape
            self.rows, self.cols = wrt.rows, wrt.cols
            entries = wrt.params["entries"] if wrt.op == "const" else None
            self.symbols = _symbol_matrix(entries)
        else:
            try:
                W = sympy.ImmutableMatrix(wrt)
            except Exception:
                raise InputError(f"wrt must be a Tensor or a matrix of symbols, not "
                                 f"{type(wrt).__name__}") from None
            if W.shape[0] * W.shape[1] == 0:
                raise ShapeError("wrt has no entries")
            self.wrt = None
            self.shape = W.shape
            self.symbols = [[W[i, j] for j in range(W.shape[1])] for i in range(W.shape[0])]
            for w in W:
                if not isinstance(w, sympy.Symbol):
                    raise InputError(f"'{w}' is not a symbol: differentiate with respect to "
                                     "symbols (symattn.symbols) or pass the Tensor of numbers "
                                     "the loss was built from")
        if method == "auto":
            method = "symbolic" if self.symbols is not None else "reverse"
        if method == "reverse" and self.wrt is None:
            raise InputError("reverse mode needs wrt as a Tensor of the loss's graph",
                             hint="use method='symbolic' for a matrix of symbols")
        self.method = method
        self._order = list(walk(loss))
        self._dep, self._found = dependents(self._order, self._is_wrt)
        if not self._found and self.symbols is None and missing == "error":
            raise InputError(f"{describe(self.wrt)} does not occur in the loss",
                             hint="pass the Tensor object the loss was built from (an equal "
                                  "copy is another variable)")

    # -- which nodes are the variable ----------------------------------------------------
    def _is_wrt(self, node: Tensor) -> bool:
        w = self.wrt
        if w is None:
            return False
        # a named copy (Tensor.named, Steps) shares the params and args of its original
        return node is w or (node.op == w.op and node.params is w.params and node.args is w.args)

    # -- the exact gradient ---------------------------------------------------------------
    def exact(self, tidy: bool = True, max_size: int | None = MAX_CLOSED_FORM):
        """The exact gradient, a ``sympy.ImmutableMatrix`` shaped like ``wrt``.

        Reverse mode builds each entry from shared subexpressions, mostly unevaluated (SymPy's
        automatic simplification of large products is what makes naive exact gradients
        slow); entries small enough are tidied (``together``, ``factor_terms``). Written
        out, an entry of a whole layer's gradient has billions of nodes: a closed form
        whose entries would have more than ``max_size`` nodes written out (see
        :func:`tree_size`) is refused with a LimitError pointing at certified digits;
        ``max_size=None`` returns it anyway (do not print it).
        """
        if self._exact is None:
            if max_size is not None:
                n = estimated_size(self.loss)
                if n > max_size:
                    raise too_large(n, max_size, "the loss's closed form")
            if self.method == "symbolic":
                self._exact = self._symbolic()
            else:
                from ..evaluation.base import run
                from ..evaluation.exact import ExactContext
                values = self._exact_memo
                run(ExactContext(), self.loss, values)
                from .lazy import LazyExact
                G = self._backprop(LazyExact(), values, exact=True)
                self._exact = to_matrix(G, ExactContext.zero)
        if max_size is not None:
            if self._sizes is None:
                self._sizes = [tree_size(v) for v in self._exact]
            n = max(self._sizes)
            if n > max_size:
                raise too_large(n, max_size, "the gradient's closed form")
        if not tidy or self.method == "symbolic":
            return self._exact
        if self._tidy is None:
            import sympy
            self._tidy = sympy.ImmutableMatrix(self._exact.shape[0], self._exact.shape[1],
                                               [tidy_expr(v) for v in self._exact])
        return self._tidy

    def _symbolic(self):
        import sympy
        from ..evaluation import exact_value
        m, n = self.shape
        if self.symbols is not None:
            loss, syms, point = self.loss, self.symbols, None
        else:
            values = self._wrt_values()
            syms = [[sympy.Dummy(f"w{i}{j}", real=True) for j in range(n)] for i in range(m)]
            from ..ops.primitives import const
            leaf = const(syms)
            loss = substitute(self.loss, self._is_wrt, leaf)
            point = {syms[i][j]: values[i][j] for i in range(m) for j in range(n)}
        L = exact_value(loss)[0, 0]
        if L == -sympy.oo:
            raise DomainError("the loss is −∞; it has no gradient")
        G = [[sympy.diff(L, syms[i][j]) for j in range(n)] for i in range(m)]
        if point is not None:
            G = [[g.xreplace(point) for g in row] for row in G]
        return sympy.ImmutableMatrix(G)

    def _wrt_values(self):
        from ..evaluation.exact import ExactContext
        from ..evaluation.base import run
        vals = run(ExactContext(), self.wrt, self._exact_memo)
        if any(v is NEG_INF for row in vals for v in row):
            raise InputError("wrt has −∞ entries; the symbolic route cannot replace them "
                             "by symbols", hint="use method='reverse'")
        return vals

    # -- certified digits -------------------------------------------------------------------
    def balls(self, prec: int = 128):
        """The gradient as Arb balls at ``prec`` bits (each contains the exact value)."""
        from ..evaluation.ball import precision
        from flint import arb
        raw = self._raw(prec)
        with precision(prec):
            return [[arb(0) if v is None else arb(v) for v in row] for row in raw]

    def _raw(self, prec: int):
        """Reverse mode in the ball context: balls, exact FLINT rationals where the ball
        context keeps them, None for a structural zero."""
        from ..evaluation.ball import BallContext, precision, sympy_to_arb
        from ..evaluation.base import run
        with precision(prec):
            if self.method == "symbolic":
                return [[sympy_to_arb(v) for v in row] for row in self.exact().tolist()]
            ctx = BallContext(prec)
            values: dict = {}
            run(ctx, self.loss, values)
            self._ball_memo = values
            return self._backprop(ctx, values, exact=False)

    def evaluate(self, digits: int = 15, mode: str = "half-even") -> list[list[str]]:
        """Entries as decimal strings, correctly rounded to ``digits`` significant digits
        (certified by ball arithmetic; exact zeros and ties settled from the exact value)."""
        from .digits import certified_digits
        return certified_digits(self, digits, mode)

    def numpy(self):
        """The gradient as float64: the midpoints of certified 128-bit balls, so each
        entry is the exact value to within a unit in its last place."""
        import numpy as np
        from ..evaluation.certified import ball_bounds
        raw = self._raw(128)
        out = np.zeros(self.shape)
        for i, row in enumerate(raw):
            for j, v in enumerate(row):
                if v is not None:
                    lo, hi = ball_bounds(v)
                    out[i, j] = float((lo + hi) / 2)
        return out

    def latex(self, digits: int | None = None) -> str:
        """The gradient as a LaTeX bmatrix (closed forms, or ``digits`` certified digits)."""
        import sympy
        if digits is None:
            rows = [[sympy.latex(v) for v in row] for row in self.exact().tolist()]
        else:
            rows = self.evaluate(digits)
        body = r" \\ ".join(" & ".join(r) for r in rows)
        return r"\begin{bmatrix} " + body + r" \end{bmatrix}"

    # -- reverse mode ------------------------------------------------------------------------
    def _backprop(self, ctx, values, *, exact: bool):
        root_val = values[id(self.loss)][0][0]
        if root_val is NEG_INF:
            raise DomainError("the loss is −∞; it has no gradient")
        bp = Backprop(ctx, values, exact, self)
        return bp.run(self._order, self._dep, self._is_wrt, self.loss, self.shape)

    def _exact_entry(self, node: Tensor, i: int, j: int):
        """The exact value of one entry of a node (for decisions balls cannot make)."""
        from ..evaluation.exact import ExactContext
        from ..evaluation.base import run
        return run(ExactContext(), node, self._exact_memo)[i][j]

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    # -- showing it: as a Tensor, certified digits; the closed form's entries when indexed --
    def __repr__(self) -> str:
        from .show import text
        return text(self, self.shown)

    def _repr_html_(self) -> str:
        import html
        return "<pre>" + html.escape(repr(self)) + "</pre>"

    def __getitem__(self, key):
        """An entry (or entries) of the closed form, as ``exact()[key]``."""
        return self.exact()[key]

    def __iter__(self):
        """The entries of the closed form, row by row (as a SymPy matrix iterates)."""
        return iter(self.exact())

    def __len__(self) -> int:
        return self.shape[0] * self.shape[1]

    def tolist(self) -> list:
        return self.exact().tolist()



def _symbol_matrix(entries):
    """The entries as lists if every one is a SymPy Symbol, else None."""
    import sympy
    if entries is None:
        return None
    if all(isinstance(v, sympy.Symbol) for row in entries for v in row):
        return [list(row) for row in entries]
    return None
