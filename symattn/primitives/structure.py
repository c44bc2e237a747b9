"""Matrix-level primitives: constants, products, reshaping, row reductions.

Each maps to the context method ``op_<name>``; the rules here are their derivatives,
sizes and costs. −∞ (a mask entry) passes through those that move entries.
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import InputError, DomainError
from ..tensor import NEG_INF, describe
from ..scaled import Scaled
from . import Tex, declare, same_size


def _d_transpose(bp, node, g, out, args, need):
    return [[list(col) for col in zip(*g)]]


def _d_take(bp, node, g, out, args, need):
    a = args[0]
    ga = bp.zeros(len(a), len(a[0]))
    for r, i in enumerate(node.params["rows"]):
        for c, j in enumerate(node.params["cols"]):
            bp.acc(ga, i, j, g[r][c])
    return [ga]


def _d_patch(bp, node, g, out, args, need):
    ga = [list(r) for r in g]
    for i, j, _ in node.params["cells"]:
        ga[i][j] = None
    return [ga]


def _d_hcat(bp, node, g, out, args, need):
    res, c = [], 0
    for a in args:
        w = len(a[0])
        res.append([row[c:c + w] for row in g])
        c += w
    return res


def _d_vcat(bp, node, g, out, args, need):
    res, r = [], 0
    for a in args:
        h = len(a)
        res.append([list(row) for row in g[r:r + h]])
        r += h
    return res


def _d_stabilize(bp, node, g, out, args, need):
    # the exact value of stabilize(a) is a (softmax is shift invariant; see proofs/)
    return [g]


def _d_row_sum(bp, node, g, out, args, need):
    a = args[0]
    ga = bp.zeros(len(a), len(a[0]))
    for i, row in enumerate(a):
        v = g[i][0]
        if v is None or out[i][0] is NEG_INF:
            continue
        for j in range(len(row)):
            ga[i][j] = v
    return [ga]


def _d_row_max(bp, node, g, out, args, need):
    a, arg = args[0], node.args[0]
    ga = bp.zeros(len(a), len(a[0]))
    for i, row in enumerate(a):
        v = g[i][0]
        if v is None:
            continue
        finite = [j for j, x in enumerate(row) if x is not NEG_INF]
        best = finite[0]
        for j in finite[1:]:
            c = bp.compare(arg, i, j, best, row[j], row[best])
            if c is None:
                raise InputError(f"max of {describe(arg)} row {arg.row_label(i)} holds "
                                 "symbols: its derivative needs numbers")
            if c > 0:
                best = j
        for j in finite:
            if j != best and bp.compare(arg, i, j, best, row[j], row[best]) == 0:
                raise DomainError(f"the maximum of row {arg.row_label(i)} of {describe(arg)} "
                                  "is tied; it has no derivative there")
        ga[i][best] = v
    return [ga]


def _d_matmul(bp, node, g, out, args, need):
    s = bp.ctx
    A, B = args
    m, k, n = len(A), len(B), len(B[0])
    gA = gB = None
    if need[0]:
        gA = bp.zeros(m, k)
        for i in range(m):
            gi = [(j, v) for j, v in enumerate(g[i]) if v is not None]
            if not gi:
                continue
            for r in range(k):
                gA[i][r] = s.s_sum([s.s_mul(v, B[r][j]) for j, v in gi])
    if need[1]:
        gB = bp.zeros(k, n)
        for j in range(n):
            gj = [(i, g[i][j]) for i in range(m) if g[i][j] is not None]
            if not gj:
                continue
            for r in range(k):
                gB[r][j] = s.s_sum([s.s_mul(A[i][r], v) for i, v in gj])
    return [gA, gB]


def _const_rational(node) -> bool:
    """Every entry an exact rational (or −∞): SymPy values and symbols are not."""
    entries = node.params["entries"]
    return type(entries) is Scaled or all(v is NEG_INF or type(v) is Fraction
                                          for row in entries for v in row)


def _no_operands(bp, node, g, out, args, need):
    return []


declare(name="const", arity=0, kind="structure",
        doc="An exact constant matrix (``params['entries']``: Fractions, SymPy values, −∞).",
        neg_inf="an entry may be −∞ (a mask)", derivative=_no_operands,
        size=lambda node, a: 1, cost="entry", rational=_const_rational, atom=False,
        latex=Tex(fn="{entries}"))

declare(name="matmul", arity=2, kind="structure", doc="The matrix product A·B.",
        neg_inf="refused (softmax first)", derivative=_d_matmul,
        size=lambda node, a: node.args[0].shape[1] * (a[0] + a[1] + 1), cost="product",
        rational=True, atom=False, latex=Tex(fn="{0} {1}"))

declare(name="transpose", arity=1, kind="structure", doc="Aᵀ.",
        neg_inf="kept", derivative=_d_transpose, size=same_size, cost="entry",
        rational=True, atom=False, latex=Tex(fn=r"{0}^{\top}"))

declare(name="take", arity=1, kind="structure",
        doc="The sub-matrix of ``params['rows']`` × ``params['cols']``.",
        neg_inf="kept", derivative=_d_take, size=same_size, cost="entry",
        rational=True, atom=False, latex=Tex(fn="{0}_{{{rows},{cols}}}"))

declare(name="hcat", arity=None, kind="structure", doc="Side by side (Concat).",
        neg_inf="kept", derivative=_d_hcat, size=lambda node, a: max(a), cost="entry",
        rational=True, atom=False, latex=Tex(fn=r"\begin{{bmatrix}} {0} & \cdots \end{{bmatrix}}"))

declare(name="vcat", arity=None, kind="structure", doc="One above the other.",
        neg_inf="kept", derivative=_d_vcat, size=lambda node, a: max(a), cost="entry",
        rational=True, atom=False,
        latex=Tex(fn=r"\begin{{bmatrix}} {0} \\ \vdots \end{{bmatrix}}"))

declare(name="row_sum", arity=1, kind="structure", doc="Row sums, m×1.",
        neg_inf="a row holding −∞ sums to −∞", derivative=_d_row_sum,
        size=lambda node, a: node.args[0].shape[1] * (a[0] + 1), cost="entry",
        rational=True, atom=False, latex=Tex(fn=r"\sum_j {0}_{{ij}}"))

declare(name="row_max", arity=1, kind="structure", doc="Row maxima, m×1.",
        neg_inf="ignored; a row of −∞ has maximum −∞", derivative=_d_row_max,
        size=lambda node, a: node.args[0].shape[1] * (a[0] + 1), cost="entry",
        rational=True, atom=True, latex=Tex(fn=r"\max_j {0}_{{ij}}"))

declare(name="stabilize", arity=1, kind="structure",
        doc="A minus its row maxima in floating point, A itself elsewhere (softmax is "
            "shift invariant).",
        neg_inf="kept", derivative=_d_stabilize, size=same_size, cost="entry",
        rational=True, atom=False, latex=Tex(fn="{0}"))

declare(name="patch", arity=1, kind="structure",
        doc="A with some entries replaced by exact values (``params['cells']``).",
        neg_inf="a cell may be −∞", derivative=_d_patch, size=same_size, cost="entry",
        rational=True, atom=False, latex=Tex(fn="{0}"))
