"""Evaluating a graph of primitives in a context (the model is mpmath's ctx_base).

:func:`run` walks a :class:`~symattn.tensor.Tensor` graph once, bottom up, and asks the
context for each primitive. :class:`ListContext` holds every algorithm for contexts whose
matrices are lists of rows of scalars (exact SymPy, certified balls): they differ only in
the scalar operations they supply. −∞ (a mask entry) is the sentinel ``NEG_INF`` in both,
so the mask rules below are written once.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from .. import deadline
from ..errors import MaskError, DomainError, ShapeError
from ..tensor import Tensor, NEG_INF
from ..primitives import PRIMITIVES, REFUSE, Primitive


def run(ctx, root: Tensor, memo: dict | None = None):
    """The value of ``root`` in ``ctx``; ``memo`` (id(node) -> value) may be shared."""
    memo = {} if memo is None else memo
    if id(root) in memo:
        return memo[id(root)]
    prepare = getattr(ctx, "prepare", None)
    if prepare is not None:          # a context may plan the graph first (fused products)
        prepare(root)
    # every node whose id becomes a memo key stays alive as long as the memo, even when a
    # later node raises: otherwise a reused id would find a stale value
    keep = memo.setdefault("_keep", [])
    fuse = getattr(ctx, "fuse", None)
    stack = [(root, False)]
    while stack:
        node, ready = stack.pop()
        key = id(node)
        if key in memo:
            continue
        if ready or not node.args:
            deadline.check()
            memo[key] = ctx.apply(node, [memo[id(a)] for a in node.args])
            keep.append(node)
            continue
        if fuse is not None:         # attention row by row (ball context, large weights)
            v = fuse(node, memo)
            if v is not None:
                memo[key] = v
                keep.append(node)
                continue
        stack.append((node, True))
        for a in node.args:
            if id(a) not in memo:
                stack.append((a, False))
    return memo[id(root)]


def _pos(node: Tensor, i: int, j: int) -> str:
    return f"[{node.row_label(i)}, {node.col_label(j)}]"


class ListContext:
    """Matrix algorithms over a scalar field supplied by a subclass.

    A subclass supplies: ``scalar(x)`` (from Fraction or SymPy), ``zero``, ``one``,
    ``s_add s_sub s_mul s_div s_neg s_pow s_sign s_max`` and ``resolve(p)``: the scalar
    function of a declared primitive (:mod:`symattn.primitives`) in this context.
    ``s_sign`` answers -1, 0, 1, or None when it cannot decide.
    """

    name = "list"

    def apply(self, node: Tensor, vals: list):
        method = getattr(self, "op_" + node.op, None)
        if method is None:                   # a declared function or constant
            method = getattr(self, "op_" + PRIMITIVES[node.op].kind)
        return method(node, *vals)

    # -- leaves and structure ------------------------------------------------------
    def op_const(self, node):
        return [[NEG_INF if v is NEG_INF else self.scalar(v) for v in row]
                for row in node.params["entries"]]

    def op_transpose(self, node, a):
        return [list(col) for col in zip(*a)]

    def op_take(self, node, a):
        rows, cols = node.params["rows"], node.params["cols"]
        return [[a[i][j] for j in cols] for i in rows]

    def op_patch(self, node, a):
        out = [list(r) for r in a]
        for i, j, v in node.params["cells"]:
            out[i][j] = NEG_INF if v is NEG_INF else self.scalar(v)
        return out

    def op_hcat(self, node, *parts):
        return [sum((p[i] for p in parts), []) for i in range(node.shape[0])]

    def op_vcat(self, node, *parts):
        return [list(r) for p in parts for r in p]

    # -- elementwise ---------------------------------------------------------------
    def _zip(self, node, a, b, f: Callable):
        m, n = node.shape
        ar, ac = len(a) > 1, len(a[0]) > 1
        br, bc = len(b) > 1, len(b[0]) > 1
        return [[f(a[i if ar else 0][j if ac else 0], b[i if br else 0][j if bc else 0], i, j)
                 for j in range(n)] for i in range(m)]

    def op_add(self, node, a, b):
        def f(x, y, i, j):
            if x is NEG_INF or y is NEG_INF:
                return NEG_INF
            return self.s_add(x, y)
        return self._zip(node, a, b, f)

    def op_sub(self, node, a, b):
        def f(x, y, i, j):
            if y is NEG_INF:
                raise MaskError(f"subtracting −∞ at {_pos(node, i, j)} gives +∞",
                                hint="add a mask (0 or −∞), do not subtract it")
            return NEG_INF if x is NEG_INF else self.s_sub(x, y)
        return self._zip(node, a, b, f)

    def op_mul(self, node, a, b):
        def f(x, y, i, j):
            if x is NEG_INF or y is NEG_INF:
                other = y if x is NEG_INF else x
                if other is not NEG_INF and self.s_sign(other) == 1:
                    return NEG_INF
                raise MaskError(f"−∞ at {_pos(node, i, j)} multiplied by a value that is not "
                                "positive", hint="scale the scores before adding the mask")
            return self.s_mul(x, y)
        return self._zip(node, a, b, f)

    def op_div(self, node, a, b):
        def f(x, y, i, j):
            if y is NEG_INF:
                raise MaskError(f"division by −∞ at {_pos(node, i, j)}")
            if self.s_sign(y) == 0 and self.is_exact_zero(y):
                raise DomainError(node.params.get("zero", "division by zero") +
                                  f" (at {_pos(node, i, j)})")
            if x is NEG_INF:
                if self.s_sign(y) == 1:
                    return NEG_INF
                raise MaskError(f"−∞ at {_pos(node, i, j)} divided by a value that is not positive")
            return self.s_div(x, y)
        return self._zip(node, a, b, f)

    def _map(self, node, a, f: Callable, on_neg_inf=None):
        out = []
        for i, row in enumerate(a):
            r = []
            for j, x in enumerate(row):
                if x is NEG_INF:
                    if on_neg_inf is None:
                        raise MaskError(f"{node.op} of −∞ at {_pos(node, i, j)}",
                                        hint="a mask entry may only reach softmax (exp)")
                    r.append(on_neg_inf)
                else:
                    r.append(f(x))
            out.append(r)
        return out

    def op_neg(self, node, a): return self._map(node, a, self.s_neg)

    # -- declared functions and constants (symattn.primitives) ----------------------
    def function(self, p: Primitive) -> Callable:
        """The scalar function of the declared primitive ``p`` in this context (nullary:
        a function of nothing), built once per context from the declaration."""
        fs = self.__dict__.get("_functions")
        if fs is None:
            fs = self._functions = {}
        f = fs.get(p.name)
        if f is None:
            f = fs[p.name] = self.resolve(p)
        return f

    def resolve(self, p: Primitive) -> Callable:
        raise NotImplementedError(f"{self.name} context: no rule for {p.name}")

    def call(self, name: str, *xs):
        """The declared primitive ``name`` at scalars ``xs`` (no domain check)."""
        return self.function(PRIMITIVES[name])(*xs)

    def op_function(self, node, a):
        """An elementwise function, from its declaration: −∞ and domain rules, then the
        scalar function of this context."""
        p = PRIMITIVES[node.op]
        f = self.function(p)
        check = p.domain
        if check is not None:
            g = f

            def f(x):
                check(self, node, x)
                return g(x)
        on = None if p.neg_inf is REFUSE else self.scalar(p.neg_inf)
        return self._map(node, a, f, on)

    def op_constant(self, node):
        return [[self.function(PRIMITIVES[node.op])()]]

    def op_pow(self, node, a):
        k = node.params["k"]

        def f(x):
            s = self.s_sign(x)
            if k < 0 and s == 0 and self.is_exact_zero(x):
                raise DomainError(f"0 to the negative power {k}: an entry is exactly 0",
                                  hint="a power below 0 divides by the entry")
            if k.denominator != 1 and s == -1:
                raise DomainError(f"a negative number to the fractional power {k}",
                                  hint="roots of negative numbers are not real")
            return self.s_pow(x, k)
        return self._map(node, a, f)

    # -- reductions and products ---------------------------------------------------
    def op_row_sum(self, node, a):
        out = []
        for row in a:
            if any(x is NEG_INF for x in row):
                out.append([NEG_INF])
            else:
                out.append([self.s_sum(row)])
        return out

    def op_row_max(self, node, a):
        out = []
        for row in a:
            finite = [x for x in row if x is not NEG_INF]
            out.append([self.s_max(finite) if finite else NEG_INF])
        return out

    def op_stabilize(self, node, a):
        return a

    def op_matmul(self, node, a, b):
        self._no_mask(node, a, b)
        return [[self.s_sum([self.s_mul(x, y) for x, y in zip(row, col)]) for col in zip(*b)]
                for row in a]

    def _no_mask(self, node, *mats):
        for m in mats:
            for row in m:
                if any(x is NEG_INF for x in row):
                    raise MaskError("−∞ entries reached a matrix product",
                                    hint="apply softmax to masked scores before multiplying by V")

    def s_sum(self, xs):
        total = xs[0]
        for x in xs[1:]:
            total = self.s_add(total, x)
        return total
