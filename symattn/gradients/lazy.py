"""Exact SymPy arithmetic for reverse mode that leaves large products and sums unevaluated."""

from __future__ import annotations

from fractions import Fraction


class LazyExact:
    """Exact SymPy arithmetic for reverse mode that leaves products and sums of large
    expressions unevaluated (rationals are still combined); the forward values it works on
    come from :class:`~symattn.evaluation.exact.ExactContext`."""

    def __init__(self):
        from ..evaluation.exact import ExactContext
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
        from ..evaluation.exact import sized
        sized(q)
        if not rest:
            return q
        if q != 0:
            rest.append(q)
        return rest[0] if len(rest) == 1 else sympy.Add(*rest, evaluate=False)

    def s_mul(self, x, y):
        import sympy
        if x.is_Rational and y.is_Rational:
            return self._exact.s_mul(x, y)
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
            return self._exact.s_pow(x, k)
        return x if e == 1 else sympy.Pow(x, e, evaluate=False)

    def call(self, name: str, *xs):
        """A declared function or constant, as the exact context evaluates it."""
        return self._exact.call(name, *xs)
