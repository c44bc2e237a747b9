"""Certified digits of a gradient: reverse mode in balls at rising precision, the formal
proof of exact zeros (:class:`~symattn.evaluation.formal.FormalContext`), and the exact
value for what balls cannot decide (exact zeros, ties). Each entry is rounded by the
evaluation's own certified rounding (:func:`~symattn.evaluation.certified.round_entry`)
within its limits (:data:`~symattn.evaluation.certified.MAX_PREC_BITS`)."""

from __future__ import annotations

from fractions import Fraction

from ..errors import InputError, CertificationError, LimitError, SymattnError
from ..evaluation import MAX_DIGITS, rounding as R
from ..evaluation.base import run
from ..evaluation.certified import (MAX_PREC_BITS, round_entry, start_precision, _UNDECIDED,
                                    _fmpq)
from ..evaluation import formal as F
from ..primitives import ATOMS
from .closed import MAX_CLOSED_FORM, estimated_size, exact_rational
from .reverse import Backprop

EXACT_FALLBACK_BITS = 4096         # from this precision on, undecided digits ask the exact value


def certified_digits(g, digits: int, mode: str) -> list[list[str]]:
    """The entries of the Gradient ``g`` correctly rounded to ``digits`` significant digits."""
    if not isinstance(digits, int) or isinstance(digits, bool) or digits < 1:
        raise InputError(f"digits={digits!r}: give a positive whole number")
    if digits > MAX_DIGITS:
        raise LimitError(f"digits={digits} is more than {MAX_DIGITS}")
    R.check_mode(mode)
    _fmpq()                             # round_entry tells exact rationals by FLINT's type
    m, n = g.shape
    out: list[list[str | None]] = [[None] * n for _ in range(m)]
    prec = start_precision(digits=digits)
    tried_formal = g.method == "symbolic"
    while True:
        raw = g._raw(prec)
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
            _settle_formally(g, zeros, out, digits, mode)
            pending = [(i, j) for i, j in pending if out[i][j] is None]
            if not pending:
                return out
        if prec >= EXACT_FALLBACK_BITS:
            _settle_exactly(g, pending, out, digits, mode)
            if all(out[i][j] is not None for i, j in pending):
                return out
        prec *= 4
        if prec > MAX_PREC_BITS:
            i, j = pending[0]
            raise CertificationError(f"could not certify ∂/∂[{_label(g.rows, i)}, "
                                     f"{_label(g.cols, j)}] within {MAX_PREC_BITS} bits",
                                     hint="is it exactly 0 or exactly a rounding tie?")


def _settle_formally(g, pending, out, digits, mode):
    """Reverse mode over rational functions of the transcendental values (the engine's
    FormalContext: each exp, √, log ... an independent unknown). An entry that is a
    constant there is that rational number exactly (0 included): a proof, since every
    divisor is a value proven nonzero. Entries it cannot settle stay pending."""
    atoms = entries = 0
    for node in g._order:
        k = node.shape[0] * node.shape[1]
        entries += k
        if node.op in ATOMS:
            atoms += k
    if atoms > F.FORMAL_MAX_ATOMS or entries > F.FORMAL_MAX_ENTRIES:
        return
    try:
        ctx = F.FormalContext(2 * atoms + 1, g._ball_memo,   # backward adds sin/cos/pow atoms
                              max_terms=F.FORMAL_MAX_TERMS)
        values: dict = {}
        run(ctx, g.loss, values)
        bp = Backprop(ctx, values, False, g)
        G = bp.run(g._order, g._dep, g._is_wrt, g.loss, g.shape)
    except SymattnError:
        raise
    except Exception:                   # noqa: BLE001 - no proof (or over budget); balls go on
        return
    for i, j in pending:
        v = G[i][j]
        q = Fraction(0) if v is None else _formal_constant(v)
        if q is not None:
            out[i][j] = _rational(q, digits, mode)


def _settle_exactly(g, pending, out, digits, mode):
    """Exact zeros reached by cancellation and exact rounding ties cannot be decided by
    balls: ask the exact value, brought to one fraction with its numerator expanded
    (atoms such as exp(·) and √· as indeterminates). Entries too large for that stay
    pending."""
    if estimated_size(g.loss) > 20 * MAX_CLOSED_FORM:
        return
    G = g.exact(tidy=False, max_size=None)
    for i, j in pending:
        v = G[i, j]
        if v.free_symbols:
            raise InputError(f"the gradient holds the symbols "
                             f"{', '.join(sorted(map(str, v.free_symbols)))}: certified "
                             "digits need numbers")
        v = exact_rational(v)
        if v is not None:
            out[i][j] = _rational(v, digits, mode)


def _rational(q: Fraction, digits: int, mode: str) -> str:
    return "0" if q == 0 else str(R.round_point_significant(q, digits, mode))


def _contains_zero(x) -> bool:
    """Whether a raw entry may be 0 (a ball around 0, or an exact 0)."""
    if x is None:
        return True
    if type(x) is _fmpq():
        return x == 0
    return x.contains(0)


def _round(x, digits: int, mode: str) -> str | None:
    """One raw entry (None: an exact 0; an exact rational; a ball) to ``digits``
    significant digits, or None when the ball cannot decide."""
    if x is None:
        return "0"
    r = round_entry(x, None, digits, mode, 1)
    return None if r is _UNDECIDED else str(r)


def _formal_constant(v) -> Fraction | None:
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
