"""Reverse mode over a list context, each primitive's derivative rule read from its
declaration (:mod:`symattn.primitives`): adjoints are lists of rows, None meaning an exact
0 (a structural zero: nothing flowed there)."""

from __future__ import annotations


from .. import deadline as command_deadline
from ..errors import ShapeError, CertificationError
from ..primitives import PRIMITIVES
from ..tensor import Tensor, NEG_INF, describe, walk


def dependents(order, is_wrt) -> tuple[set, bool]:
    """The ids of the nodes whose value depends on the variable, and whether it occurs."""
    dep, found = set(), False
    for node in order:
        if is_wrt(node):
            dep.add(id(node))
            found = True
        elif any(id(a) in dep for a in node.args):
            dep.add(id(node))
    return dep, found


def substitute(root: Tensor, match, leaf: Tensor) -> Tensor:
    """The graph of ``root`` with every node for which ``match(node)`` holds replaced by
    ``leaf`` (same shape); the rest of the graph is shared, not copied."""
    new: dict[int, Tensor] = {}
    for node in walk(root):
        if match(node):
            if node.shape != leaf.shape:
                raise ShapeError(f"cannot replace {describe(node)} by {describe(leaf)}")
            new[id(node)] = leaf
            continue
        args = tuple(new.get(id(a), a) for a in node.args)
        if any(x is not y for x, y in zip(args, node.args)):
            new[id(node)] = Tensor(node.op, args, node.params, node.shape, node.rows,
                                   node.cols, node.name)
    return new.get(id(root), root)


def _zeros(m: int, n: int) -> list[list]:
    return [[None] * n for _ in range(m)]


class Backprop:
    """Reverse mode over a list context: adjoints are lists of rows, None meaning an exact 0
    (a structural zero: nothing flowed there)."""

    def __init__(self, ctx, values, exact: bool, owner):
        self.ctx = ctx
        self.values = values
        self.exact = exact
        self.owner = owner

    # scalar helpers (None is an exact zero)
    def add(self, x, y):
        if x is None:
            return y
        if y is None:
            return x
        return self.ctx.s_add(x, y)

    def acc(self, M, i, j, v):
        if v is not None:
            M[i][j] = v if M[i][j] is None else self.ctx.s_add(M[i][j], v)

    def sign(self, node: Tensor, i: int, j: int, x):
        """The sign of entry (i, j) of ``node`` (value ``x``): -1, 0, 1, or None when it
        holds symbols. Balls that cannot decide ask the exact value."""
        s = self.ctx.s_sign(x)
        if s is not None or self.exact:
            return s
        from ..evaluation.exact import ExactContext
        v = self.owner._exact_entry(node, i, j)
        s = ExactContext().s_sign(v)
        if s is None:
            raise CertificationError(f"cannot decide the sign of {describe(node)}"
                                     f"[{node.row_label(i)}, {node.col_label(j)}]")
        return s

    def compare(self, node: Tensor, i: int, j: int, k: int, x, y):
        """The sign of entry (i, j) minus entry (i, k) of ``node``."""
        s = self.ctx.s_sign(self.ctx.s_sub(x, y))
        if s is not None or self.exact:
            return s
        from ..evaluation.exact import ExactContext
        d = self.owner._exact_entry(node, i, j) - self.owner._exact_entry(node, i, k)
        return ExactContext().s_sign(d)

    def where(self, node: Tensor, i: int, j: int) -> str:
        return f"{describe(node)}[{node.row_label(i)}, {node.col_label(j)}]"

    def run(self, order, dep, is_wrt, root, shape):
        ctx = self.ctx
        adj: dict[int, list] = {id(root): [[ctx.one]]}
        result = _zeros(*shape)
        for node in reversed(order):
            key = id(node)
            if key not in dep or key not in adj:
                continue
            command_deadline.check()
            g = adj.pop(key)
            if is_wrt(node):
                for i, row in enumerate(g):
                    for j, v in enumerate(row):
                        self.acc(result, i, j, v)
                continue
            need = [id(a) in dep for a in node.args]
            if not any(need):
                continue
            p = PRIMITIVES[node.op]
            arg_vals = [self.values[id(a)] for a in node.args]
            out = self.values[key]
            if p.kind == "function":
                rule = p.derivative
                arg = node.args[0]
                grads = [self.elementwise(g, out, arg_vals[0],
                                          lambda v, x, o, i, j: rule(self, v, x, o, arg, i, j))]
            else:
                grads = p.derivative(self, node, g, out, arg_vals, need)
            for a, ga, nd in zip(node.args, grads, need):
                if not nd or ga is None:
                    continue
                cur = adj.get(id(a))
                if cur is None:
                    adj[id(a)] = ga
                else:
                    for i, row in enumerate(ga):
                        for j, v in enumerate(row):
                            self.acc(cur, i, j, v)
        return result

    def note(self, text: str) -> None:
        self.owner.note(text)

    zeros = staticmethod(_zeros)

    # -- the helpers the declared rules use -----------------------------------------------
    def elementwise(self, g, out, x, f):
        """The adjoint of an elementwise map: ``f(v, x, out, i, j)`` where the adjoint ``v``
        is not 0 and ``x`` is not −∞."""
        res = _zeros(len(g), len(g[0]))
        for i, row in enumerate(g):
            for j, v in enumerate(row):
                if v is None or x[i][j] is NEG_INF:
                    continue
                res[i][j] = f(v, x[i][j], out[i][j], i, j)
        return res

    def binary(self, node, g, out, args, need, da, db):
        """The adjoints of a broadcast binary map: ``da(v, x, y, out)`` and ``db(...)``
        summed over the entries an operand was stretched to."""
        a, b = args
        m, n = node.shape
        ar, ac = len(a) > 1, len(a[0]) > 1
        br, bc = len(b) > 1, len(b[0]) > 1
        ga = _zeros(len(a), len(a[0])) if need[0] else None
        gb = _zeros(len(b), len(b[0])) if need[1] else None
        for i in range(m):
            for j in range(n):
                v = g[i][j]
                if v is None or out[i][j] is NEG_INF:
                    continue
                ia, ja = (i if ar else 0), (j if ac else 0)
                ib, jb = (i if br else 0), (j if bc else 0)
                x, y = a[ia][ja], b[ib][jb]
                if ga is not None:
                    self.acc(ga, ia, ja, da(v, x, y, out[i][j]))
                if gb is not None:
                    self.acc(gb, ib, jb, db(v, x, y, out[i][j]))
        return [ga, gb]
