"""The lazy matrix node every operation builds.

A :class:`Tensor` is one node of a computation graph: an operation name, its argument
nodes, its parameters, its shape and its row/column labels. Operations are defined once
(in :mod:`symattn.ops`) by composing a few primitives; a context of
:mod:`symattn.evaluation` (exact SymPy, certified ball arithmetic, NumPy floats) evaluates
the same graph. Every value is a matrix: a vector is a 1×n row, a scalar is 1×1.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from .errors import ShapeError, InputError


class _NegInf:
    """−∞ as a matrix entry (the value of a mask); each context maps it to its own."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "-inf"

    def __reduce__(self):
        return (_NegInf, ())


NEG_INF = _NegInf()

Labels = tuple | None


class Tensor:
    """One node: ``op`` applied to ``args`` with ``params``; shape ``(rows, cols)``."""

    __slots__ = ("op", "args", "params", "shape", "rows", "cols", "name", "__weakref__")
    __array_priority__ = 1000  # NumPy scalars on the left defer to Tensor's operators

    def __init__(self, op: str, args: Sequence["Tensor"], params: dict, shape: tuple[int, int],
                 rows: Labels = None, cols: Labels = None, name: str | None = None):
        self.op = op
        self.args = tuple(args)
        self.params = params
        self.shape = shape
        self.rows = tuple(rows) if rows is not None else None
        self.cols = tuple(cols) if cols is not None else None
        self.name = name

    # -- labels -------------------------------------------------------------------------
    def named(self, name: str, rows: Iterable | None = None, cols: Iterable | None = None) -> "Tensor":
        """The same node under a name (and optionally new labels); the graph is shared."""
        out = Tensor(self.op, self.args, self.params, self.shape,
                     self.rows if rows is None else _check_labels(rows, self.shape[0], "rows"),
                     self.cols if cols is None else _check_labels(cols, self.shape[1], "columns"),
                     name)
        return out

    def row_index(self, key) -> int:
        return _resolve(key, self.rows, self.shape[0], "row", self)

    def col_index(self, key) -> int:
        return _resolve(key, self.cols, self.shape[1], "column", self)

    def row_label(self, i: int) -> str:
        return str(self.rows[i]) if self.rows else str(i)

    def col_label(self, j: int) -> str:
        return str(self.cols[j]) if self.cols else str(j)

    # -- operators (symattn.ops.primitives provides them) -------------------------------
    def __add__(self, other): return _P["add"](self, other)
    def __radd__(self, other): return _P["add"](other, self)
    def __sub__(self, other): return _P["sub"](self, other)
    def __rsub__(self, other): return _P["sub"](other, self)
    def __mul__(self, other): return _P["mul"](self, other)
    def __rmul__(self, other): return _P["mul"](other, self)
    def __truediv__(self, other): return _P["div"](self, other)
    def __rtruediv__(self, other): return _P["div"](other, self)
    def __matmul__(self, other): return _P["matmul"](self, other)
    def __rmatmul__(self, other): return _P["matmul"](other, self)
    def __neg__(self): return _P["neg"](self)
    def __pow__(self, k): return _P["power"](self, k)

    @property
    def T(self) -> "Tensor":
        return _P["transpose"](self)

    def __getitem__(self, key) -> "Tensor":
        return _P["index"](self, key)

    # -- evaluation shortcuts (symattn.evaluation and symattn provide them) -------------
    def exact(self, max_size: int | None = 50_000):
        """The exact value as a ``sympy.ImmutableMatrix`` (closed forms in exp, sqrt, ...);
        closed forms estimated larger than ``max_size`` terms are refused (None: no limit)."""
        return _P["exact"](self, max_size)

    def numpy(self, dtype: str = "float64"):
        """The value computed in floating point by NumPy (``float64`` or ``float32``)."""
        return _P["numpy"](self, dtype)

    def evaluate(self, digits: int | None = None, **kw):
        """Entries as certified decimal strings: ``digits=N`` significant digits, or
        ``decimals=N`` places (see :func:`symattn.evaluate`)."""
        return _P["evaluate"](self, digits, **kw)

    def tolist(self) -> list:
        """Nested lists (rows) of exact SymPy values, as ``numpy``'s ``tolist`` gives rows."""
        return _P["tolist"](self)

    def to_pandas(self, digits: int | None = 6):
        """A ``pandas.DataFrame`` with the labels as index and columns: ``Decimal`` entries
        certified to ``digits`` significant digits, or exact SymPy values with ``digits=None``
        (pandas is optional: without it, a one-line :class:`InputError`)."""
        return _P["pandas"](self, digits)

    # -- Python, SymPy, NumPy and Jupyter protocols (symattn.interop, symattn.display) --
    def __len__(self) -> int:
        return self.shape[0]

    def __iter__(self):
        """The rows, each a 1×n Tensor."""
        return (self[i] for i in range(self.shape[0]))

    def _sympy_(self):
        return _P["sympy"](self)

    def __array__(self, dtype=None, copy=None):
        """The float64 path for NumPy; exact entries for SymPy, whose ``Matrix(t)`` reads
        ``__array__`` rather than ``_sympy_`` (an exact matrix must not become floats)."""
        import sys
        caller = sys._getframe(1).f_globals.get("__name__", "")
        return _P["array"](self, dtype, copy, exact=caller.split(".")[0] == "sympy")

    def _repr_latex_(self) -> str | None:
        """LaTeX for Jupyter; None (the HTML table is shown, cut) for a large shape."""
        return _P["latex"](self)

    def _repr_html_(self) -> str:
        return _P["html"](self)

    def __repr__(self) -> str:
        return _P["text"](self)

    def __bool__(self):
        raise InputError("a Tensor has no truth value; compare evaluated values instead")

    __hash__ = object.__hash__


# The implementations behind the operators and shortcuts, provided by the modules that
# write them when they are imported (``import symattn`` imports them all), so this module
# imports none of them and no import circle runs through it.
_P: dict = {}


def provide(**implementations) -> None:
    """Register implementations of Tensor's operators and shortcuts by name."""
    _P.update(implementations)


def walk(root: Tensor, prune=None):
    """Every node of the graph under ``root`` once, each after its arguments (post-order,
    so a topological order), iteratively: graphs deeper than Python's recursion are fine.
    Any graph whose nodes list theirs in ``.args`` will do (a SymPy expression too).
    A node for which ``prune(node)`` is true is left out with the graph below it."""
    seen, stack = set(), [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            yield node
            continue
        if id(node) in seen or (prune is not None and prune(node)):
            continue
        seen.add(id(node))
        stack.append((node, True))
        for a in node.args:
            if id(a) not in seen:
                stack.append((a, False))


def _check_labels(labels, n: int, what: str) -> tuple:
    labels = tuple(str(x) for x in labels)
    if len(labels) != n:
        raise ShapeError(f"{len(labels)} {what} labels for {n} {what}")
    if len(set(labels)) != len(labels):
        raise ShapeError(f"{what} labels repeat: {list(labels)}")
    return labels


def _resolve(key, labels, n: int, what: str, t: Tensor) -> int:
    if isinstance(key, bool):
        raise InputError(f"{key!r} is not a {what} index")
    if isinstance(key, int):
        i = key + n if key < 0 else key
        if not 0 <= i < n:
            raise ShapeError(f"{what} index {key} is outside 0..{n - 1} of {_describe(t)}")
        return i
    if isinstance(key, str):
        if labels and key in labels:
            return labels.index(key)
        if labels:
            shown = ", ".join(labels[:12]) + (f", … ({len(labels)} in all)" if len(labels) > 12 else "")
            known = f" (labels: {shown})"
        else:
            known = " (it has no labels)"
        raise ShapeError(f"no {what} labelled '{key}' in {_describe(t)}{known}")
    raise InputError(f"{key!r} is not a {what} index or label")


def _describe(t: Tensor) -> str:
    return f"'{t.name}' ({t.shape[0]}×{t.shape[1]})" if t.name else f"a {t.shape[0]}×{t.shape[1]} matrix"


def describe(t: Tensor) -> str:
    return _describe(t)
