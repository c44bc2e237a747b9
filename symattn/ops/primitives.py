"""The primitives: the only operations the evaluation contexts implement.

Every operation of the articles (softmax, attention, LayerNorm, ...) is written in terms
of these. Each builder checks shapes and carries labels; none computes anything.

Broadcasting follows NumPy for 2-D matrices: a 1×1 scalar, a 1×n row or an m×1 column
stretches to m×n.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from ..errors import ShapeError, InputError, LimitError
from ..numbers import exact, parse_exact_array
from ..scaled import Scaled, ENTRY_BYTES
from ..tensor import Tensor, NEG_INF, describe, provide
from .. import primitives as DECLARED
from ..evaluation.size import max_entries, entry_bytes, format_bytes, MEMORY_BYTES

# entries in one matrix: as many as fit in memory as balls (42 million in 24 GiB); a
# whole computation is estimated before it is evaluated (evaluation.size.check_resources)
MAX_ENTRIES = max_entries()

_READY = {Fraction, type(NEG_INF)}
UNARY, BINARY = DECLARED.UNARY, DECLARED.BINARY


def as_tensor(x) -> Tensor:
    """A Tensor, or a 1×1 constant made from an exact scalar (floats are refused)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (list, tuple)):
        return const(x)
    return const([[x]])


def const(rows, row_labels=None, col_labels=None, name: str | None = None) -> Tensor:
    """An exact constant matrix from nested lists (a flat list is one row) or a ``Scaled``.

    Rows of decimal strings or of ints (:data:`AT_ONCE` entries or more) are read at once
    into a ``Scaled`` (integers with a power of ten, :mod:`symattn.scaled`); other entries,
    and small matrices (no NumPy to import), one by one, to the same values."""
    if isinstance(rows, Scaled):
        check_entries(*rows.shape, compact=True)
        return _const(rows, rows.shape, row_labels, col_labels, name)
    if not isinstance(rows, (list, tuple)):
        rows = [[rows]]
    elif not rows:
        raise ShapeError("an empty matrix has no entries")
    elif not isinstance(rows[0], (list, tuple)):
        rows = [rows]
    width = len(rows[0])
    if width == 0:
        raise ShapeError("an empty row has no entries")
    check_entries(len(rows), width)
    kinds = set()
    for i, row in enumerate(rows):
        if not isinstance(row, (list, tuple)):
            raise ShapeError(f"row {i} is not a list: mixed rows and numbers")
        if len(row) != width:
            raise ShapeError(f"ragged matrix: row 0 has {width} entries, row {i} has {len(row)}")
        kinds.update(map(type, row))
    entries = _read_at_once(rows, kinds)
    if entries is None:
        entries = tuple(tuple(row) if kinds <= _READY else
                        tuple(v if v is NEG_INF or type(v) is Fraction else exact(v) for v in row)
                        for row in rows)
    return _const(entries, (len(rows), width), row_labels, col_labels, name)


AT_ONCE = 256       # entries from which rows are read at once (smaller: no NumPy to import)


def _read_at_once(rows, kinds: set):
    """Rows all of ``str`` (the one number parser, vectorised) or all of ``int``, else None."""
    if len(rows) * len(rows[0]) < AT_ONCE:
        return None
    if kinds == {str}:
        return parse_exact_array(rows)
    if kinds == {int}:
        import numpy as np
        try:
            return Scaled(np.array(rows, dtype=np.int64), 10, 0)
        except OverflowError:                   # larger ints: one by one, with their limit
            return None
    return None


def _const(entries, shape, row_labels, col_labels, name) -> Tensor:
    t = Tensor("const", (), {"entries": entries}, shape, name=name)
    if row_labels is not None or col_labels is not None:
        t = t.named(name, row_labels, col_labels)
    return t


def check_entries(m: int, n: int, compact: bool = False) -> None:
    """Refuse an m×n matrix beyond :data:`MAX_ENTRIES`, saying what its balls would take.

    A ``compact`` matrix (a ``Scaled``, at most :data:`~symattn.scaled.ENTRY_BYTES` an
    entry) may have as many entries as fit in the memory that limit allows for balls: a
    product reads it block by block and never holds it as balls (the evaluation's own
    estimate counts what it does expand)."""
    limit = MAX_ENTRIES * (entry_bytes(139) // ENTRY_BYTES) if compact else MAX_ENTRIES
    if m * n > limit:
        if compact:
            raise LimitError(f"a {m}×{n} matrix has more than {limit} entries (the memory of "
                             f"{MAX_ENTRIES} entries as balls)",
                             hint="raise symattn.ops.primitives.MAX_ENTRIES on purpose")
        need = m * n * entry_bytes(139)
        raise LimitError(f"a {m}×{n} matrix has more than {MAX_ENTRIES} entries "
                         f"(as balls about {format_bytes(need)} a copy; an evaluation may use "
                         f"{format_bytes(MEMORY_BYTES)} here)",
                         hint="raise symattn.ops.primitives.MAX_ENTRIES on purpose")


def _broadcast(op: str, a: Tensor, b: Tensor) -> tuple[int, int]:
    (m1, n1), (m2, n2) = a.shape, b.shape
    m = m1 if m2 == 1 else m2 if m1 == 1 else m1 if m1 == m2 else None
    n = n1 if n2 == 1 else n2 if n1 == 1 else n1 if n1 == n2 else None
    if m is None or n is None:
        raise ShapeError(f"{op}: shapes {describe(a)} and {describe(b)} do not broadcast")
    return (m, n)


def _labels_for(shape, *ts):
    rows = next((t.rows for t in ts if t.shape[0] == shape[0] and t.rows), None)
    cols = next((t.cols for t in ts if t.shape[1] == shape[1] and t.cols), None)
    return rows, cols


def binary(op: str, a, b) -> Tensor:
    a, b = as_tensor(a), as_tensor(b)
    shape = _broadcast(op, a, b)
    rows, cols = _labels_for(shape, a, b)
    return Tensor(op, (a, b), {}, shape, rows, cols)


def add(a, b): return binary("add", a, b)
def sub(a, b): return binary("sub", a, b)
def mul(a, b): return binary("mul", a, b)
def div(a, b): return binary("div", a, b)


def unary(op: str, a) -> Tensor:
    a = as_tensor(a)
    return Tensor(op, (a,), {}, a.shape, a.rows, a.cols)


def neg(a): return unary("neg", a)


def power(a, k) -> Tensor:
    """Elementwise ``a ** k`` for an exact number k."""
    a = as_tensor(a)
    if isinstance(k, Tensor):
        if k.op != "const" or k.shape != (1, 1):
            raise InputError("** takes a number as its exponent")
        k = k.params["entries"][0][0]
    k = exact(k)
    if not isinstance(k, Fraction):
        raise InputError("** takes an exact rational exponent")
    return Tensor("pow", (a,), {"k": k}, a.shape, a.rows, a.cols)


def matmul(a, b) -> Tensor:
    a, b = as_tensor(a), as_tensor(b)
    if a.shape[1] != b.shape[0]:
        raise ShapeError(f"matmul: {describe(a)} @ {describe(b)}: "
                         f"{a.shape[1]} columns against {b.shape[0]} rows")
    return Tensor("matmul", (a, b), {}, (a.shape[0], b.shape[1]), a.rows, b.cols)


def transpose(a) -> Tensor:
    a = as_tensor(a)
    return Tensor("transpose", (a,), {}, (a.shape[1], a.shape[0]), a.cols, a.rows)


def take(a, rows: Sequence[int] | None = None, cols: Sequence[int] | None = None) -> Tensor:
    """The sub-matrix of the given row and column indices (None: all)."""
    a = as_tensor(a)
    r = tuple(range(a.shape[0])) if rows is None else tuple(rows)
    c = tuple(range(a.shape[1])) if cols is None else tuple(cols)
    rl = tuple(a.rows[i] for i in r) if a.rows else None
    cl = tuple(a.cols[j] for j in c) if a.cols else None
    return Tensor("take", (a,), {"rows": r, "cols": c}, (len(r), len(c)), rl, cl)


def index(a: Tensor, key) -> Tensor:
    """``a[row]``, ``a[row, col]``, ``a[:, col]`` with labels or 0-based indices, and
    slices ``a[0, 0:2]``, ``a[:, 2:]`` (0-based, the stop left out, as Python)."""
    if isinstance(key, tuple):
        if len(key) != 2:
            raise ShapeError(f"index with {len(key)} keys: a matrix takes [row] or [row, col]")
        rk, ck = key
    else:
        rk, ck = key, slice(None)
    return take(a, _positions(rk, a.shape[0], a.row_index), _positions(ck, a.shape[1], a.col_index))


def _positions(k, n: int, lookup):
    """The positions a key takes along an axis of n (None: all of them)."""
    if not isinstance(k, slice):
        return [lookup(k)]
    if k == slice(None):
        return None
    if k.step is not None or not all(b is None or isinstance(b, int) for b in (k.start, k.stop)):
        raise InputError("a slice is start:stop with whole numbers")
    out = list(range(*k.indices(n)))
    if not out:
        raise ShapeError(f"the slice {k.start if k.start is not None else ''}:"
                         f"{k.stop if k.stop is not None else ''} of {n} positions is empty")
    return out


def hcat(parts: Sequence) -> Tensor:
    """Side by side: the heads' outputs in one row per token (Concat)."""
    ts = [as_tensor(p) for p in parts]
    if not ts:
        raise ShapeError("concat of nothing")
    m = ts[0].shape[0]
    for t in ts[1:]:
        if t.shape[0] != m:
            raise ShapeError(f"concat: {describe(ts[0])} and {describe(t)} differ in rows")
    n = sum(t.shape[1] for t in ts)
    cols = None
    if all(t.cols for t in ts):
        cols = tuple(c for t in ts for c in t.cols)
        if len(set(cols)) != len(cols):
            cols = None
    rows = next((t.rows for t in ts if t.rows), None)
    return Tensor("hcat", tuple(ts), {}, (m, n), rows, cols)


def vcat(parts: Sequence) -> Tensor:
    """One above the other."""
    ts = [as_tensor(p) for p in parts]
    if not ts:
        raise ShapeError("stack of nothing")
    n = ts[0].shape[1]
    for t in ts[1:]:
        if t.shape[1] != n:
            raise ShapeError(f"stack: {describe(ts[0])} and {describe(t)} differ in columns")
    rows = None
    if all(t.rows for t in ts):
        rows = tuple(r for t in ts for r in t.rows)
        if len(set(rows)) != len(rows):
            rows = None
    cols = next((t.cols for t in ts if t.cols), None)
    return Tensor("vcat", tuple(ts), {}, (sum(t.shape[0] for t in ts), n), rows, cols)


def row_sum(a) -> Tensor:
    a = as_tensor(a)
    return Tensor("row_sum", (a,), {}, (a.shape[0], 1), a.rows, None)


def row_max(a) -> Tensor:
    a = as_tensor(a)
    return Tensor("row_max", (a,), {}, (a.shape[0], 1), a.rows, None)


def stabilize(a) -> Tensor:
    """``a`` minus its row maxima where a context computes in floating point, else ``a``.

    The one context-dependent numerical device: it leaves the mathematical value alone
    (softmax is shift invariant, see proofs/) and keeps float exponentials finite.
    """
    a = as_tensor(a)
    return Tensor("stabilize", (a,), {}, a.shape, a.rows, a.cols)


def scalar(x) -> Tensor:
    return const([[x]])


def neg_inf_where(keep: Sequence[Sequence[bool]]) -> list[list]:
    """Mask entries: 0 where ``keep`` is true, −∞ elsewhere."""
    return [[Fraction(0) if k else NEG_INF for k in row] for row in keep]


def patch(a, cells) -> Tensor:
    """``a`` with some entries replaced by exact values: ``cells`` is ((i, j, value), ...).

    Used to carry an article's printed (rounded) numbers forward in place of exact ones.
    """
    a = as_tensor(a)
    cells = tuple((int(i), int(j), v if v is NEG_INF else exact(v)) for i, j, v in cells)
    return Tensor("patch", (a,), {"cells": cells}, a.shape, a.rows, a.cols, a.name)


def _builder(p) -> "callable":
    """The builder of a declared elementwise function or constant, named and documented
    by its declaration."""
    if p.arity == 0:
        def build() -> Tensor:
            return Tensor(p.name, (), {}, (1, 1))
    else:
        def build(x) -> Tensor:
            return unary(p.name, x)
    build.__name__ = build.__qualname__ = p.builder
    build.__doc__ = p.doc
    return build


# exp, log, sqrt, ..., erf, tanh, pi: one builder per declaration (symattn.primitives)
BUILDERS = {p.builder: _builder(p) for p in DECLARED.PRIMITIVES.values()
            if p.builder and p.kind in ("function", "constant")}
finite = BUILDERS["finite"]

provide(add=add, sub=sub, mul=mul, div=div, matmul=matmul, neg=neg, power=power,
        transpose=transpose, index=index)
