"""One evaluator per computation: the exact, certified and float values of its nodes.

An :class:`Evaluator` memoises every node it evaluates (per context and precision), so a
spec's hundreds of claims share the work. :meth:`Evaluator.rounded` is the certified
rounding of one entry: balls at rising precision, and the exact SymPy value only when a
ball cannot decide (an exact tie, an exact zero reached by cancellation).

Speed: an entry the ball context keeps as an exact rational is rounded exactly at once;
a ball is rounded from its decimal enclosure (``arb.mid_rad_10exp``) in integer
arithmetic, with the exact dyadic ends (:func:`ball_bounds`) as the fallback near a
rounding boundary. Both are certified: every point of the enclosure rounds to the digits
returned.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from ..errors import CertificationError, LimitError
from ..tensor import Tensor, NEG_INF
from . import rounding as R
from .base import run, ListContext

MAX_PREC_BITS = 1 << 17            # ~40,000 digits; raise on purpose
START_PREC = 64
GUARD_DIGITS = 10                  # decimal digits read beyond those rounded to


MAX_EXPONENT_BITS = 1 << 18


def ball_bounds(b) -> tuple[Fraction, Fraction]:
    """The exact ends of an Arb ball (or an exact FLINT rational) as Fractions."""
    if type(b) is _fmpq():                               # an exact rational
        q = Fraction(int(b.p), int(b.q))
        return q, q
    if not b.is_finite():
        raise CertificationError("a ball grew unbounded (division by a value near 0?)")
    m, e = b.mid().man_exp()
    r, f = b.rad().man_exp()
    if max(abs(int(e)), abs(int(f))) > MAX_EXPONENT_BITS:
        raise exponent_limit()
    mid = Fraction(int(m)) * (Fraction(2) ** int(e))
    rad = Fraction(int(r)) * (Fraction(2) ** int(f))
    return mid - rad, mid + rad


def exponent_limit() -> LimitError:
    """The one refusal for a value too large, or too small for the digits asked, to round."""
    return LimitError(f"a value beyond 2^±{MAX_EXPONENT_BITS} in size cannot be rounded to "
                      "the digits asked", hint="raise symattn.evaluation.evaluator."
                      "MAX_EXPONENT_BITS on purpose")


def beyond_exponent_limit(x) -> bool:
    """True when a ball's midpoint or radius lies beyond 2^±MAX_EXPONENT_BITS in size (read
    from the exponents, in time independent of them)."""
    if not x.is_finite():
        return False
    for part in (x.mid(), x.rad()):
        m, e = part.man_exp()
        if m != 0 and abs(int(e) + int(m).bit_length()) > MAX_EXPONENT_BITS:
            return True
    return False


def start_precision(decimals: int | None = None, digits: int | None = None) -> int:
    """The first precision (bits) :meth:`Evaluator.rounded` tries for that many digits."""
    need = (decimals if decimals is not None else digits) or 0
    return max(START_PREC, int(need * 3.33) + 40)


class Evaluator:
    """Evaluates tensors in the exact, ball and float contexts, remembering every node."""

    def __init__(self):
        self._exact_memo: dict = {}
        self._ball_memos: dict[int, dict] = {}
        self._ball_views: dict[int, dict] = {}
        self._float_memos: dict[str, dict] = {}
        self._formal: dict = {}            # id(t) -> formal value of t, or None (not tried)

    def exact(self, t: Tensor):
        return run(_exact_ctx(), t, self._exact_memo)

    def ball(self, t: Tensor, prec: int):
        """The value of ``t`` as balls (``flint.arb``) at ``prec`` bits, −∞ as ``NEG_INF``."""
        views = self._ball_views.setdefault(prec, {})
        v = views.get(id(t))
        if v is None:
            from .ball import precision, to_balls
            raw = self._ball_raw(t, prec)
            with precision(prec):
                v = to_balls(raw)
            views[id(t)] = v
        return v

    def _ball_raw(self, t: Tensor, prec: int):
        """The ball context's own value: balls, and exact ``fmpq`` where still rational."""
        memo = self._ball_memos.get(prec)
        if memo is not None:
            v = memo.get(id(t))
            if v is not None:
                return v
        else:
            memo = self._ball_memos[prec] = {}
        from .ball import BallContext, precision
        from .size import check_resources
        _fmpq()
        check_resources(t, prec)         # refuse what would not fit, before any work
        with precision(prec):
            return run(BallContext(prec, rowwise=True), t, memo)

    def float(self, t: Tensor, dtype: str = "float64"):
        from .floating import FloatContext
        v = run(FloatContext(dtype), t, self._float_memos.setdefault(dtype, {}))
        return v if v.flags.writeable else v.copy()     # a cached constant stays intact

    def rounded(self, t: Tensor, i: int, j: int, *, decimals: int | None = None,
                digits: int | None = None, mode: str = "half-up", scale: int = 1,
                start_prec: int | None = None) -> R.Rounded | None:
        """Entry (i, j) of ``t`` × ``scale``, correctly rounded; None for −∞.

        Give ``decimals`` (places after the point) or ``digits`` (significant digits).
        """
        prec = start_prec or start_precision(decimals, digits)
        if prec > MAX_PREC_BITS:
            return self._rounded_exactly(t, i, j, decimals, digits, mode, scale)
        memo = self._ball_memos.get(prec)
        value = memo.get(id(t)) if memo is not None else None
        if value is None:
            value = self._ball_raw(t, prec)
        x = value[i][j]
        if decimals is None and scale == 1 and type(x) is _ARB:       # the common case
            r = _round_significant_fast(x, digits, mode)
            if r is not None:
                return r
        while True:
            r = round_entry(x, decimals, digits, mode, scale)
            if r is not _UNDECIDED:
                return r
            if type(x) is _ARB and x.is_finite() and x.contains(0) and \
                    self.proven_zero(t, i, j, prec):
                return R.Rounded(0, max(decimals or 0, 0))
            prec *= 4
            if prec > MAX_PREC_BITS:
                if type(x) is _ARB and beyond_exponent_limit(x):
                    raise exponent_limit()
                return self._rounded_exactly(t, i, j, decimals, digits, mode, scale)
            x = self._ball_raw(t, prec)[i][j]

    def rounded_matrix(self, t: Tensor, *, decimals: int | None = None,
                       digits: int | None = None, mode: str = "half-up", scale: int = 1
                       ) -> list[list[R.Rounded | None]]:
        """Every entry of ``t`` rounded as :meth:`rounded` does (one pass, same results)."""
        prec = start_precision(decimals, digits)
        value = self._ball_raw(t, prec)
        out = []
        fast = decimals is None and scale == 1
        for i, row in enumerate(value):
            r = []
            for j, x in enumerate(row):
                v = None
                if fast and type(x) is _ARB:
                    v = _round_significant_fast(x, digits, mode)
                if v is None:
                    v = round_entry(x, decimals, digits, mode, scale)
                if v is _UNDECIDED:
                    v = self.rounded(t, i, j, decimals=decimals, digits=digits, mode=mode,
                                     scale=scale, start_prec=prec * 4)
                r.append(v)
            out.append(r)
        return out

    def proven_zero(self, t: Tensor, i: int, j: int, prec: int) -> bool:
        """True if entry (i, j) of ``t`` is proven exactly 0 without SymPy: the graph is
        evaluated as rational functions of its transcendental values (:class:`FormalContext`),
        with every divisor proven nonzero by its ball at ``prec`` bits. False proves nothing."""
        key = id(t)
        if key not in self._formal:
            self._formal[key] = None
            memo = self._ball_memos.get(prec) or {}
            if id(t) in memo:
                try:
                    self._formal[key] = (t, formal_value(t, memo))
                except Exception:                       # noqa: BLE001 - no proof, nothing more
                    self._formal[key] = None
        got = self._formal[key]
        if got is None:
            return False
        x = got[1][i][j]
        return x is not NEG_INF and x[0].is_zero()

    def _rounded_exactly(self, t, i, j, decimals, digits, mode, scale) -> R.Rounded:
        import sympy
        v = self.exact(t)[i][j] * scale
        if not v.is_Rational:
            if formal_zero(v):
                v = sympy.Integer(0)
            else:
                try:
                    v = sympy.simplify(v)
                except (OverflowError, MemoryError, RecursionError):   # SymPy/mpmath gave up
                    pass
        if v.is_Rational:
            return round_rational(Fraction(int(v.p), int(v.q)), decimals, digits, mode)
        from ..numbers import shown
        raise CertificationError(f"could not certify the digits of '{shown(v)}' within "
                                 f"{MAX_PREC_BITS} bits", hint="is it exactly a rounding tie?")


# -- rounding one entry of the ball context ------------------------------------------------

_UNDECIDED = object()
_FMPQ = _ARB = None


def _fmpq():
    global _FMPQ, _ARB
    if _FMPQ is None:
        from flint import fmpq, arb
        _FMPQ, _ARB = fmpq, arb
    return _FMPQ


def round_entry(x, decimals, digits, mode, scale):
    """The certified rounding of one entry (a ball, an exact rational or −∞); ``None`` for
    −∞, ``_UNDECIDED`` when the ball is too wide to tell."""
    if x is NEG_INF:
        return None
    if type(x) is _FMPQ:                                  # an exact rational
        return round_rational(Fraction(int(x.p), int(x.q)) * scale, decimals, digits, mode)
    if x.is_zero():
        return R.Rounded(0, max(decimals or 0, 0))
    if not x.is_finite():
        return _UNDECIDED
    if type(scale) is int and scale > 0:
        r = _round_decimal_enclosure(x, scale, decimals, digits, mode)
        if r is not None:
            return r
    if beyond_exponent_limit(x):         # huge: every digit needed; tiny: refine the ball
        if decimals is not None:
            raise exponent_limit()
        return _UNDECIDED
    lo, hi = ball_bounds(x)
    lo, hi = lo * scale, hi * scale
    if lo > hi:
        lo, hi = hi, lo
    r = (R.round_interval(lo, hi, decimals, mode) if decimals is not None
         else R.round_significant(lo, hi, digits, mode))
    return _UNDECIDED if r is None else r


def round_rational(q: Fraction, decimals, digits, mode) -> R.Rounded:
    """An exact value rounded; ``tie`` tells that it lay exactly halfway."""
    if q == 0:
        return R.Rounded(0, max(decimals or 0, 0))
    d = decimals if decimals is not None else digits - 1 - R.floor_log10(q)
    r = (R.Rounded(R.round_units(q, d, mode), d) if decimals is not None
         else R.round_point_significant(q, digits, mode))
    return R.Rounded(r.units, r.decimals, tie=R.is_tie(q, d))


_pow10, _ndigits, _units = R.pow10, R.ndigits, R.units


def _significant(v: int, e: int, digits: int, mode: str) -> tuple[int, int]:
    """v × 10^e (v != 0) rounded to ``digits`` significant digits: (units, decimals),
    exactly as :func:`rounding.round_point_significant`."""
    k = _ndigits(-v if v < 0 else v)
    u = _units(v, k - digits, mode)
    d = digits - k - e
    if u == _pow10(digits) or u == -_pow10(digits):      # 9.995 -> 10.0
        return u // 10, d - 1
    return u, d


def _round_significant_fast(x, digits: int, mode: str):
    """A ball rounded to ``digits`` significant digits from Arb's decimal enclosure
    [m ± r]·10^e, in integer arithmetic; None when that cannot decide (the caller then
    takes the general path). Every rounding mode is symmetric under negation, so the
    magnitudes are rounded and the sign put back."""
    n = digits + GUARD_DIGITS
    P = R._SMALL_POW10
    if len(P) <= n + 8:
        return None
    m, r, e = x.mid_rad_10exp(n)
    m = int(m)
    r = int(r)
    if r == 0:                       # an exact ball: the general path reports exact ties
        return None
    if m > r:
        lo, hi, neg = m - r, m + r, False
    elif m < -r:
        lo, hi, neg = -m - r, r - m, True
    else:
        return None                                        # 0 is in the enclosure
    k = ((hi.bit_length() - 1) * 1233) >> 12               # <= floor(log10 hi)
    if k + 1 >= len(P):
        return None
    while hi >= P[k + 1]:
        k += 1
        if k + 1 >= len(P):
            return None
    k += 1                                                 # the digits of hi
    s = k - digits
    if s <= 0 or lo < P[k - 1]:                            # short, or across a power of ten
        return None
    p = P[s]
    q1, r1 = divmod(lo, p)
    q2, r2 = divmod(hi, p)
    if mode == "half-even":
        if 2 * r1 > p or (2 * r1 == p and q1 & 1):
            q1 += 1
        if 2 * r2 > p or (2 * r2 == p and q2 & 1):
            q2 += 1
    elif mode == "half-up":
        if 2 * r1 >= p:
            q1 += 1
        if 2 * r2 >= p:
            q2 += 1
    if q1 != q2:
        return None
    d = digits - k - int(e)
    if q1 == P[digits]:                                    # 9.995 -> 10.0
        q1, d = q1 // 10, d - 1
    return R.Rounded(-q1 if neg else q1, d)


def _round_decimal_enclosure(x, scale: int, decimals, digits, mode):
    """Round from Arb's decimal enclosure [m ± r]·10^e of ``x``; None if its ends disagree."""
    if decimals is None:
        m, r, e = x.mid_rad_10exp(digits + GUARD_DIGITS)
        m, r, e = int(m), int(r), int(e)
        if r == 0:                   # an exact ball: the general path reports exact ties
            return None
        lo, hi = (m - r) * scale, (m + r) * scale
        if lo <= 0 <= hi:
            return None
        a, b = _significant(lo, e, digits, mode), _significant(hi, e, digits, mode)
        return R.Rounded(*a) if a == b else None
    m, r, e = x.mid_rad_10exp(max(decimals, 0) + GUARD_DIGITS)
    m, r, e = int(m), int(r), int(e)
    if r == 0 or e > -decimals - 2:          # exact (ties), or too coarse: the exact ends
        return None
    s = -(e + decimals)
    a, b = _units((m - r) * scale, s, mode), _units((m + r) * scale, s, mode)
    return R.Rounded(a, decimals) if a == b else None


# -- exact zeros ---------------------------------------------------------------------------

FORMAL_MAX_ATOMS = 512             # transcendental entries a formal proof may name
FORMAL_MAX_ENTRIES = 20_000        # entries of all the nodes of a graph it evaluates
_ATOM_OPS = ("exp", "log", "sqrt", "sin", "cos", "abs", "relu", "pow", "row_max")


class _GiveUp(Exception):
    pass


def formal_value(t: Tensor, balls: dict):
    """The value of ``t`` as rational functions (numerator, denominator) over Q of its
    transcendental values, or raise when the graph is too large or not covered.

    ``balls`` is the ball context's memo (id(node) -> value) of a precision at which all
    of ``t`` was evaluated: it proves the divisors nonzero."""
    seen, stack, atoms, entries = set(), [t], 0, 0
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        m, k = n.shape
        entries += m * k
        if n.op in _ATOM_OPS:
            atoms += m * k
        if atoms > FORMAL_MAX_ATOMS or entries > FORMAL_MAX_ENTRIES:
            raise _GiveUp("graph too large for a formal proof")
        stack.extend(n.args)
    return run(FormalContext(max(atoms, 1), balls), t, {})


class FormalContext(ListContext):
    """Exact values as rational functions over Q of independent unknowns, one for each
    distinct transcendental value (exp, log, root, sin, cos, |·|, ReLU, max of a value
    that is not a rational constant).

    A value that is 0 as a rational function is 0 whatever the unknowns are, so it is 0
    for the actual ones, provided every division was by a nonzero value: each divisor is
    proven nonzero by its ball. Nothing is decided from a value that is not 0 formally.
    """

    name = "formal"

    def __init__(self, nvars: int, balls: dict):
        import flint
        self._fmpq = _fmpq()                 # also sets _ARB for the divisor checks
        self.ctx = flint.fmpq_mpoly_ctx.get(("y", nvars), "degrevlex")
        self.gens = self.ctx.gens()
        self.balls = balls
        self.atoms: dict = {}
        one = self.ctx.constant(1)
        self.zero = (self.ctx.constant(0), one)
        self.one = (one, one)

    # -- rational functions --------------------------------------------------------
    def _const(self, q):
        return (self.ctx.constant(q), self.one[1])

    def _norm(self, n, d):
        if n.is_zero():
            return self.zero
        g = n.gcd(d)
        if not g.is_one():
            n, d = n / g, d / g
        lc = d.leading_coefficient()
        if lc != 1:
            n, d = n * (1 / lc), d * (1 / lc)
        return (n, d)

    def _constant(self, x):
        """The rational constant x is, or None."""
        n, d = x
        if n.is_constant() and d.is_constant():
            return n.leading_coefficient() / d.leading_coefficient() if not n.is_zero() \
                else self._fmpq(0)
        return None

    def _atom(self, *key):
        k = tuple(v if not isinstance(v, tuple) else (v[0].str(), v[1].str()) for v in key)
        i = self.atoms.get(k)
        if i is None:
            i = self.atoms[k] = len(self.atoms)
            if i >= len(self.gens):
                raise _GiveUp("more unknowns than counted")
        return (self.gens[i], self.one[1])

    def scalar(self, x):
        from fractions import Fraction
        if isinstance(x, Fraction):
            return self._const(self._fmpq(x.numerator, x.denominator))
        if getattr(x, "is_Rational", False):
            return self._const(self._fmpq(int(x.p), int(x.q)))
        raise _GiveUp("a symbolic constant")

    def is_exact_zero(self, x) -> bool:
        return x[0].is_zero()

    def s_add(self, x, y):
        if x[1] == y[1]:
            return self._norm(x[0] + y[0], x[1])
        return self._norm(x[0] * y[1] + y[0] * x[1], x[1] * y[1])

    def s_sub(self, x, y):
        return self.s_add(x, self.s_neg(y))

    def s_neg(self, x):
        return (-x[0], x[1])

    def s_mul(self, x, y):
        return self._norm(x[0] * y[0], x[1] * y[1])

    def s_div(self, x, y):
        if y[0].is_zero():
            raise _GiveUp("formal division by 0")
        return self._norm(x[0] * y[1], x[1] * y[0])

    def s_sum(self, xs):
        total = xs[0]
        for x in xs[1:]:
            total = self.s_add(total, x)
        return total

    def s_sign(self, x):
        c = self._constant(x)
        if c is None:
            return None
        return 1 if c > 0 else -1 if c < 0 else 0

    def _unary(self, name, x, on_const):
        c = self._constant(x)
        if c is not None:
            v = on_const(c)
            if v is not None:
                return self._const(v)
        return self._atom(name, x)

    def s_exp(self, x): return self._unary("exp", x, lambda c: 1 if c == 0 else None)
    def s_log(self, x): return self._unary("log", x, lambda c: 0 if c == 1 else None)
    def s_sin(self, x): return self._unary("sin", x, lambda c: 0 if c == 0 else None)
    def s_cos(self, x): return self._unary("cos", x, lambda c: 1 if c == 0 else None)
    def s_abs(self, x): return self._unary("abs", x, lambda c: abs(c))
    def s_relu(self, x): return self._unary("relu", x, lambda c: c if c > 0 else 0)

    def s_sqrt(self, x):
        def root(c):
            p, q = c.p, c.q
            if p >= 0 and p.is_square() and q.is_square():
                return self._fmpq(p.isqrt(), q.isqrt())
            return None
        return self._unary("sqrt", x, root)

    def s_pow(self, x, k):
        if k.denominator != 1:
            return self._atom("pow", str(k), x)
        e = int(k)
        n, d = x
        if e >= 0:
            return self._norm(n ** e, d ** e)
        if n.is_zero():
            raise _GiveUp("formal division by 0")
        return self._norm(d ** -e, n ** -e)

    def s_max(self, xs):
        cs = [self._constant(x) for x in xs]
        if all(c is not None for c in cs):
            return self._const(max(cs))
        return self._atom("max", *xs)

    # -- divisions: the divisor's ball must exclude 0 --------------------------------
    def _nonzero(self, node):
        b = self.balls.get(id(node))
        if b is None:
            raise _GiveUp("no ball for a divisor")
        for row in b:
            for y in row:
                if y is NEG_INF:
                    raise _GiveUp("a divisor is −∞")
                if type(y) is _FMPQ:
                    if y == 0:
                        raise _GiveUp("a divisor is 0")
                elif not y.is_finite() or y.contains(0):
                    raise _GiveUp("a divisor is not proven nonzero")

    def op_div(self, node, a, b):
        self._nonzero(node.args[1])
        return super().op_div(node, a, b)

    def op_pow(self, node, a):
        if node.params["k"] < 0:
            self._nonzero(node.args[0])
        return super().op_pow(node, a)


def formal_zero(v) -> bool:
    """True if the SymPy number ``v`` is 0 as a rational function of its transcendental
    parts (each exp, log, root, ... taken as an independent unknown).

    An identity that holds for every value of the unknowns holds for theirs, so True is
    a proof that ``v`` is exactly 0 (``v`` was evaluated, so no denominator vanishes);
    False proves nothing.
    """
    import sympy
    atoms: dict = {}
    seen: dict = {}

    def walk(e):
        got = seen.get(e)
        if got is not None:
            return got
        if e.is_Rational or e.is_Symbol:
            out = e
        elif e.is_Add:
            out = sympy.Add(*[walk(a) for a in e.args])
        elif e.is_Mul:
            out = sympy.Mul(*[walk(a) for a in e.args])
        elif e.is_Pow and e.exp.is_Integer:
            out = sympy.Pow(walk(e.base), e.exp)
        else:
            out = atoms.get(e)
            if out is None:
                out = atoms[e] = sympy.Dummy()
        seen[e] = out
        return out

    try:
        return sympy.cancel(walk(v)) == 0
    except (sympy.PolynomialError, RecursionError, TypeError, ValueError):
        return False


_EXACT_CTX = None


def _exact_ctx():
    global _EXACT_CTX
    if _EXACT_CTX is None:
        from .exact import ExactContext
        _EXACT_CTX = ExactContext()
    return _EXACT_CTX
