"""Exact gradients of a scalar loss built with the engine.

``grad(loss, wrt)`` gives ∂loss/∂w for every entry w of ``wrt``:

- ``wrt`` a matrix of SymPy symbols (``symattn.symbols``): SymPy differentiates the closed
  form of the loss; the answer is a formula in the symbols.
- ``wrt`` a Tensor of numbers that the loss was built from (an input, a weight), or an
  intermediate node of the loss (``∂L/∂scores``, treating that node as an independent
  variable): the exact gradient *at that point*, as closed forms in exp, log and sqrt of
  rationals. It is computed by reverse mode over the graph: each primitive's derivative
  rule is applied to the values of an evaluation context. In the exact context (SymPy)
  that gives the closed form; in the ball context (Arb) it gives certified enclosures, so
  digits come fast at any size without building or walking one giant SymPy tree.
  ``method="symbolic"`` takes the other route (replace the entries by symbols, let SymPy
  differentiate the closed form, substitute the numbers back); both give the same exact
  values and the tests hold them against each other.

Where a function has no derivative the rules follow PyTorch and say so in
:attr:`Gradient.notes`: ReLU and |x| at exactly 0 get slope 0. A maximum that is tied, or
√ at exactly 0, has none: :class:`~symattn.errors.DomainError`. (SymPy's own derivative of
ReLU at 0, used by ``method="symbolic"``, is Heaviside(0) = 1/2.)

>>> import symattn as sa
>>> z = sa.symbols("z", 1, 3)
>>> g = sa.grad(sa.cross_entropy(z, 0), z)
>>> import sympy; sympy.simplify(g[0] + g[1] + g[2])
0
>>> logits = sa.matrix([[-1, 1, 2, 1, -2]])       # article 003, chapter 8
>>> g = sa.grad(sa.cross_entropy(logits, 2), logits)   # p - onehot, exactly
>>> g[2]
-(1 + E + 2*exp(3))/(1 + E + 2*exp(3) + exp(4))
>>> sa.grad(sa.cross_entropy(logits, 2), logits, digits=6)
[['0.0276003', '0.203940', '-0.445634', '0.203940', '0.0101536']]
"""

from __future__ import annotations

from fractions import Fraction

from .errors import (ShapeError, InputError, DomainError, CertificationError, LimitError,
                     SymattnError)
from .tensor import Tensor, NEG_INF, describe
from . import deadline as command_deadline

__all__ = ["grad", "gradient", "Gradient", "substitute"]

METHODS = ("auto", "reverse", "symbolic")
MAX_PREC_BITS = 1 << 17            # as symattn.evaluation.evaluator
EXACT_FALLBACK_BITS = 4096         # from this precision on, undecided digits ask the exact value
FORMAL_SECONDS = 2.0               # time for the formal proof of exact zeros (then balls go on)
MAX_CLOSED_FORM = 50_000           # nodes of one entry written out (about 100 kB of LaTeX)


def grad(loss: Tensor, wrt, *, digits: int | None = None, mode: str = "half-even",
         method: str = "auto"):
    """∂loss/∂w for every entry w of ``wrt``, exactly (or to ``digits`` certified digits).

    ``loss``: a 1×1 Tensor built with the engine. ``wrt``: a Tensor (or SymPy matrix) of
    symbols, a Tensor of numbers the loss was built from, or a node of the loss's graph.

    Returns a ``sympy.ImmutableMatrix`` shaped like ``wrt``; with ``digits=N``, nested
    lists of decimal strings with N certified significant digits (as
    :func:`symattn.evaluate`). See :func:`gradient` for the notes and other forms.
    """
    g = gradient(loss, wrt, method=method)
    return g.exact() if digits is None else g.evaluate(digits, mode=mode)


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
        self._order = _topological(loss)
        self._dep, self._found = _dependents(self._order, self._is_wrt)
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
                n = _estimated_size(self.loss)
                if n > max_size:
                    raise _too_large(n, max_size, "the loss's closed form")
            if self.method == "symbolic":
                self._exact = self._symbolic()
            else:
                from .evaluation.base import run
                from .evaluation.exact import ExactContext
                values = self._exact_memo
                run(ExactContext(), self.loss, values)
                G = self._backprop(_LazyExact(), values, exact=True)
                self._exact = _to_matrix(G, ExactContext.zero)
        if max_size is not None:
            if self._sizes is None:
                self._sizes = [tree_size(v) for v in self._exact]
            n = max(self._sizes)
            if n > max_size:
                raise _too_large(n, max_size, "the gradient's closed form")
        if not tidy or self.method == "symbolic":
            return self._exact
        if self._tidy is None:
            import sympy
            self._tidy = sympy.ImmutableMatrix(self._exact.shape[0], self._exact.shape[1],
                                               [tidy_expr(v) for v in self._exact])
        return self._tidy

    def _symbolic(self):
        import sympy
        from .evaluation import exact_value
        m, n = self.shape
        if self.symbols is not None:
            loss, syms, point = self.loss, self.symbols, None
        else:
            values = self._wrt_values()
            syms = [[sympy.Dummy(f"w{i}{j}", real=True) for j in range(n)] for i in range(m)]
            from .ops.primitives import const
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
        from .evaluation.exact import ExactContext
        from .evaluation.base import run
        vals = run(ExactContext(), self.wrt, self._exact_memo)
        if any(v is NEG_INF for row in vals for v in row):
            raise InputError("wrt has −∞ entries; the symbolic route cannot replace them "
                             "by symbols", hint="use method='reverse'")
        return vals

    # -- certified digits -------------------------------------------------------------------
    def balls(self, prec: int = 128):
        """The gradient as Arb balls at ``prec`` bits (each contains the exact value)."""
        from .evaluation.ball import precision
        from flint import arb
        raw = self._raw(prec)
        with precision(prec):
            return [[arb(0) if v is None else arb(v) for v in row] for row in raw]

    def _raw(self, prec: int):
        """Reverse mode in the ball context: balls, exact FLINT rationals where the ball
        context keeps them, None for a structural zero."""
        from .evaluation.ball import BallContext, precision, sympy_to_arb
        from .evaluation.base import run
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
        from .evaluation import MAX_DIGITS
        from .evaluation import rounding as R
        if not isinstance(digits, int) or isinstance(digits, bool) or digits < 1:
            raise InputError(f"digits={digits!r}: give a positive whole number")
        if digits > MAX_DIGITS:
            raise LimitError(f"digits={digits} is more than {MAX_DIGITS}")
        R.check_mode(mode)
        m, n = self.shape
        out: list[list[str | None]] = [[None] * n for _ in range(m)]
        prec = max(64, int(digits * 3.33) + 40)
        tried_formal = self.method == "symbolic"
        while True:
            raw = self._raw(prec)
            for i in range(m):
                for j in range(n):
                    if out[i][j] is None:
                        out[i][j] = _round(raw[i][j], digits, mode)
            pending = [(i, j) for i in range(m) for j in range(n) if out[i][j] is None]
            if not pending:
                return out
            zeros = [(i, j) for i, j in pending if _contains_zero(raw[i][j])]
            if zeros and not tried_formal:
                tried_formal = True
                self._settle_formally(zeros, out, digits, mode)
                pending = [(i, j) for i, j in pending if out[i][j] is None]
                if not pending:
                    return out
            if prec >= EXACT_FALLBACK_BITS:
                self._settle_exactly(pending, out, digits, mode)
                if all(out[i][j] is not None for i, j in pending):
                    return out
            prec *= 4
            if prec > MAX_PREC_BITS:
                i, j = pending[0]
                raise CertificationError(f"could not certify ∂/∂[{_label(self.rows, i)}, "
                                         f"{_label(self.cols, j)}] within {MAX_PREC_BITS} bits",
                                         hint="is it exactly 0 or exactly a rounding tie?")

    def _settle_formally(self, pending, out, digits, mode):
        """Reverse mode over rational functions of the transcendental values (the engine's
        FormalContext: each exp, √, log ... an independent unknown). An entry that is a
        constant there is that rational number exactly (0 included): a proof, since every
        divisor is a value proven nonzero. Entries it cannot settle stay pending."""
        from .evaluation.base import run
        from .evaluation import rounding as R
        try:
            from .evaluation.evaluator import FormalContext, FORMAL_MAX_ATOMS, FORMAL_MAX_ENTRIES
        except ImportError:
            return
        atoms = entries = 0
        for node in self._order:
            k = node.shape[0] * node.shape[1]
            entries += k
            if node.op in ("exp", "log", "sqrt", "sin", "cos", "abs", "relu", "pow", "row_max"):
                atoms += k
        if atoms > FORMAL_MAX_ATOMS or entries > FORMAL_MAX_ENTRIES:
            return
        import time
        try:
            ctx = FormalContext(2 * atoms + 1, self._ball_memo)   # backward adds sin/cos/pow atoms
            values: dict = {}
            run(ctx, self.loss, values)
            bp = _Backprop(ctx, values, False, self)
            bp.deadline = time.monotonic() + FORMAL_SECONDS
            G = bp.run(self._order, self._dep, self._is_wrt, self.loss, self.shape)
        except SymattnError:
            raise
        except Exception:                   # noqa: BLE001 - no proof (or out of time); balls go on
            return
        for i, j in pending:
            v = G[i][j]
            q = Fraction(0) if v is None else _formal_constant(ctx, v)
            if q is not None:
                out[i][j] = "0" if q == 0 else str(R.round_point_significant(q, digits, mode))

    def _settle_exactly(self, pending, out, digits, mode):
        """Exact zeros reached by cancellation and exact rounding ties cannot be decided by
        balls: ask the exact value, brought to one fraction with its numerator expanded
        (atoms such as exp(·) and √· as indeterminates). Entries too large for that stay
        pending."""
        from .evaluation import rounding as R
        if _estimated_size(self.loss) > 20 * MAX_CLOSED_FORM:
            return
        G = self.exact(tidy=False, max_size=None)
        for i, j in pending:
            v = G[i, j]
            if v.free_symbols:
                raise InputError(f"the gradient holds the symbols "
                                 f"{', '.join(sorted(map(str, v.free_symbols)))}: certified "
                                 "digits need numbers")
            v = exact_rational(v)
            if v is not None:
                out[i][j] = "0" if v == 0 else str(R.round_point_significant(v, digits, mode))

    def numpy(self):
        """The gradient as float64: the midpoints of certified 128-bit balls, so each
        entry is the exact value to within a unit in its last place."""
        import numpy as np
        raw = self._raw(128)
        out = np.zeros(self.shape)
        for i, row in enumerate(raw):
            for j, v in enumerate(row):
                if v is not None:
                    lo, hi = _ends(v)
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
        bp = _Backprop(ctx, values, exact, self)
        return bp.run(self._order, self._dep, self._is_wrt, self.loss, self.shape)

    def _exact_entry(self, node: Tensor, i: int, j: int):
        """The exact value of one entry of a node (for decisions balls cannot make)."""
        from .evaluation.exact import ExactContext
        from .evaluation.base import run
        return run(ExactContext(), node, self._exact_memo)[i][j]

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def __repr__(self) -> str:
        return f"<Gradient of {describe(self.loss)} wrt {self.shape[0]}×{self.shape[1]} ({self.method})>"


# ---------------------------------------------------------------------------------------
def _symbol_matrix(entries):
    """The entries as lists if every one is a SymPy Symbol, else None."""
    import sympy
    if entries is None:
        return None
    if all(isinstance(v, sympy.Symbol) for row in entries for v in row):
        return [list(row) for row in entries]
    return None


def _ends(x) -> tuple[Fraction, Fraction]:
    """The exact ends of a ball, or an exact FLINT rational twice."""
    from flint import fmpq
    if isinstance(x, fmpq):
        q = Fraction(int(x.p), int(x.q))
        return q, q
    from .evaluation.evaluator import ball_bounds
    return ball_bounds(x)


def _contains_zero(x) -> bool:
    """Whether a raw entry may be 0 (a ball around 0, or an exact 0)."""
    from flint import fmpq
    if x is None:
        return True
    if isinstance(x, fmpq):
        return x == 0
    return x.contains(0)


def _round(x, digits: int, mode: str) -> str | None:
    """One raw entry (None, an exact rational, a ball) to ``digits`` significant digits,
    or None when the ball cannot decide."""
    from flint import fmpq
    from .evaluation import rounding as R
    if x is None:
        return "0"
    if isinstance(x, fmpq):
        q = Fraction(int(x.p), int(x.q))
        return "0" if q == 0 else str(R.round_point_significant(q, digits, mode))
    if x.is_zero():
        return "0"
    if not x.is_finite():
        return None
    lo, hi = _ends(x)
    r = R.round_significant(lo, hi, digits, mode)
    return None if r is None else str(r)


def _estimated_size(t: Tensor) -> int:
    """The engine's estimate of the largest entry of ``t``'s closed form (0 if unknown)."""
    try:
        from .evaluation.size import closed_form_size
    except ImportError:
        return 0
    return closed_form_size(t)


def _too_large(n: int, limit: int, what: str) -> LimitError:
    return LimitError(f"{what} would have about {n:,} nodes per entry written out "
                      f"(limit {limit:,})",
                      hint="ask for certified digits instead (digits=N, --digits N), or pass "
                           "max_size=None on purpose and do not print it")


def _formal_constant(ctx, v) -> Fraction | None:
    """The rational number a FormalContext value is, if it is a constant."""
    n, d = v
    if n.is_zero():
        return Fraction(0)
    if n.is_constant() and d.is_constant():
        q = n.leading_coefficient() / d.leading_coefficient()
        return Fraction(int(q.p), int(q.q))
    return None


def _label(labels, i) -> str:
    return str(labels[i]) if labels else str(i)


TIDY_LIMIT = 4000          # tree size up to which exact entries are tidied
ZERO_TEST_LIMIT = 20000    # tree size up to which an undecided entry is tested for exactness


def tidy_expr(v):
    """``v`` as one tidy fraction (SymPy's ``together`` and ``factor_terms``) when it is
    small enough for that to be cheap and the result is not much larger; else ``v``.

    (``simplify``/``cancel`` are avoided on purpose: on these sums of exponentials they
    can take minutes, and with python-flint's ground types their gcd can crash.)
    """
    import sympy
    n = tree_size(v)
    if n > TIDY_LIMIT:
        return v
    try:
        w = sympy.factor_terms(sympy.together(v))
    except Exception:                   # noqa: BLE001 - tidying is optional
        return v
    return w if tree_size(w) <= 2 * n else v


def exact_rational(v) -> Fraction | None:
    """The value of ``v`` as a Fraction when it is provably rational (0 included), by
    bringing it to one fraction and expanding the numerator; None when that does not show
    it (or ``v`` is too large to try)."""
    import sympy
    if v.is_Rational:
        return Fraction(int(v.p), int(v.q))
    if tree_size(v) > ZERO_TEST_LIMIT:
        return None
    try:
        num, den = sympy.fraction(sympy.together(v))
        num = sympy.expand(num)
        if num == 0:
            return Fraction(0)
        den = sympy.expand(den)
        w = num / den
    except Exception:                   # noqa: BLE001 - an undecided entry stays pending
        return None
    return Fraction(int(w.p), int(w.q)) if w.is_Rational else None


class _LazyExact:
    """Exact SymPy arithmetic for reverse mode that leaves products and sums of large
    expressions unevaluated (rationals are still combined); the forward values it works on
    come from :class:`~symattn.evaluation.exact.ExactContext`."""

    def __init__(self):
        from .evaluation.exact import ExactContext
        self._exact = ExactContext()
        self.zero, self.one = ExactContext.zero, ExactContext.one

    def scalar(self, x):
        return self._exact.scalar(x)

    def s_sign(self, x):
        return self._exact.s_sign(x)

    def s_neg(self, x):
        import sympy
        if x.is_Rational:
            return -x
        if isinstance(x, sympy.Mul) and len(x.args) == 2 and x.args[0] == -1:
            return x.args[1]
        return sympy.Mul(sympy.Integer(-1), x, evaluate=False)

    def s_add(self, x, y):
        return self.s_sum([x, y])

    def s_sub(self, x, y):
        return self.s_sum([x, self.s_neg(y)])

    def s_sum(self, xs):
        import sympy
        q = sympy.Integer(0)
        rest = []
        for x in xs:
            if x.is_Rational:
                q += x
            else:
                rest.append(x)
        if not rest:
            return q
        if q != 0:
            rest.append(q)
        return rest[0] if len(rest) == 1 else sympy.Add(*rest, evaluate=False)

    def s_mul(self, x, y):
        import sympy
        if x.is_Rational and y.is_Rational:
            return x * y
        for a, b in ((x, y), (y, x)):
            if a.is_Rational:
                if a == 0:
                    return self.zero
                if a == 1:
                    return b
                if a == -1:
                    return self.s_neg(b)
        return sympy.Mul(x, y, evaluate=False)

    def s_div(self, x, y):
        import sympy
        if y.is_Rational:
            return self.s_mul(x, 1 / y)
        return self.s_mul(x, sympy.Pow(y, -1, evaluate=False))

    def s_pow(self, x, k: Fraction):
        import sympy
        e = sympy.Rational(k.numerator, k.denominator)
        if x.is_Rational and k.denominator == 1:
            return x ** e
        return x if e == 1 else sympy.Pow(x, e, evaluate=False)

    def s_sin(self, x):
        return self._exact.s_sin(x)

    def s_cos(self, x):
        return self._exact.s_cos(x)


def _to_matrix(G, zero):
    import sympy
    return sympy.ImmutableMatrix([[zero if v is None else v for v in row] for row in G])


def _topological(root: Tensor) -> list[Tensor]:
    """Every node of the graph, each after its arguments."""
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for a in node.args:
            if id(a) not in seen:
                stack.append((a, False))
    return order


def _dependents(order, is_wrt) -> tuple[set, bool]:
    """The ids of the nodes whose value depends on the variable, and whether it occurs."""
    dep, found = set(), False
    for node in order:
        if is_wrt(node):
            dep.add(id(node))
            found = True
        elif any(id(a) in dep for a in node.args):
            dep.add(id(node))
    return dep, found


def substitute(root: Tensor, match, leaf: Tensor) -> Tensor:
    """The graph of ``root`` with every node for which ``match(node)`` holds replaced by
    ``leaf`` (same shape); the rest of the graph is shared, not copied."""
    new: dict[int, Tensor] = {}
    for node in _topological(root):
        if match(node):
            if node.shape != leaf.shape:
                raise ShapeError(f"cannot replace {describe(node)} by {describe(leaf)}")
            new[id(node)] = leaf
            continue
        args = tuple(new.get(id(a), a) for a in node.args)
        if any(x is not y for x, y in zip(args, node.args)):
            new[id(node)] = Tensor(node.op, args, node.params, node.shape, node.rows,
                                   node.cols, node.name)
    return new.get(id(root), root)


def _zeros(m: int, n: int) -> list[list]:
    return [[None] * n for _ in range(m)]


class _Backprop:
    """Reverse mode over a list context: adjoints are lists of rows, None meaning an exact 0
    (a structural zero: nothing flowed there)."""

    deadline = None              # time.monotonic() after which run() gives up (TimeoutError)

    def __init__(self, ctx, values, exact: bool, owner: Gradient):
        self.ctx = ctx
        self.values = values
        self.exact = exact
        self.owner = owner

    # scalar helpers (None is an exact zero)
    def add(self, x, y):
        if x is None:
            return y
        if y is None:
            return x
        return self.ctx.s_add(x, y)

    def acc(self, M, i, j, v):
        if v is not None:
            M[i][j] = v if M[i][j] is None else self.ctx.s_add(M[i][j], v)

    def sign(self, node: Tensor, i: int, j: int, x):
        """The sign of entry (i, j) of ``node`` (value ``x``): -1, 0, 1, or None when it
        holds symbols. Balls that cannot decide ask the exact value."""
        s = self.ctx.s_sign(x)
        if s is not None or self.exact:
            return s
        from .evaluation.exact import ExactContext
        v = self.owner._exact_entry(node, i, j)
        s = ExactContext().s_sign(v)
        if s is None:
            raise CertificationError(f"cannot decide the sign of {describe(node)}"
                                     f"[{node.row_label(i)}, {node.col_label(j)}]")
        return s

    def compare(self, node: Tensor, i: int, j: int, k: int, x, y):
        """The sign of entry (i, j) minus entry (i, k) of ``node``."""
        s = self.ctx.s_sign(self.ctx.s_sub(x, y))
        if s is not None or self.exact:
            return s
        from .evaluation.exact import ExactContext
        d = self.owner._exact_entry(node, i, j) - self.owner._exact_entry(node, i, k)
        return ExactContext().s_sign(d)

    def where(self, node: Tensor, i: int, j: int) -> str:
        return f"{describe(node)}[{node.row_label(i)}, {node.col_label(j)}]"

    def run(self, order, dep, is_wrt, root, shape):
        ctx = self.ctx
        adj: dict[int, list] = {id(root): [[ctx.one]]}
        result = _zeros(*shape)
        import time
        for node in reversed(order):
            key = id(node)
            if key not in dep or key not in adj:
                continue
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise TimeoutError("reverse mode ran out of time")
            command_deadline.check()
            g = adj.pop(key)
            if is_wrt(node):
                for i, row in enumerate(g):
                    for j, v in enumerate(row):
                        self.acc(result, i, j, v)
                continue
            need = [id(a) in dep for a in node.args]
            if not any(need):
                continue
            rule = getattr(self, "b_" + node.op, None)
            if rule is None:
                raise SymattnError(f"no derivative rule for the operation '{node.op}'")
            arg_vals = [self.values[id(a)] for a in node.args]
            grads = rule(node, g, self.values[key], arg_vals, need)
            for a, ga, nd in zip(node.args, grads, need):
                if not nd or ga is None:
                    continue
                cur = adj.get(id(a))
                if cur is None:
                    adj[id(a)] = ga
                else:
                    for i, row in enumerate(ga):
                        for j, v in enumerate(row):
                            self.acc(cur, i, j, v)
        return result

    # -- structure ---------------------------------------------------------------------------
    def b_transpose(self, node, g, out, args, need):
        return [[list(col) for col in zip(*g)]]

    def b_take(self, node, g, out, args, need):
        a = args[0]
        ga = _zeros(len(a), len(a[0]))
        for r, i in enumerate(node.params["rows"]):
            for c, j in enumerate(node.params["cols"]):
                self.acc(ga, i, j, g[r][c])
        return [ga]

    def b_patch(self, node, g, out, args, need):
        ga = [list(r) for r in g]
        for i, j, _ in node.params["cells"]:
            ga[i][j] = None
        return [ga]

    def b_hcat(self, node, g, out, args, need):
        res, c = [], 0
        for a in args:
            w = len(a[0])
            res.append([row[c:c + w] for row in g])
            c += w
        return res

    def b_vcat(self, node, g, out, args, need):
        res, r = [], 0
        for a in args:
            h = len(a)
            res.append([list(row) for row in g[r:r + h]])
            r += h
        return res

    def b_stabilize(self, node, g, out, args, need):
        # the exact value of stabilize(a) is a (softmax is shift invariant; see proofs/)
        return [g]

    # -- elementwise with broadcasting -------------------------------------------------------
    def _binary(self, node, g, out, args, need, da, db):
        a, b = args
        m, n = node.shape
        ar, ac = len(a) > 1, len(a[0]) > 1
        br, bc = len(b) > 1, len(b[0]) > 1
        ga = _zeros(len(a), len(a[0])) if need[0] else None
        gb = _zeros(len(b), len(b[0])) if need[1] else None
        for i in range(m):
            for j in range(n):
                v = g[i][j]
                if v is None or out[i][j] is NEG_INF:
                    continue
                ia, ja = (i if ar else 0), (j if ac else 0)
                ib, jb = (i if br else 0), (j if bc else 0)
                x, y = a[ia][ja], b[ib][jb]
                if ga is not None:
                    self.acc(ga, ia, ja, da(v, x, y, out[i][j]))
                if gb is not None:
                    self.acc(gb, ib, jb, db(v, x, y, out[i][j]))
        return [ga, gb]

    def b_add(self, node, g, out, args, need):
        return self._binary(node, g, out, args, need, lambda v, x, y, o: v, lambda v, x, y, o: v)

    def b_sub(self, node, g, out, args, need):
        s = self.ctx
        return self._binary(node, g, out, args, need, lambda v, x, y, o: v,
                            lambda v, x, y, o: s.s_neg(v))

    def b_mul(self, node, g, out, args, need):
        s = self.ctx
        return self._binary(node, g, out, args, need, lambda v, x, y, o: s.s_mul(v, y),
                            lambda v, x, y, o: s.s_mul(v, x))

    def b_div(self, node, g, out, args, need):
        s = self.ctx
        return self._binary(node, g, out, args, need, lambda v, x, y, o: s.s_div(v, y),
                            lambda v, x, y, o: s.s_neg(s.s_div(s.s_mul(v, o), y)))

    # -- elementwise functions ---------------------------------------------------------------
    def _map(self, node, g, out, x, f):
        res = _zeros(len(g), len(g[0]))
        for i, row in enumerate(g):
            for j, v in enumerate(row):
                if v is None or x[i][j] is NEG_INF:
                    continue
                res[i][j] = f(v, x[i][j], out[i][j], i, j)
        return res

    def b_neg(self, node, g, out, args, need):
        return [self._map(node, g, out, args[0], lambda v, x, o, i, j: self.ctx.s_neg(v))]

    def b_exp(self, node, g, out, args, need):
        return [self._map(node, g, out, args[0], lambda v, x, o, i, j: self.ctx.s_mul(v, o))]

    def b_log(self, node, g, out, args, need):
        return [self._map(node, g, out, args[0], lambda v, x, o, i, j: self.ctx.s_div(v, x))]

    def b_sin(self, node, g, out, args, need):
        s = self.ctx
        return [self._map(node, g, out, args[0], lambda v, x, o, i, j: s.s_mul(v, s.s_cos(x)))]

    def b_cos(self, node, g, out, args, need):
        s = self.ctx
        return [self._map(node, g, out, args[0],
                          lambda v, x, o, i, j: s.s_neg(s.s_mul(v, s.s_sin(x))))]

    def b_sqrt(self, node, g, out, args, need):
        s, arg = self.ctx, node.args[0]

        def f(v, x, o, i, j):
            if self.sign(arg, i, j, x) == 0:
                raise DomainError(f"√ at exactly 0 ({self.where(arg, i, j)}) has no derivative",
                                  hint="a constant row in LayerNorm needs eps > 0")
            return s.s_div(v, s.s_add(o, o))
        return [self._map(node, g, out, args[0], f)]

    def b_pow(self, node, g, out, args, need):
        s, k, arg = self.ctx, node.params["k"], node.args[0]

        def f(v, x, o, i, j):
            if k == 0:
                return None
            if k < 1 and self.sign(arg, i, j, x) == 0:
                raise DomainError(f"x**{k} at x = 0 ({self.where(arg, i, j)}) has no derivative")
            d = s.scalar(k) if k == 1 else s.s_mul(s.scalar(k), s.s_pow(x, k - 1))
            return s.s_mul(v, d)
        return [self._map(node, g, out, args[0], f)]

    def b_relu(self, node, g, out, args, need):
        arg = node.args[0]

        def f(v, x, o, i, j):
            sg = self.sign(arg, i, j, x)
            if sg is None:                                   # symbols: exact context only
                import sympy
                return self.ctx.s_mul(v, sympy.Heaviside(x, 0))
            if sg == 0:
                self.owner.note(f"ReLU at exactly 0 ({self.where(arg, i, j)}): slope 0 taken, "
                                "as PyTorch does (the derivative does not exist there)")
            return v if sg > 0 else None
        return [self._map(node, g, out, args[0], f)]

    def b_abs(self, node, g, out, args, need):
        arg = node.args[0]

        def f(v, x, o, i, j):
            sg = self.sign(arg, i, j, x)
            if sg is None:
                import sympy
                return self.ctx.s_mul(v, sympy.sign(x))
            if sg == 0:
                self.owner.note(f"|x| at exactly 0 ({self.where(arg, i, j)}): slope 0 taken, "
                                "as PyTorch does (the derivative does not exist there)")
                return None
            return v if sg > 0 else self.ctx.s_neg(v)
        return [self._map(node, g, out, args[0], f)]

    def b_finite(self, node, g, out, args, need):
        return [None]

    # -- reductions and products ---------------------------------------------------------------
    def b_row_sum(self, node, g, out, args, need):
        a = args[0]
        ga = _zeros(len(a), len(a[0]))
        for i, row in enumerate(a):
            v = g[i][0]
            if v is None or out[i][0] is NEG_INF:
                continue
            for j in range(len(row)):
                ga[i][j] = v
        return [ga]

    def b_row_max(self, node, g, out, args, need):
        a, arg = args[0], node.args[0]
        ga = _zeros(len(a), len(a[0]))
        for i, row in enumerate(a):
            v = g[i][0]
            if v is None:
                continue
            finite = [j for j, x in enumerate(row) if x is not NEG_INF]
            best = finite[0]
            for j in finite[1:]:
                c = self.compare(arg, i, j, best, row[j], row[best])
                if c is None:
                    raise InputError(f"max of {describe(arg)} row {arg.row_label(i)} holds "
                                     "symbols: its derivative needs numbers")
                if c > 0:
                    best = j
            for j in finite:
                if j != best and self.compare(arg, i, j, best, row[j], row[best]) == 0:
                    raise DomainError(f"the maximum of row {arg.row_label(i)} of {describe(arg)} "
                                      "is tied; it has no derivative there")
            ga[i][best] = v
        return [ga]

    def b_matmul(self, node, g, out, args, need):
        s = self.ctx
        A, B = args
        m, k, n = len(A), len(B), len(B[0])
        gA = gB = None
        if need[0]:
            gA = _zeros(m, k)
            for i in range(m):
                gi = [(j, v) for j, v in enumerate(g[i]) if v is not None]
                if not gi:
                    continue
                for r in range(k):
                    gA[i][r] = s.s_sum([s.s_mul(v, B[r][j]) for j, v in gi])
        if need[1]:
            gB = _zeros(k, n)
            for j in range(n):
                gj = [(i, g[i][j]) for i in range(m) if g[i][j] is not None]
                if not gj:
                    continue
                for r in range(k):
                    gB[r][j] = s.s_sum([s.s_mul(A[i][r], v) for i, v in gj])
        return [gA, gB]


def tree_size(expr) -> int:
    """The number of nodes of ``expr`` written out as a tree (what printing it costs),
    counted in time linear in its shared graph (reverse mode shares subexpressions, so the
    written-out form can be exponentially larger than the object in memory)."""
    memo: dict[int, int] = {}
    stack = [(expr, False)]
    while stack:
        e, ready = stack.pop()
        k = id(e)
        if k in memo:
            continue
        args = getattr(e, "args", ())
        if ready or not args:
            memo[k] = 1 + sum(memo[id(a)] for a in args)
            continue
        stack.append((e, True))
        stack.extend((a, False) for a in args if id(a) not in memo)
    return memo[id(expr)]
