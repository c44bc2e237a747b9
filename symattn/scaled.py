"""The compact exact form of a constant matrix: integers with a power of ten or two.

``Scaled(num, base, exp)`` is the m×n matrix whose entry (i, j) is ``num[i, j] · base**exp``
(``exp`` one integer for the whole matrix, or an integer array the shape of ``num``). It is
what decimal strings, NumPy arrays and PyTorch tensors are read into: the smallest NumPy
integer type that holds the numerators (1 to 8 bytes an entry, plus 2 for per-entry
exponents), not a Python object per entry. Each evaluation context converts it to its own
types only when it needs them (a ``float64`` array, ``fmpq`` entries, an ``fmpz_mat`` for a
product, SymPy rationals); to every other reader it is what a constant's entries always
were, a sequence of rows of ``Fraction`` s (``entries[i][j]``, ``for row in entries``).

>>> import numpy as np
>>> s = Scaled(np.array([[5, -25]]), 10, -2)
>>> s[0]
(Fraction(1, 20), Fraction(-1, 4))
"""

from __future__ import annotations

from fractions import Fraction

ENTRY_BYTES = 16                    # the most a Scaled costs an entry (8 + 2, rounded up)
INT64_DIGITS = 18                   # decimal digits every int64 holds
INT64_BITS = 62                     # bits of |numerator| kept in an int64, with room to spare


class Scaled:
    """Entries ``num[i, j] · base**exp`` (``base`` 2 or 10); see the module."""

    __slots__ = ("num", "base", "exp", "shape")

    def __init__(self, num, base: int, exp):
        import numpy as np
        self.num = _narrow(num)
        self.base = base
        self.exp = exp if isinstance(exp, int) else np.asarray(exp, dtype=np.int16)
        self.shape = (int(num.shape[0]), int(num.shape[1]))

    # -- what a constant's entries are to every reader: rows of Fractions ---------------
    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, i: int) -> tuple:
        import numpy as np
        if isinstance(i, slice):
            return tuple(self[k] for k in range(*i.indices(self.shape[0])))
        if not isinstance(i, (int, np.integer)):
            raise TypeError("Scaled rows are indexed by integers")
        e = self.exp if isinstance(self.exp, int) else self.exp[i].tolist()
        return _row_fractions(self.num[i].tolist(), self.base, e)

    def __iter__(self):
        return (self[i] for i in range(self.shape[0]))

    def __reduce__(self):
        return (Scaled, (self.num, self.base, self.exp))

    @property
    def common(self) -> bool:
        """One exponent for the whole matrix (one denominator or one factor)."""
        return isinstance(self.exp, int)

    @property
    def nbytes(self) -> int:
        return self.num.nbytes + (0 if self.common else self.exp.nbytes)

    def fractions(self) -> tuple:
        """The entries as rows of Fractions (the per-entry form)."""
        return tuple(self)

    # -- what the contexts convert it to --------------------------------------------------
    def floats(self, dtype: str = "float64"):
        """A float array, each entry the correctly rounded value of its exact rational."""
        import numpy as np
        num, e = self.num, self.exp
        small = num.dtype != object and bool(np.all(np.abs(num) < 2 ** 53))
        if self.base == 2 and small and not self.common:      # floats at their binary value
            return np.ldexp(num.astype(np.float64), e.astype(np.int32)).astype(dtype)
        if self.common and small:
            if self.base == 2 and -1000 <= e <= 1000:
                return np.ldexp(num.astype(np.float64), e).astype(dtype)   # exact, then one rounding
            if self.base == 10 and -22 <= e <= 22:
                x = num.astype(np.float64)       # exact; one correctly rounded × or ÷ by 10^|e|
                return (x * 10.0 ** e if e >= 0 else x / 10.0 ** -e).astype(dtype)
        # float64 first, as every constant is read (so float32 is float32(float64(q)))
        return np.array([[q.numerator / q.denominator for q in r] for r in self]).astype(dtype)

    def scale(self) -> tuple[int, int]:
        """(factor, denominator) of a common exponent: entry = num · factor / denominator."""
        p = self.base ** abs(self.exp)
        return (p, 1) if self.exp >= 0 else (1, p)


def _narrow(num):
    """The numerators in the smallest signed integer type that holds them."""
    import numpy as np
    num = np.asarray(num)
    if num.dtype == object:
        return num
    if num.size == 0:
        return num.astype(np.int8)
    lo, hi = int(num.min()), int(num.max())
    for t in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(t)
        if info.min <= lo and hi <= info.max:
            return num.astype(t, copy=False)
    return num


def _row_fractions(nums: list, base: int, e) -> tuple:
    if isinstance(e, int):
        if e >= 0:
            f = base ** e
            return tuple(Fraction(n * f) for n in nums)
        d = base ** -e
        return tuple(Fraction(n, d) for n in nums)
    return tuple(Fraction(n * base ** k) if k >= 0 else Fraction(n, base ** -k)
                 for n, k in zip(nums, e))


def common_exponent(num, exp, digits_of, limit: int, base: int):
    """``(num, exp)`` brought to the smallest exponent when every numerator still fits
    (``digits_of(num)`` in digits or bits of the base, at most ``limit``), else as given."""
    import numpy as np
    nz = num != 0
    if not nz.any():
        return np.zeros_like(num, dtype=np.int64), 0
    e0 = int(exp[nz].min())
    shift = np.where(nz, exp - e0, 0)
    if int((np.where(nz, digits_of(num), 0) + shift).max()) > limit:
        return num, exp
    power = np.power(np.int64(base), shift.astype(np.int64))
    return num.astype(np.int64) * power, e0


def bits_of(num):
    """Bits of |num| (num < 2^53, so the float conversion is exact)."""
    import numpy as np
    return np.frexp(np.abs(num).astype(np.float64))[1]


def from_binary(a) -> Scaled:
    """Finite floats at their exact binary value: m · 2^e each, then one exponent if it fits."""
    import numpy as np
    a = np.asarray(a, dtype=np.float64)
    frac, e = np.frexp(a)                        # a = frac · 2^e, 1/2 ≤ |frac| < 1
    num = (frac * 2.0 ** 53).astype(np.int64)    # exact: 53 bits
    exp = e.astype(np.int32) - 53
    nz = num != 0
    low = np.where(nz, num & -num, 1)            # the lowest set bit: strip trailing zeros
    tz = np.frexp(low.astype(np.float64))[1] - 1
    num = num >> tz
    exp = np.where(nz, exp + tz, 0)
    num, exp = common_exponent(num, exp, bits_of, INT64_BITS, 2)
    return Scaled(num, 2, exp)


def rounded_decimals(a, decimals: int, exact_one) -> Scaled | None:
    """Finite floats rounded half-even to ``decimals`` places as a ``Scaled`` (base 10), or
    None when they are not all counts of 10^-decimals units that an int64 holds.

    Vectorised where the float product a·10^k decides the rounding: it is within a
    relative 2^-53 of the exact product, so an entry whose product is farther than that
    from a half-integer rounds the same as the exact value and is no tie. Every other
    entry (near a tie, or too large) is rounded by ``exact_one(x)`` (the project's rule,
    on the exact binary value) and must give an integer count of 10^-decimals units.
    """
    import numpy as np
    a = np.asarray(a, dtype=np.float64)
    if decimals > 22:                            # 10^k no longer exact in a float
        return None
    y = a * 10.0 ** decimals
    r = np.rint(y)
    f = np.abs(y - np.floor(y) - 0.5)
    sure = (np.abs(y) < 2.0 ** 52) & (f > np.abs(y) * 2.0 ** -50 + 2.0 ** -1000)
    units = np.where(sure, r, 0).astype(np.int64)
    for idx in zip(*np.nonzero(~sure)):
        u = exact_one(float(a[idx]))
        if abs(u) >= 2 ** 63:
            return None
        units[idx] = u
    return Scaled(units, 10, -decimals)
