"""How large a closed form would be, estimated from the graph before building it.

The exact value of an entry is a SymPy tree; a shared subexpression is printed once per
use. The estimate counts, per node, the largest entry's tree size, so a softmax over many
keys or a LayerNorm over nested exponentials is refused before it is built or printed.
"""

from __future__ import annotations

from ..tensor import Tensor


IRRATIONAL = {"exp", "log", "sqrt", "sin", "cos"}


def closed_form_size(root: Tensor) -> int:
    """An estimate of the largest entry's expression-tree size (rational values fold to
    one number, as SymPy folds them)."""
    size: dict[int, int] = {}
    rational: dict[int, bool] = {}
    stack = [(root, False)]
    while stack:
        node, ready = stack.pop()
        if id(node) in size:
            continue
        if not ready and node.args:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if id(a) not in size)
            continue
        a = [size[id(x)] for x in node.args]
        op = node.op
        if op == "const":
            rational[id(node)] = all(type(v).__name__ == "Fraction" or repr(v) == "-inf"
                                     for row in node.params["entries"] for v in row)
        else:
            rational[id(node)] = op not in IRRATIONAL and all(rational[id(x)] for x in node.args) \
                and (op != "pow" or node.params["k"].denominator == 1)
        if rational[id(node)]:
            s = 1
        elif op == "const":
            s = 1
        elif op in ("add", "sub", "mul", "div"):
            s = a[0] + a[1] + 1
        elif op == "matmul":
            k = node.args[0].shape[1]
            s = k * (a[0] + a[1] + 1)
        elif op in ("row_sum", "row_max"):
            s = node.args[0].shape[1] * (a[0] + 1)
        elif op in ("hcat", "vcat"):
            s = max(a)
        elif op in ("take", "transpose", "patch", "stabilize", "finite"):
            s = a[0]
        else:                                    # elementwise functions and powers
            s = a[0] + 1
        size[id(node)] = s
    return size[id(root)]
