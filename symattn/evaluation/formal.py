"""Proofs of exact zeros without SymPy: the graph as rational functions of its
transcendental values (:class:`FormalContext`), and the same test on a SymPy number
(:func:`formal_zero`).
"""

from __future__ import annotations

from ..tensor import Tensor, NEG_INF, walk
from ..primitives import ATOMS
from .base import run, ListContext
from .certified import _fmpq

# -- exact zeros ---------------------------------------------------------------------------

FORMAL_MAX_ATOMS = 512             # transcendental entries a formal proof may name
FORMAL_MAX_ENTRIES = 20_000        # entries of all the nodes of a graph it evaluates
FORMAL_MAX_TERMS = 2_000           # terms of one rational function (numerator + denominator)
                                   # a gradient's formal proof may build: a bound on its work
                                   # that does not depend on the machine's speed


class _GiveUp(Exception):
    pass


def formal_value(t: Tensor, balls: dict):
    """The value of ``t`` as rational functions (numerator, denominator) over Q of its
    transcendental values, or raise when the graph is too large or not covered.

    ``balls`` is the ball context's memo (id(node) -> value) of a precision at which all
    of ``t`` was evaluated: it proves the divisors nonzero."""
    atoms = entries = 0
    for n in walk(t):
        m, k = n.shape
        entries += m * k
        if n.op in ATOMS:
            atoms += m * k
        if atoms > FORMAL_MAX_ATOMS or entries > FORMAL_MAX_ENTRIES:
            raise _GiveUp("graph too large for a formal proof")
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

    def __init__(self, nvars: int, balls: dict, max_terms: int | None = None):
        import flint
        self.max_terms = max_terms
        self._fmpq = _fmpq()
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
        if self.max_terms is not None and len(n) + len(d) > self.max_terms:
            raise _GiveUp("a rational function grew beyond the term budget")
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

    def resolve(self, p):
        """A declared function folds at a rational constant (``p.fold``), else its value is
        an unknown named by the function and its operand; a constant is an unknown."""
        if p.arity == 0:
            return lambda: self._atom(p.name)
        return lambda x: self._unary(p.name, x, p.folded)

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
                if type(y) is self._fmpq:
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

    def rebuild(e):
        got = seen.get(e)
        if got is not None:
            return got
        if e.is_Rational or e.is_Symbol:
            out = e
        elif e.is_Add:
            out = sympy.Add(*[rebuild(a) for a in e.args])
        elif e.is_Mul:
            out = sympy.Mul(*[rebuild(a) for a in e.args])
        elif e.is_Pow and e.exp.is_Integer:
            out = sympy.Pow(rebuild(e.base), e.exp)
        else:
            out = atoms.get(e)
            if out is None:
                out = atoms[e] = sympy.Dummy()
        seen[e] = out
        return out

    try:
        return sympy.cancel(rebuild(v)) == 0
    except (sympy.PolynomialError, RecursionError, TypeError, ValueError):
        return False


