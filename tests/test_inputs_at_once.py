"""Inputs read at once (issue 25): every path gives exactly the values it gave one entry at
a time, checked against ``fractions.Fraction`` and ``decimal`` (not the code under test)."""

from __future__ import annotations

import random
from decimal import Context, Decimal, ROUND_HALF_EVEN, localcontext
from fractions import Fraction

import numpy as np
import pytest

import symattn as sa
from symattn.errors import InputError, LimitError, SymattnError
from symattn.scaled import Scaled
from symattn.tensor import NEG_INF

N = 32            # a 32×32 matrix is read at once (more than primitives.AT_ONCE entries)


def entries(t):
    return [list(r) for r in t.params["entries"]]


def grid(values, n=N):
    """``values`` cycled into an n×n matrix (rows of Python objects)."""
    flat = [values[k % len(values)] for k in range(n * n)]
    return [flat[i * n:(i + 1) * n] for i in range(n)]


def truth_of_text(t: str) -> Fraction:
    t = t.strip().replace("\u2212", "-")
    return Fraction(t) if "/" in t else Fraction(Decimal(t))


def random_decimal_text(rng: random.Random) -> str:
    sign = rng.choice(["", "-", "+"])
    whole = "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 12)))
    frac = "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 12)))
    if not whole and not frac:
        whole = "0"
    body = whole + ("." + frac if frac or rng.random() < 0.2 else "")
    if body.startswith(".") and not frac:
        body = "0" + body
    exp = rng.choice(["", "", f"e{rng.randint(-30, 30)}", f"E+{rng.randint(0, 999)}",
                      f"e-{rng.randint(0, 1000)}", f"e{rng.randint(0, 9):05d}"])
    return sign + body + exp


def test_decimal_strings_are_the_values_fraction_and_decimal_give():
    rng = random.Random(25)
    texts = [random_decimal_text(rng) for _ in range(N * N)]
    texts[:8] = ["-0", "-0.0", "+.5", "5.", "007", "1e-1000", "-1.e+2", "999999999999999999"]
    rows = grid(texts)
    got = entries(sa.matrix(rows))
    assert got == [[truth_of_text(t) for t in r] for r in rows]
    a = np.array(rows)                               # a NumPy array of decimal strings
    assert entries(sa.matrix(a)) == got
    assert entries(sa.matrix(a.astype("S"))) == got  # and of bytes


def test_short_decimals_share_one_power_of_ten_in_small_integers():
    rows = grid(["-0.04", "0.5", "1.25", "3", "-12.5e-1"])
    e = sa.matrix(rows).params["entries"]
    assert isinstance(e, Scaled) and e.common and e.num.dtype == np.int16
    assert e.nbytes <= 16 * N * N
    assert [list(r) for r in e] == [[Fraction(Decimal(t)) for t in r] for r in rows]


def test_long_and_unusual_text_is_still_read_exactly():
    texts = ["12345678901234567890.123456789", "1/3", " 2.5 ", "\u22120.25", "-7/14",
             "0.1", "1e-999", "123456789012345678e5"]
    rows = grid(texts)
    assert entries(sa.matrix(rows)) == [[truth_of_text(t) for t in r] for r in rows]


@pytest.mark.parametrize("bad, error", [("abc", InputError), ("1..2", InputError),
                                        ("nan", InputError), ("inf", InputError),
                                        ("1e1001", LimitError), ("1\x00", InputError),
                                        ("1/0", InputError), ("٣", None)])
def test_a_bad_entry_gets_the_one_line_error_of_that_text_alone(bad, error):
    from symattn.numbers import parse_exact
    rows = grid(["0.5", "-1.25"])
    rows[7][3] = bad
    if error is None:                                # Python reads Unicode digits as digits
        assert sa.matrix(rows).params["entries"][7][3] == parse_exact(bad)
        return
    with pytest.raises(error) as big:
        sa.matrix(rows)
    with pytest.raises(error) as alone:
        parse_exact(bad)
    assert str(big.value) == str(alone.value) and "\n" not in str(big.value)


def test_binary_floats_are_still_refused_where_a_decimal_is_expected():
    rows = grid(["0.5", "0.25"])
    rows[3][3] = 0.1
    with pytest.raises(InputError, match="binary float"):
        sa.matrix(rows)
    with pytest.raises(InputError, match="binary floats"):
        sa.matrix(np.full((N, N), 0.5))


def random_floats(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)
    x[:10] = [-0.0, 0.0, 5e-324, -2.2250738585072014e-308, 1.7976931348623157e308,
              1e-300, 0.1, -1e300, 2.0 ** -1074, 3.0]
    return x


def test_float_arrays_are_their_exact_binary_values():
    rng = np.random.default_rng(25)
    a = random_floats(rng, N * N).reshape(N, N)
    assert entries(sa.from_numpy(a)) == [[Fraction(x) for x in r] for r in a.tolist()]
    assert sa.from_numpy(a).numpy().tolist() == a.tolist()      # the float path: the same floats
    b = rng.standard_normal((N, N)).astype(np.float32)   # one power of two fits: a Scaled
    e = sa.from_numpy(b).params["entries"]
    assert isinstance(e, Scaled) and e.common
    assert [list(r) for r in e] == [[Fraction(float(x)) for x in r] for r in b.tolist()]


def decimal_rounding(x: float, k: int) -> Fraction:
    """The exact binary value (Decimal(float) is exact) rounded half-even to k places."""
    with localcontext(Context(prec=2000)):
        return Fraction(Decimal(x).quantize(Decimal(1).scaleb(-k), rounding=ROUND_HALF_EVEN))


@pytest.mark.parametrize("k", [0, 1, 2, 3, 6, 15, 22, 25])
def test_decimals_round_half_even_at_the_exact_binary_value(k):
    rng = np.random.default_rng(k)
    ties = [0.5, 1.5, 2.5, -2.5, 0.125, 0.375, -0.625, 1e-3, 0.145, 2.675, 1.005, -0.0]
    x = np.concatenate([ties, rng.uniform(-3, 3, N * N - len(ties))])
    half = (np.round(rng.uniform(-999, 999, 100)) + 0.5) / 10.0 ** min(k, 3)   # near ties
    x[len(ties):len(ties) + 100] = half
    a = x.reshape(N, N)
    got = entries(sa.from_numpy(a, decimals=k))
    assert got == [[decimal_rounding(v, k) for v in r] for r in a.tolist()]


def test_huge_values_with_decimals_fall_back_to_one_entry_at_a_time():
    a = np.full((N, N), 1.5e300)
    a[0, 0] = 2.5
    got = entries(sa.from_numpy(a, decimals=2))
    assert got == [[decimal_rounding(v, 2) for v in r] for r in a.tolist()]


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_nan_and_inf_are_refused_with_one_line(bad):
    a = np.zeros((N, N))
    a[5, 6] = bad
    for decimals in (None, 2):
        with pytest.raises(InputError) as e:
            sa.from_numpy(a, decimals=decimals)
        assert "not a number a matrix can hold" in str(e.value) and "\n" not in str(e.value)


def test_minus_inf_is_still_the_mask():
    a = np.zeros((N, N))
    a[0, 1] = -np.inf
    e = entries(sa.from_numpy(a, decimals=3))
    assert e[0][1] is NEG_INF and e[0][0] == 0 and e[1][1] == 0


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64"])
def test_integer_arrays_are_their_integers(dtype):
    rng = np.random.default_rng(3)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, (N, N), dtype=dtype, endpoint=True)
    assert entries(sa.matrix(a)) == [[Fraction(int(v)) for v in r] for r in a.tolist()]
    rows = [[int(v) for v in r] for r in a.tolist()]
    assert entries(sa.matrix(rows)) == [[Fraction(v) for v in r] for r in rows]


def test_torch_tensors_of_every_float_type_are_their_binary_values():
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(25)
    for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        t = torch.randn(N, N, generator=g).to(dt)
        truth = [[Fraction(float(v)) for v in r] for r in t.to(torch.float64).tolist()]
        assert entries(sa.from_torch(t)) == truth


def test_the_contexts_see_the_same_values():
    rng = random.Random(7)
    rows = grid([f"{rng.randint(-999, 999) / 100:.2f}" for _ in range(97)] + ["1e-5", "3e7"])
    small = [r[:8] for r in rows[:8]]                # read one entry at a time
    for m, kind in ((rows, Scaled), (small, tuple)):
        x = sa.matrix(m)
        assert type(x.params["entries"]) is kind
        truth = [[Fraction(Decimal(t)) for t in r] for r in m]
        assert x.numpy().tolist() == [[v.numerator / v.denominator for v in r] for r in truth]
        assert x.numpy("float32").tolist() == np.array(
            [[v.numerator / v.denominator for v in r] for r in truth]).astype("float32").tolist()
        got = sa.evaluate(x, digits=20)
        assert [[Fraction(Decimal(s)) for s in r] for r in got] == [
            [Fraction(Decimal(format(Decimal(v.numerator) / Decimal(v.denominator), ".19e")))
             for v in r] for r in truth]
    assert sa.matrix(small).exact()[0, 0] == sa.matrix(rows).exact()[0, 0]


def test_a_value_read_at_once_pickles_and_indexes_as_rows():
    import pickle
    x = sa.matrix(grid(["0.25", "-3"]))
    e = x.params["entries"]
    assert e[-1] == e[N - 1] and e[1:3] == (e[1], e[2]) and len(e) == N
    assert [list(r) for r in pickle.loads(pickle.dumps(e))] == entries(x)
    with pytest.raises(SymattnError):
        sa.matrix(grid(["0.25", "x"]))


def test_a_product_by_a_large_constant_read_block_by_block_is_exact_and_certified():
    import mpmath
    from symattn.evaluation.products import SCALED_MIN, scaled_operand
    rng = np.random.default_rng(11)
    x = rng.integers(-99, 100, (2, 256))
    w = rng.integers(-99, 100, (256, 256))
    X, W = sa.matrix(x.tolist()) / 100, sa.from_numpy(w / 100, decimals=2)
    assert W.shape[0] * W.shape[1] >= SCALED_MIN and scaled_operand(X @ W)
    truth = [[sum(Fraction(int(x[i, k]), 100) * Fraction(int(w[k, j]), 100) for k in range(256))
              for j in range(256)] for i in range(2)]
    got = sa.evaluate(X @ W, decimals=4)             # entries are whole counts of 10^-4
    assert [[Fraction(Decimal(g)) for g in r] for r in got] == truth
    with mpmath.workdps(60):
        rms = [mpmath.sqrt(sum(mpmath.mpf(int(v)) ** 2 for v in r) / 256 / 10 ** 4 + mpmath.mpf("1e-6"))
               for r in x]
        want = [[mpmath.nstr(sum(mpmath.mpf(int(x[i, k])) / 100 / rms[i] * int(w[k, j]) / 100
                                 for k in range(256)), 30, min_fixed=-99, max_fixed=99)
                 for j in range(0, 256, 37)] for i in range(2)]
    got = sa.evaluate(sa.rms_norm(X, eps="1e-6") @ W, digits=30)
    assert [[Fraction(Decimal(g)) for g in r[::37]] for r in got] == \
        [[Fraction(Decimal(s)) for s in r] for r in want]


def test_random_text_over_the_number_alphabet_reads_as_decimal_reads_it():
    from decimal import InvalidOperation
    rng = random.Random(2025)
    texts = ["".join(rng.choice("0123456789.+-eE") for _ in range(rng.randint(1, 9)))
             for _ in range(4000)]

    def decimal_value(t):
        try:
            d = Decimal(t)
        except InvalidOperation:
            return None
        return Fraction(d) if abs(d.as_tuple().exponent + len(d.as_tuple().digits)) < 900 \
            else "limit"
    truth = [decimal_value(t) for t in texts]
    good = [(t, v) for t, v in zip(texts, truth) if isinstance(v, Fraction)]
    got = sa.matrix(np.array([[t for t, _ in good]])).params["entries"][0]
    assert list(got) == [v for _, v in good]
    for t in [t for t, v in zip(texts, truth) if v is None][:100]:
        with pytest.raises(SymattnError):
            sa.matrix(np.array([[t]]))


def test_the_benchmarks_llama_block_is_pytorchs_at_a_small_width():
    """benchmarks/llama.py computes the same block in symattn and in PyTorch (float64 here)."""
    pytest.importorskip("torch")
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import llama
    shape = dict(d=64, d_ff=96, h=4, h_kv=2)
    Z = llama.symattn_block(llama.symattn_inputs(5, **shape), h=4, h_kv=2)
    s = sa.compare(Z, llama.torch_block(5, "float64", **shape), digits=30).summary()
    assert s["min_digits"] > 12 and s["nonfinite"] == 0
