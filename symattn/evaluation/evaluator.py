"""One evaluator per computation: the exact, certified and float values of its nodes.

An :class:`Evaluator` memoises every node it evaluates (per context and precision), so a
spec's hundreds of claims share the work. :meth:`Evaluator.rounded` is the certified
rounding of one entry: balls at rising precision (:mod:`~symattn.evaluation.certified`),
a formal proof of an exact zero (:mod:`~symattn.evaluation.formal`), and the exact SymPy
value only when neither decides (an exact tie, a zero the formal proof does not reach).
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import CertificationError
from ..tensor import Tensor, NEG_INF
from . import rounding as R
from .base import run
from .certified import (MAX_PREC_BITS, MAX_EXPONENT_BITS, START_PREC, GUARD_DIGITS,  # noqa: F401
                        ball_bounds, exponent_limit, beyond_exponent_limit, start_precision,
                        round_entry, round_rational, _round_significant_fast,
                        _round_decimal_enclosure, _UNDECIDED, _fmpq)
from . import certified as _C
from .formal import (FORMAL_MAX_ATOMS, FORMAL_MAX_ENTRIES, FormalContext,  # noqa: F401
                     formal_value, formal_zero)


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
        from .rowwise import fused_attention
        from .size import check_resources
        _fmpq()
        check_resources(t, prec)         # refuse what would not fit, before any work
        with precision(prec):
            return run(BallContext(prec, fuse=fused_attention), t, memo)

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
        ARB = _C._ARB
        if decimals is None and scale == 1 and type(x) is ARB:       # the common case
            r = _round_significant_fast(x, digits, mode)
            if r is not None:
                return r
        while True:
            r = round_entry(x, decimals, digits, mode, scale)
            if r is not _UNDECIDED:
                return r
            if type(x) is ARB and x.is_finite() and x.contains(0) and \
                    self.proven_zero(t, i, j, prec):
                return R.Rounded(0, max(decimals or 0, 0))
            prec *= 4
            if prec > MAX_PREC_BITS:
                if type(x) is ARB and beyond_exponent_limit(x):
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
        ARB = _C._ARB
        for i, row in enumerate(value):
            r = []
            for j, x in enumerate(row):
                v = None
                if fast and type(x) is ARB:
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

    def equals(self, t: Tensor, i: int, j: int, q: Fraction) -> bool:
        """Is entry (i, j) of ``t`` exactly the rational ``q`` (a printed fraction)? Yes
        needs a proof: the exact value minus ``q`` is 0 for SymPy, or as a rational function
        of its transcendental parts; no, a ball (at rising precision) that leaves ``q`` out.
        Neither: a CertificationError (never a guess)."""
        import sympy
        for prec in (64, 256, 1024, 4096):
            x = self.ball(t, prec)[i][j]
            if x is NEG_INF or not x.is_finite():
                return False
            gap = x * q.denominator - q.numerator
            if not gap.contains(0):
                return False
            if gap.is_exact() and gap.is_zero():          # 1/2 and an exact 0.5
                return True
            if prec == 64:
                d = self.exact(t)[i][j] - sympy.Rational(q.numerator, q.denominator)
                if d == 0 or formal_zero(d):
                    return True
        raise CertificationError(f"could not decide whether an entry is exactly {q}",
                                 hint="print it as a decimal, or check it by hand")

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


_EXACT_CTX = None


def _exact_ctx():
    global _EXACT_CTX
    if _EXACT_CTX is None:
        from .exact import ExactContext
        _EXACT_CTX = ExactContext()
    return _EXACT_CTX
