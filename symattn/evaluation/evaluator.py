"""One evaluator per computation: the exact, certified and float values of its nodes.

An :class:`Evaluator` memoises every node it evaluates (per context and precision), so a
spec's hundreds of claims share the work. :meth:`Evaluator.rounded` is the certified
rounding of one entry: balls at rising precision, and the exact SymPy value only when a
ball cannot decide (an exact tie, an exact zero reached by cancellation).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from ..errors import CertificationError, LimitError
from ..tensor import Tensor, NEG_INF
from . import rounding as R
from .base import run

MAX_PREC_BITS = 1 << 17            # ~40,000 digits; raise on purpose
START_PREC = 64


def ball_bounds(b) -> tuple[Fraction, Fraction]:
    """The exact ends of an Arb ball as Fractions."""
    if not b.is_finite():
        raise CertificationError("a ball grew unbounded (division by a value near 0?)")
    m, e = b.mid().man_exp()
    r, f = b.rad().man_exp()
    mid = Fraction(int(m)) * (Fraction(2) ** int(e))
    rad = Fraction(int(r)) * (Fraction(2) ** int(f))
    return mid - rad, mid + rad


class Evaluator:
    """Evaluates tensors in the exact, ball and float contexts, remembering every node."""

    def __init__(self):
        self._exact_memo: dict = {}
        self._ball_memos: dict[int, dict] = {}
        self._float_memos: dict[str, dict] = {}

    def exact(self, t: Tensor):
        return run(_exact_ctx(), t, self._exact_memo)

    def ball(self, t: Tensor, prec: int):
        from .ball import BallContext, precision
        memo = self._ball_memos.setdefault(prec, {})
        with precision(prec):
            return run(BallContext(prec), t, memo)

    def float(self, t: Tensor, dtype: str = "float64"):
        from .floating import FloatContext
        return run(FloatContext(dtype), t, self._float_memos.setdefault(dtype, {}))

    def rounded(self, t: Tensor, i: int, j: int, *, decimals: int | None = None,
                digits: int | None = None, mode: str = "half-up", scale: int = 1,
                start_prec: int | None = None) -> R.Rounded | None:
        """Entry (i, j) of ``t`` × ``scale``, correctly rounded; None for −∞.

        Give ``decimals`` (places after the point) or ``digits`` (significant digits).
        """
        need = (decimals if decimals is not None else digits) or 0
        prec = start_prec or max(START_PREC, int(need * 3.33) + 40)
        while prec <= MAX_PREC_BITS:
            x = self.ball(t, prec)[i][j]
            if x is NEG_INF:
                return None
            if x.is_zero():
                return R.Rounded(0, max(decimals or 0, 0))
            if x.is_finite():
                lo, hi = ball_bounds(x)
                lo, hi = lo * scale, hi * scale
                r = (R.round_interval(lo, hi, decimals, mode) if decimals is not None
                     else R.round_significant(lo, hi, digits, mode))
                if r is not None:
                    return r
            prec *= 4
        return self._rounded_exactly(t, i, j, decimals, digits, mode, scale)

    def _rounded_exactly(self, t, i, j, decimals, digits, mode, scale) -> R.Rounded:
        import sympy
        v = self.exact(t)[i][j]
        v = sympy.simplify(v * scale)
        if v.is_Rational:
            q = Fraction(int(v.p), int(v.q))
            if q == 0:
                return R.Rounded(0, max(decimals or 0, 0))
            d = decimals if decimals is not None else digits - 1 - R.floor_log10(q)
            r = (R.Rounded(R.round_units(q, d, mode), d) if decimals is not None
                 else R.round_point_significant(q, digits, mode))
            return R.Rounded(r.units, r.decimals, tie=R.is_tie(q, d))
        raise CertificationError(f"could not certify the digits of {v} within "
                                 f"{MAX_PREC_BITS} bits", hint="is it exactly a rounding tie?")


_EXACT_CTX = None


def _exact_ctx():
    global _EXACT_CTX
    if _EXACT_CTX is None:
        from .exact import ExactContext
        _EXACT_CTX = ExactContext()
    return _EXACT_CTX
