"""The floating-point context: NumPy arrays in float64 or float32, vectorised.

The same primitives as the exact and ball contexts, with IEEE semantics: −∞ is ``-inf``
and ``stabilize`` subtracts row maxima so exponentials stay finite.
"""

from __future__ import annotations

import weakref
from fractions import Fraction

import numpy as np

from ..errors import DomainError, InputError, MaskError
from ..tensor import NEG_INF, walk
from ..scaled import Scaled
from ..primitives import PRIMITIVES

# Converted constants, per node and dtype: a node's entries never change, so a graph
# evaluated again (a new Evaluator, a paper-sized layer's weights) converts them once.
# The arrays are read-only; Evaluator.float hands out a writable copy when one is the result.
_CONSTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_NO_NEG_INF: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()   # id -> array


def _has_neg_inf(a) -> bool:
    if _NO_NEG_INF.get(id(a)) is a:                  # a cached constant without −∞
        return False
    if np.isfinite(a.sum()):                          # no allocation; finite: no −∞ in a
        return False
    return bool(np.isneginf(a).any())


def group_off(group) -> bool:
    return group.get("off", False)


class FloatContext:
    name = "float"

    def __init__(self, dtype: str = "float64"):
        if dtype not in ("float64", "float32"):
            raise InputError(f"dtype {dtype!r}: use 'float64' or 'float32'")
        self.dtype = np.dtype(dtype)

    def apply(self, node, vals):
        method = getattr(self, "op_" + node.op, None)
        if method is None:                   # a declared function or constant
            method = getattr(self, "op_" + PRIMITIVES[node.op].kind)
        return method(node, *vals)

    def op_function(self, node, a):
        """An elementwise function from its declaration (NumPy's function of that name, or
        the declared rule), after its declared float check; IEEE handles −∞."""
        p = PRIMITIVES[node.op]
        if p.float_check is not None:
            p.float_check(node, a)
        rule = p.float
        if isinstance(rule, str):
            return getattr(np, rule)(a)
        return rule(self, a)

    def op_constant(self, node):
        p = PRIMITIVES[node.op]
        return np.array([[getattr(np, p.float)]], dtype=self.dtype)

    def _to_float(self, x) -> float:
        if x is NEG_INF:
            return -np.inf
        if isinstance(x, Fraction):
            return x.numerator / x.denominator      # correctly rounded int division
        if getattr(x, "free_symbols", None):
            raise InputError(f"'{x}' is a symbol: the float path needs numbers")
        return float(x)

    def op_const(self, node):
        cached = _CONSTS.get(node)
        if cached is None:
            cached = _CONSTS[node] = {}
        a = cached.get(self.dtype)
        if a is None:
            F, f, entries = Fraction, self._to_float, node.params["entries"]
            if type(entries) is Scaled:
                a = entries.floats(self.dtype)
            else:
                a = np.array([[x.numerator / x.denominator if type(x) is F else f(x) for x in row]
                              for row in entries], dtype=self.dtype)
            a.flags.writeable = False
            cached[self.dtype] = a
            if not np.isneginf(a).any():
                _NO_NEG_INF[id(a)] = a
        return a

    def op_add(self, node, a, b): return a + b
    def op_mul(self, node, a, b): return a * b
    def op_neg(self, node, a): return -a
    def op_transpose(self, node, a): return a.T
    def op_hcat(self, node, *p): return np.hstack(p)
    def op_vcat(self, node, *p): return np.vstack(p)
    def op_row_sum(self, node, a): return a.sum(axis=1, keepdims=True)
    def op_row_max(self, node, a): return a.max(axis=1, keepdims=True)

    def op_sub(self, node, a, b):
        if _has_neg_inf(b):
            raise MaskError("subtracting −∞ gives +∞", hint="add a mask, do not subtract it")
        return a - b

    def op_div(self, node, a, b):
        if (b == 0).any():
            raise DomainError(node.params.get("zero", "division by zero"))
        return a / b

    def op_pow(self, node, a):
        k = node.params["k"]
        return a ** (k.numerator / k.denominator)

    def op_patch(self, node, a):
        out = a.copy()
        for i, j, v in node.params["cells"]:
            out[i, j] = self._to_float(v)
        return out

    def op_take(self, node, a):
        return a[np.ix_(node.params["rows"], node.params["cols"])]

    # -- products: one GEMM for the products of one matrix by several constants ----------
    def prepare(self, root):
        """Find the products x·W_1, x·W_2, ... of one left operand by constant matrices (the
        projections of every head): they are computed as one product x·[W_1 W_2 ...]."""
        groups: dict[int, list] = {}
        for n in walk(root):
            if n.op == "matmul" and n.args[1].op == "const":
                groups.setdefault(id(n.args[0]), []).append(n)
        self._groups = {}
        for members in groups.values():
            if len(members) < 2:
                continue
            members.sort(key=lambda m: id(m.args[1]))
            consts, offsets, at = [], {}, 0
            for m in members:
                c = m.args[1]
                if id(c) not in offsets:
                    offsets[id(c)] = (at, at + c.shape[1])
                    consts.append(c)
                    at += c.shape[1]
            if len(consts) < 2:
                continue
            group = {"consts": tuple(consts), "value": None}
            for m in members:
                self._groups[id(m)] = (group, *offsets[id(m.args[1])])

    def _fused_weights(self, consts):
        """[W_1 W_2 ...] side by side, kept with the first constant's converted value."""
        cached = _CONSTS.setdefault(consts[0], {})
        key = ("fused", self.dtype, tuple(id(c) for c in consts))
        got = cached.get(key)
        if got is not None and all(r() is c for r, c in zip(got[0], consts)):
            return got[1]
        w = np.hstack([self.op_const(c) for c in consts])
        w.flags.writeable = False
        cached[key] = (tuple(weakref.ref(c) for c in consts), w)
        if not np.isneginf(w).any():
            _NO_NEG_INF[id(w)] = w
        return w

    def op_matmul(self, node, a, b):
        g = getattr(self, "_groups", {}).get(id(node))
        if g is not None and not group_off(g[0]):
            group, start, stop = g
            if group["value"] is None:
                w = self._fused_weights(group["consts"])
                if _has_neg_inf(w):                  # a constant with −∞: one at a time
                    group["off"] = True
                else:
                    if _has_neg_inf(a):
                        raise MaskError("−∞ entries reached a matrix product",
                                        hint="apply softmax to masked scores before "
                                             "multiplying by V")
                    group["value"] = a @ w
            if not group_off(group):
                return group["value"][:, start:stop]
        if _has_neg_inf(a) or _has_neg_inf(b):
            raise MaskError("−∞ entries reached a matrix product",
                            hint="apply softmax to masked scores before multiplying by V")
        return a @ b

    def op_stabilize(self, node, a):
        m = a.max(axis=1, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        return a - m
