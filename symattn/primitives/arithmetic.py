"""The field operations and rational powers: neg, add, sub, mul, div, pow.

Each maps to the context method ``op_<name>`` (which holds the −∞ rules written below in
words, and the vectorised fast paths of the ball and float contexts) over the context's
scalar operations ``s_neg s_add s_sub s_mul s_div s_pow``. Binary ones broadcast as NumPy
does for 2-D matrices.
"""

from __future__ import annotations

from ..errors import DomainError
from . import Tex, declare, size_plus_one


def _size2(node, a) -> int:
    return a[0] + a[1] + 1


def _d_neg(bp, node, g, out, args, need):
    return [bp.elementwise(g, out, args[0], lambda v, x, o, i, j: bp.ctx.s_neg(v))]


def _d_add(bp, node, g, out, args, need):
    return bp.binary(node, g, out, args, need, lambda v, x, y, o: v, lambda v, x, y, o: v)


def _d_sub(bp, node, g, out, args, need):
    s = bp.ctx
    return bp.binary(node, g, out, args, need, lambda v, x, y, o: v,
                     lambda v, x, y, o: s.s_neg(v))


def _d_mul(bp, node, g, out, args, need):
    s = bp.ctx
    return bp.binary(node, g, out, args, need, lambda v, x, y, o: s.s_mul(v, y),
                     lambda v, x, y, o: s.s_mul(v, x))


def _d_div(bp, node, g, out, args, need):
    s = bp.ctx
    return bp.binary(node, g, out, args, need, lambda v, x, y, o: s.s_div(v, y),
                     lambda v, x, y, o: s.s_neg(s.s_div(s.s_mul(v, o), y)))


def _d_pow(bp, node, g, out, args, need):
    s, k, arg = bp.ctx, node.params["k"], node.args[0]

    def f(v, x, o, i, j):
        if k == 0:
            return None
        if k < 1 and bp.sign(arg, i, j, x) == 0:
            raise DomainError(f"x**{k} at x = 0 ({bp.where(arg, i, j)}) has no derivative")
        d = s.scalar(k) if k == 1 else s.s_mul(s.scalar(k), s.s_pow(x, k - 1))
        return s.s_mul(v, d)
    return [bp.elementwise(g, out, args[0], f)]


declare(name="neg", arity=1, kind="arithmetic", doc="−x elementwise.",
        neg_inf="refused (+∞)", derivative=_d_neg, size=size_plus_one, cost="entry",
        rational=True, atom=False, latex=Tex(fn="-{0}"))

declare(name="add", arity=2, kind="arithmetic", doc="x + y, broadcast.",
        neg_inf="−∞ + x = −∞ (how a mask is applied)", derivative=_d_add, size=_size2,
        cost="entry", rational=True, atom=False, latex=Tex(fn="{0} + {1}"))

declare(name="sub", arity=2, kind="arithmetic", doc="x − y, broadcast.",
        neg_inf="−∞ − x = −∞; x − (−∞) refused (+∞)", derivative=_d_sub, size=_size2,
        cost="entry", rational=True, atom=False, latex=Tex(fn="{0} - {1}"))

declare(name="mul", arity=2, kind="arithmetic", doc="x · y elementwise, broadcast.",
        neg_inf="−∞ · y = −∞ for y proven > 0, else refused", derivative=_d_mul, size=_size2,
        cost="entry", rational=True, atom=False, latex=Tex(fn=r"{0} \cdot {1}"))

declare(name="div", arity=2, kind="arithmetic",
        doc="x / y elementwise, broadcast; division by an exact 0 is a DomainError.",
        neg_inf="−∞ / y = −∞ for y proven > 0; x / (−∞) refused", derivative=_d_div,
        size=_size2, cost="entry", rational=True, atom=False, latex=Tex(fn=r"\frac{{{0}}}{{{1}}}"))

declare(name="pow", arity=1, kind="arithmetic",
        doc="x ** k elementwise for an exact rational k (``params['k']``).",
        neg_inf="refused", derivative=_d_pow, size=size_plus_one, cost="function",
        rational=lambda node: node.params["k"].denominator == 1, atom=True,
        latex=Tex(fn="{0}^{{{k}}}"))
