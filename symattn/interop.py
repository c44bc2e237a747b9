"""Exact matrices from NumPy and PyTorch, and Tensors back out to SymPy and NumPy.

A binary float is never read as the decimal it prints as unless asked: ``from_numpy`` and
``from_torch`` take each float at its exact binary value (``0.1`` becomes
3602879701896397/36028797018963968), or, with ``decimals=N``, at that value correctly
rounded to N places (half-even, as NumPy and PyTorch print), which is the number a
notebook shows.

>>> import numpy as np
>>> from_numpy(np.array([[0.5, 0.1]]), decimals=4).exact()
Matrix([[1/2, 1/10]])
"""

from __future__ import annotations

from fractions import Fraction

from .errors import InputError, ShapeError, LimitError
from .tensor import Tensor, NEG_INF, provide
from .numbers import parse_exact_array, CHUNK
from .scaled import Scaled, from_binary, rounded_decimals
from .evaluation.rounding import round_units


def is_array(x) -> bool:
    """True for a NumPy array or a PyTorch tensor (without importing either)."""
    mod = type(x).__module__.split(".")[0]
    return (mod == "numpy" and hasattr(x, "dtype") and hasattr(x, "shape")) or \
        (mod == "torch" and hasattr(x, "detach"))


def _numpy(a):
    """A NumPy array from a NumPy array or a PyTorch tensor (floats widened exactly)."""
    if type(a).__module__.split(".")[0] == "torch":
        import torch
        a = a.detach().cpu()
        if a.is_floating_point() and a.dtype not in (torch.float32, torch.float64):
            a = a.to(torch.float32)          # float16, bfloat16: every value is a float32
        return a.numpy()
    return a


def _matrix(a):
    """The array as 2-D (1-D: one row), after the size and dimension checks (numbers and
    text are read into the compact form, so their limit is the compact one)."""
    from .ops import primitives as P
    if a.dtype.kind not in "iufUS" and a.size > P.MAX_ENTRIES:   # before any entry is converted
        raise LimitError(f"an array of {a.size} entries has more than {P.MAX_ENTRIES}",
                         hint="raise symattn.ops.primitives.MAX_ENTRIES on purpose")
    if a.ndim <= 2:
        P.check_entries(*(a.reshape(1, -1) if a.ndim < 2 else a).shape, compact=True)
    if a.ndim > 2:
        raise ShapeError(f"a {a.ndim}-dimensional array: a matrix has at most 2 dimensions",
                         hint="index or reshape it to rows × columns first")
    if a.size == 0:
        raise ShapeError("an empty array has no entries")
    return a.reshape(1, -1) if a.ndim < 2 else a


def exact_entries(a):
    """The exact entries of an integer or decimal-string array (for ``matrix``): a
    ``Scaled`` read at once (integers, text of plain decimals), else rows of entries.

    Float arrays are refused, as binary floats are everywhere: use :func:`from_numpy`.
    """
    import numpy as np
    a = _numpy(a)
    kind = a.dtype.kind
    if kind == "f":
        raise InputError(f"a {a.dtype} array holds binary floats, not the decimals they print as",
                         hint="sa.from_numpy(a) takes their exact binary values, "
                              "sa.from_numpy(a, decimals=4) the values as printed to 4 places")
    if kind not in "iuUSO":
        raise InputError(f"a {a.dtype} array is not made of numbers",
                         hint="use integers, decimal strings or sa.from_numpy for floats")
    a = _matrix(a)
    if kind in "iu":
        if kind == "i" or a.dtype.itemsize < 8 or int(a.max()) < 2 ** 63:
            return Scaled(a, 10, 0)
        return a.tolist()                      # uint64 beyond int64: Python ints
    if kind == "S":
        a = np.char.decode(a, "utf-8")
    if kind in "US":
        return parse_exact_array(a)
    return a.tolist()


def float_entry(x: float, decimals: int | None):
    """One binary float exactly, or rounded half-even to ``decimals`` places; −∞ is the mask."""
    if x != x or x == float("inf"):
        raise InputError(f"{x!r} is not a number a matrix can hold")
    if x == float("-inf"):
        return NEG_INF
    q = Fraction(x)                                  # the exact binary value
    if decimals is None:
        return q
    return Fraction(round_units(q, decimals, "half-even"), 10 ** decimals)


def float_entries(a, decimals: int | None):
    """A float array's exact entries: a ``Scaled`` read at once (vectorised) when every
    entry is finite, else rows of :func:`float_entry` (−∞ the mask; NaN, +∞ refused)."""
    import numpy as np
    a = np.asarray(a, dtype=np.float64)
    finite = np.isfinite(a)
    if not finite.all():
        bad = np.flatnonzero(~finite & ~np.isneginf(a))
        if bad.size:
            float_entry(float(a.ravel()[bad[0]]), decimals)   # raises its one-line error
        return [[float_entry(x, decimals) for x in row] for row in a.tolist()]
    if decimals is None:
        return from_binary(a)
    step = max(1, CHUNK // a.shape[1])             # bounds the temporary arrays
    parts = [rounded_decimals(a[i:i + step], decimals,
                              lambda x: round_units(Fraction(x), decimals, "half-even"))
             for i in range(0, a.shape[0], step)]
    if any(p is None for p in parts):
        return [[float_entry(x, decimals) for x in row] for row in a.tolist()]
    return Scaled(np.concatenate([p.num for p in parts]), 10, -decimals)


def from_numpy(a, decimals: int | None = None, rows=None, cols=None,
               name: str | None = None) -> Tensor:
    """An exact matrix from a NumPy array (1-D: one row; 2-D: rows × columns).

    Float entries are taken at their **exact binary value** (``np.float32(0.1)`` is
    13421773/134217728), or with ``decimals=N`` rounded half-even to N decimal places,
    which is what ``print`` showed at that precision. ``-inf`` becomes the mask value;
    NaN and +inf are refused. Integer and decimal-string arrays are exact as they are.
    All are read at once into integers with a power of two or ten (:mod:`symattn.scaled`).
    """
    from .ops.primitives import const
    a = _numpy(a)
    if decimals is not None and (not isinstance(decimals, int) or isinstance(decimals, bool)
                                 or not 0 <= decimals <= 1000):
        raise InputError(f"decimals={decimals!r}: give a whole number of places, 0 to 1000")
    if a.dtype.kind != "f":
        return const(exact_entries(a), rows, cols, name=name)
    return const(float_entries(_matrix(a), decimals), rows, cols, name=name)


def from_torch(t, decimals: int | None = None, rows=None, cols=None,
               name: str | None = None) -> Tensor:
    """An exact matrix from a PyTorch tensor, as :func:`from_numpy` takes an array.

    Floats are taken at their **exact binary value**, or rounded half-even to ``decimals``
    places (what ``print(t)`` shows at that precision). Row vectors throughout: an
    ``nn.Linear``'s ``weight`` is output × input, so pass ``from_torch(lin.weight.T)``.
    """
    if type(t).__module__.split(".")[0] != "torch":
        raise InputError(f"from_torch takes a torch.Tensor, not {type(t).__name__}")
    return from_numpy(t, decimals, rows, cols, name)


# -- out of a Tensor ----------------------------------------------------------------------

def to_sympy(t: Tensor):
    """The exact value: a SymPy expression for 1×1, else a ``sympy.ImmutableMatrix``."""
    m = t.exact()
    return m[0, 0] if t.shape == (1, 1) else m


def to_list(t: Tensor) -> list:
    """Nested lists (rows) of exact SymPy values; −∞ as ``-oo``."""
    m = t.exact()
    return [[m[i, j] for j in range(t.shape[1])] for i in range(t.shape[0])]


def to_array(t: Tensor, dtype=None, copy=None, exact: bool = False):
    """The float64 path's value as a NumPy array (``dtype`` converts it); with ``exact``,
    an object array of the exact SymPy values."""
    if exact and dtype is None:
        import numpy as np
        out = np.empty(t.shape, dtype=object)
        out[:, :] = to_list(t)
        return out
    a = t.numpy("float32" if str(dtype) == "float32" else "float64")
    return a if dtype is None else a.astype(dtype, copy=False)


def to_pandas(t: Tensor, digits: int | None = 6):
    """A ``pandas.DataFrame`` indexed by the Tensor's labels (else 0, 1, ...): each entry a
    ``decimal.Decimal`` of the certified value to ``digits`` significant digits (−∞ as
    ``Decimal('-Infinity')``), or with ``digits=None`` the exact SymPy value. No float."""
    from decimal import Decimal
    try:
        import pandas
    except ImportError:
        raise InputError("Tensor.to_pandas needs pandas, which is not installed",
                         hint="pip install pandas") from None
    if digits is None:
        cells = to_list(t)
    else:
        cells = [[Decimal("-Infinity") if v == "-inf" else Decimal(v) for v in row]
                 for row in t.evaluate(digits=digits)]
    rows = [t.row_label(i) for i in range(t.shape[0])] if t.rows else None
    cols = [t.col_label(j) for j in range(t.shape[1])] if t.cols else None
    return pandas.DataFrame(cells, index=rows, columns=cols, dtype=object)


provide(sympy=to_sympy, tolist=to_list, array=to_array, pandas=to_pandas)
