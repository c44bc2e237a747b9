"""The floating-point context: NumPy arrays in float64 or float32, vectorised.

The same primitives as the exact and ball contexts, with IEEE semantics: −∞ is ``-inf``
and ``stabilize`` subtracts row maxima so exponentials stay finite.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..errors import DomainError, InputError, MaskError
from ..tensor import NEG_INF


class FloatContext:
    name = "float"

    def __init__(self, dtype: str = "float64"):
        if dtype not in ("float64", "float32"):
            raise InputError(f"dtype {dtype!r}: use 'float64' or 'float32'")
        self.dtype = np.dtype(dtype)

    def apply(self, node, vals):
        return getattr(self, "op_" + node.op)(node, *vals)

    def _to_float(self, x) -> float:
        if x is NEG_INF:
            return -np.inf
        if isinstance(x, Fraction):
            return x.numerator / x.denominator      # correctly rounded int division
        if getattr(x, "free_symbols", None):
            raise InputError(f"'{x}' is a symbol: the float path needs numbers")
        return float(x)

    def op_const(self, node):
        return np.array([[self._to_float(x) for x in row] for row in node.params["entries"]],
                        dtype=self.dtype)

    def op_add(self, node, a, b): return a + b
    def op_mul(self, node, a, b): return a * b
    def op_neg(self, node, a): return -a
    def op_exp(self, node, a): return np.exp(a)
    def op_sqrt(self, node, a): return np.sqrt(a)
    def op_sin(self, node, a): return np.sin(a)
    def op_cos(self, node, a): return np.cos(a)
    def op_abs(self, node, a): return np.abs(a)
    def op_relu(self, node, a): return np.maximum(a, 0)
    def op_finite(self, node, a): return np.isfinite(a).astype(self.dtype)
    def op_transpose(self, node, a): return a.T
    def op_hcat(self, node, *p): return np.hstack(p)
    def op_vcat(self, node, *p): return np.vstack(p)
    def op_row_sum(self, node, a): return a.sum(axis=1, keepdims=True)
    def op_row_max(self, node, a): return a.max(axis=1, keepdims=True)

    def op_sub(self, node, a, b):
        if np.isneginf(b).any():
            raise MaskError("subtracting −∞ gives +∞", hint="add a mask, do not subtract it")
        return a - b

    def op_div(self, node, a, b):
        if (b == 0).any():
            raise DomainError(node.params.get("zero", "division by zero"))
        return a / b

    def op_log(self, node, a):
        if (a == 0).any():
            raise DomainError(node.params.get("zero", "log of 0"))
        return np.log(a)

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

    def op_matmul(self, node, a, b):
        if np.isneginf(a).any() or np.isneginf(b).any():
            raise MaskError("−∞ entries reached a matrix product",
                            hint="apply softmax to masked scores before multiplying by V")
        return a @ b

    def op_stabilize(self, node, a):
        m = a.max(axis=1, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        return a - m
