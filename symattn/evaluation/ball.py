"""The certified context: Arb ball arithmetic (python-flint) at an explicit precision.

Every value is a ball that contains the exact value; digits read from a ball whose two
ends agree are certified. Matrix products go to ``arb_mat`` (C); the rest is the shared
list algorithm of :class:`~symattn.evaluation.base.ListContext`, with vectorised fast
paths for the hot operations (no −∞ to look after, no exact zero to refuse).

Exact rationals stay exact: an entry that the graph computes from rational inputs by
+ − × ÷, integer powers, ReLU, max and square roots of perfect squares is an ``fmpq``
(FLINT's rational), and a product of two rational matrices is done exactly by
``fmpq_mat``. Only exp, log, sin, cos, irrational roots and powers make a ball. So the
projections x·W and the scores Q·Kᵀ cost exact integer arithmetic (cheaper than balls),
an exact zero reached by cancellation of rationals is exactly 0, and a rational entry is
rounded exactly. :meth:`Evaluator.ball <symattn.evaluation.evaluator.Evaluator.ball>`
hands out balls only (``arb``), so callers see the same types as before.
"""

from __future__ import annotations

import contextlib
import functools
from fractions import Fraction

import flint
from flint import arb, arb_mat, fmpq, fmpq_mat, fmpz_mat

from ..errors import InputError, CertificationError
from ..tensor import NEG_INF, Tensor
from ..scaled import Scaled
from ..primitives import PRIMITIVES, REFUSE
from .base import ListContext, run
from .products import scaled_operand, block_rows

Q0 = fmpq(0)
Q1 = fmpq(1)

# A rational entry taller than this (numerator and denominator bits) becomes a ball: exact
# arithmetic stays cheaper than balls only while the numbers stay small.
MAX_RATIONAL_BITS = 4096


@contextlib.contextmanager
def precision(bits: int):
    """Run with Arb's working precision set to ``bits`` (restored afterwards)."""
    old = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = old


def fraction_to_arb(q: Fraction) -> arb:
    return arb(fmpq(q.numerator, q.denominator))


def to_arb(x):
    """A ball for an entry of the context (an ``fmpq`` becomes a ball at the current precision)."""
    return arb(x) if type(x) is fmpq else x


def to_balls(value) -> list:
    """A matrix of the context as balls (and −∞), as :meth:`Evaluator.ball` hands it out."""
    return [[x if x is NEG_INF else (arb(x) if type(x) is fmpq else x) for x in row]
            for row in value]


def is_zero(x) -> bool:
    """Exactly zero (a ball of radius 0 at 0, or the rational 0).

    ``fmpq.is_zero()`` is not to be trusted (python-flint 0.9 answers False for 0).
    """
    return x == 0 if type(x) is fmpq else x.is_zero()


def _expand(a, m: int, n: int):
    """``a`` broadcast to m×n (rows shared, never written to)."""
    if len(a[0]) != n:
        a = [r * n for r in a]
    if len(a) != m:
        a = a * m
    return a


def _has_neg_inf(a) -> bool:
    for row in a:
        for x in row:
            if x is NEG_INF:
                return True
    return False


def _all_rational(a) -> bool:
    for row in a:
        for x in row:
            if type(x) is not fmpq:
                return False
    return True


def _tall(x) -> bool:
    return x.height_bits() > MAX_RATIONAL_BITS


def _any_tall(rows) -> bool:
    for row in rows:
        for x in row:
            if x.height_bits() > MAX_RATIONAL_BITS:
                return True
    return False


def _capped(x):
    """A product or quotient: a rational grown too tall becomes a ball."""
    if type(x) is fmpq and x.height_bits() > MAX_RATIONAL_BITS:
        return arb(x)
    return x


def _cap(rows):
    for row in rows:
        for j, x in enumerate(row):
            if type(x) is fmpq and x.height_bits() > MAX_RATIONAL_BITS:
                row[j] = arb(x)
    return rows


class BallContext(ListContext):
    """Balls (and exact rationals) at ``prec`` bits; evaluation must run inside
    ``precision(prec)``."""

    name = "ball"
    zero = Q0
    one = Q1

    def __init__(self, prec: int, fuse=None):
        self.prec = prec
        if fuse is not None:  # large attention row by row (not for gradients: they need A)
            self.fuse = lambda node, memo: (scaled_product(self, node, memo)
                                            or fuse(self, node, memo))

    def scalar(self, x):
        if type(x) is Fraction:
            return fmpq(x.numerator, x.denominator)
        if isinstance(x, Fraction):
            return fmpq(int(x.numerator), int(x.denominator))
        if getattr(x, "is_Rational", False):
            return fmpq(int(x.p), int(x.q))
        return sympy_to_arb(x)

    def is_exact_zero(self, x) -> bool:
        return is_zero(x)

    # -- scalars: exact while rational --------------------------------------------
    def s_add(self, x, y): return x + y
    def s_sub(self, x, y): return x - y
    def s_mul(self, x, y): return _capped(x * y)
    def s_div(self, x, y): return _capped(x / y)
    def s_neg(self, x): return -x

    def resolve(self, p):
        """Arb's function of the declared name (``arb.exp``) or the declared rule on balls;
        a rational entry stays an exact ``fmpq`` where the declaration folds it."""
        rule = p.ball
        if p.arity == 0:
            make = getattr(arb, rule)
            return lambda: make()
        g = getattr(arb, rule) if isinstance(rule, str) else functools.partial(rule, self)
        fold = p.fold
        if fold is None:
            return lambda x: g(arb(x) if type(x) is fmpq else x)
        if type(fold) is tuple:                  # a value at one point: exp(0) = 1
            point, value = fmpq(fold[0]), fmpq(fold[1])

            def f(x):
                if type(x) is fmpq:
                    return value if x == point else g(arb(x))
                return g(x)
            return f

        def f(x):
            if type(x) is fmpq:
                v = fold(x)
                if type(v) is fmpq:
                    return v
                return g(arb(x)) if v is None else Q0 if v == 0 else fmpq(v)
            return g(x)
        return f

    def s_pow(self, x, k: Fraction):
        if k.denominator == 1:
            if type(x) is fmpq:
                if x != 0 and x.height_bits() * abs(k.numerator) <= MAX_RATIONAL_BITS:
                    return x ** int(k)
                x = arb(x)
            return x ** int(k)
        return to_arb(x) ** fraction_to_arb(k)

    def s_sum(self, xs):
        return sum(xs[1:], xs[0])

    def s_sign(self, x):
        if is_zero(x):
            return 0
        if x > 0:
            return 1
        if x < 0:
            return -1
        return None

    def s_max(self, xs):
        if all(type(x) is fmpq for x in xs):
            return max(xs)
        best = to_arb(xs[0])
        for x in xs[1:]:
            best = best.max(to_arb(x))
        return best

    # -- leaves --------------------------------------------------------------------
    def op_const(self, node):
        entries = node.params["entries"]
        if type(entries) is Scaled:
            return scaled_fmpq(entries)
        out = []
        prev = c = None
        for row in node.params["entries"]:
            r = []
            for v in row:
                if v is not prev:            # a mask repeats one 0 and one −∞ object
                    prev = v
                    c = (fmpq(*v.as_integer_ratio()) if type(v) is Fraction else
                         NEG_INF if v is NEG_INF else self.scalar(v))
                r.append(c)
            out.append(r)
        return out

    # -- elementwise fast paths (the general algorithm handles −∞ and errors) ------
    def op_add(self, node, a, b):
        m, n = node.shape
        a, b = _expand(a, m, n), _expand(b, m, n)
        return [[NEG_INF if x is NEG_INF or y is NEG_INF else x + y for x, y in zip(ra, rb)]
                for ra, rb in zip(a, b)]

    def op_sub(self, node, a, b):
        if _has_neg_inf(b):
            return super().op_sub(node, a, b)
        m, n = node.shape
        a, b = _expand(a, m, n), _expand(b, m, n)
        return [[NEG_INF if x is NEG_INF else x - y for x, y in zip(ra, rb)]
                for ra, rb in zip(a, b)]

    def op_mul(self, node, a, b):
        if _has_neg_inf(a) or _has_neg_inf(b):
            return super().op_mul(node, a, b)
        m, n = node.shape
        if len(b) == 1 and len(b[0]) == 1:                      # by a scalar
            s = b[0][0]
            return _cap([[x * s for x in r] for r in _expand(a, m, n)])
        a, b = _expand(a, m, n), _expand(b, m, n)
        return _cap([[x * y for x, y in zip(ra, rb)] for ra, rb in zip(a, b)])

    def op_div(self, node, a, b):
        if _has_neg_inf(a) or _has_neg_inf(b) or any(is_zero(y) for r in b for y in r):
            return super().op_div(node, a, b)
        m, n = node.shape
        if len(b[0]) == 1 and len(b) == m:                      # by a column (softmax, norm)
            return _cap([[x / y for x in ra] for ra, (y,) in zip(_expand(a, m, n), b)])
        a, b = _expand(a, m, n), _expand(b, m, n)
        return _cap([[x / y for x, y in zip(ra, rb)] for ra, rb in zip(a, b)])

    def op_neg(self, node, a):
        if _has_neg_inf(a):
            return super().op_neg(node, a)
        return [[-x for x in r] for r in a]

    def op_function(self, node, a):
        p = PRIMITIVES[node.op]
        if p.domain is None:
            f = self.function(p)
            if p.neg_inf is not REFUSE:
                z = self.scalar(p.neg_inf)
                return [[z if x is NEG_INF else f(x) for x in r] for r in a]
            if not _has_neg_inf(a):
                return [[f(x) for x in r] for r in a]
        return super().op_function(node, a)

    def op_row_sum(self, node, a):
        out = []
        for row in a:
            if _has_neg_inf((row,)):
                out.append([NEG_INF])
            else:
                out.append([sum(row[1:], row[0])])
        return out

    def op_matmul(self, node, a, b):
        if _all_rational(a) and _all_rational(b):          # (so no −∞ either)
            out = (fmpq_mat(a) * fmpq_mat(b)).tolist()
            return arb_mat(out).tolist() if _any_tall(out) else out
        if _has_neg_inf(a) or _has_neg_inf(b):
            self._no_mask(node, a, b)
        return (arb_mat(a) * arb_mat(b)).tolist()


def scaled_product(ctx, node: Tensor, memo: dict):
    """``node``'s value (x·W, W a large ``Scaled``) block by block, or None when it is not
    such a product or x holds −∞ (the general path refuses that with its message)."""
    if not scaled_operand(node):
        return None
    a = run(ctx, node.args[0], memo)
    if _has_neg_inf(a):
        return None
    w = node.args[1].params["entries"]
    rational = _all_rational(a)
    step, acc = block_rows(w.shape[1]), None
    for k in range(0, w.shape[0], step):
        z = fmpz_mat(w.num[k:k + step].tolist())
        part = [r[k:k + step] for r in a]
        p = fmpq_mat(part) * z if rational else arb_mat(part) * arb_mat(z)
        acc = p if acc is None else acc + p
    f, d = w.scale()
    out = (acc * fmpq(f, d)).tolist()
    return arb_mat(out).tolist() if rational and _any_tall(out) else out


LOOKUP = 1 << 16           # a numerator range this small is read through a table of fmpq


def scaled_fmpq(s: Scaled) -> list:
    """A ``Scaled`` matrix as rows of ``fmpq`` (equal entries share one object)."""
    if not s.common:
        return [[fmpq(q.numerator, q.denominator) for q in row] for row in s]
    f, d = s.scale()
    lo, hi = int(s.num.min()), int(s.num.max())
    if hi - lo < min(LOOKUP, s.num.size):
        table = [fmpq(k * f, d) for k in range(lo, hi + 1)]
        return [list(map(table.__getitem__, r)) for r in (s.num.astype("int64") - lo).tolist()]
    return [[fmpq(k * f, d) for k in r] for r in s.num.tolist()]


def sympy_to_arb(expr) -> arb:
    """A ball containing a SymPy number (rationals, + × ÷, powers, exp, log, sqrt, sin, cos, π, e)."""
    import sympy
    if expr.is_Rational:
        return arb(fmpq(int(expr.p), int(expr.q)))
    if _SYMPY_FUNCTIONS is None:
        _sympy_functions()
    if not expr.args:                          # a leaf: π is declared (constants.py)
        p = _SYMPY_CONSTANTS.get(expr)
        if p is not None:
            return getattr(arb, p.ball)()
    if expr is sympy.E:
        return arb(1).exp()
    if expr.is_Add:
        total = arb(0)
        for a in expr.args:
            total += sympy_to_arb(a)
        return total
    if expr.is_Mul:
        total = arb(1)
        for a in expr.args:
            total *= sympy_to_arb(a)
        return total
    if expr.is_Pow:
        base, e = expr.args
        b = sympy_to_arb(base)
        if e.is_Integer:
            return b ** int(e)
        return b ** sympy_to_arb(e)
    p = _SYMPY_FUNCTIONS.get(type(expr))
    if p is not None and len(expr.args) == 1:
        return getattr(sympy_to_arb(expr.args[0]), p.ball)()
    if expr.is_Symbol or expr.free_symbols:
        raise InputError(f"'{expr}' is a symbol: certified digits need numbers",
                         hint="substitute values, or ask for the exact form")
    raise CertificationError(f"cannot enclose {expr} in a ball")


_SYMPY_FUNCTIONS = _SYMPY_CONSTANTS = None


def _sympy_functions():
    """SymPy's classes of the declared functions and constants (rules named as strings in
    both contexts), to enclose their values."""
    global _SYMPY_FUNCTIONS, _SYMPY_CONSTANTS
    import sympy
    fs, cs = {}, {}
    for p in PRIMITIVES.values():
        if isinstance(p.exact, str) and isinstance(p.ball, str):
            if p.arity == 0:
                cs[getattr(sympy, p.exact)] = p
            elif isinstance(getattr(sympy, p.exact), type):
                fs[getattr(sympy, p.exact)] = p
    _SYMPY_FUNCTIONS, _SYMPY_CONSTANTS = fs, cs
