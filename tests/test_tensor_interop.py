"""Tensors as a scientific-Python citizen: they show their certified values, convert to
SymPy and NumPy, come in from NumPy and PyTorch (floats at their exact binary value or as
printed), and speak the spec language's names. Truths come from mpmath, decimal,
fractions and PyTorch, never from symattn itself."""

from __future__ import annotations

import re
from decimal import Decimal, ROUND_HALF_EVEN, ROUND_HALF_UP
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

import symattn as sa
from symattn.errors import InputError, ShapeError


def softmax_truth(row, dps=40):
    with mpmath.workdps(dps):
        e = [mpmath.exp(mpmath.mpf(Fraction(x).numerator) / Fraction(x).denominator) for x in row]
        s = sum(e)
        return [x / s for x in e]


def sig6(x) -> str:
    return mpmath.nstr(x, 6, strip_zeros=False)


# -- repr / str / HTML ------------------------------------------------------------------

def test_repr_shows_certified_values_with_labels():
    z = sa.matrix([["0", "1/2", "-1"]], rows=["love"], cols=["a", "b", "c"])
    w = sa.softmax(z).named("w")
    text = repr(w)
    assert str(w) == text
    head, cols, row = text.splitlines()
    assert head.startswith("Tensor 'w' 1×3") and "certified" in head
    assert cols.split() == ["a", "b", "c"]
    assert row.split() == ["love"] + [sig6(x) for x in softmax_truth(["0", "1/2", "-1"])]


def test_exact_decimals_are_shown_in_full():
    x = sa.matrix([["0.8", "1.2"]]) @ sa.matrix([["1.0", "0.2"], ["0.1", "0.9"]])
    assert repr(x).splitlines()[1].split() == ["0.92", "1.24"]       # 0.8·1.0 + 1.2·0.1


def test_large_shapes_are_cut_like_numpy():
    n = 20
    t = sa.matrix([[str(i * n + j) for j in range(n)] for i in range(n)],
                  rows=[f"r{i}" for i in range(n)])
    lines = repr(t).splitlines()[1:]
    assert len(lines) == 7                                        # 3 rows, ⋮, 3 rows
    assert lines[0].split() == ["r0", "0", "1", "2", "…", "17", "18", "19"]
    assert lines[3].split()[0] == "⋮"
    assert lines[-1].split() == ["r19", "380", "381", "382", "…", "397", "398", "399"]


def test_masks_and_symbols_show_without_failing():
    assert repr(sa.causal_mask(2)).splitlines()[1].split() == ["0", "-inf"]
    t = sa.symbols("t", 1) * sa.matrix([["2", "1/3"]])
    assert repr(t).splitlines()[1].split() == ["2*t", "t/3"]


def test_html_escapes_labels():
    t = sa.matrix([["1", "2"]], rows=["<pad>"], cols=["a&b", "猫"])
    h = t._repr_html_()
    assert "<th>&lt;pad&gt;</th>" in h and "<th>a&amp;b</th>" in h and "<th>猫</th>" in h
    assert re.search(r"<td[^>]*>1</td><td[^>]*>2</td>", h)
    assert t._repr_latex_().startswith("$$")
    big = sa.matrix([[str(j) for j in range(50)]])
    assert big._repr_latex_() is None and re.search(r"<td[^>]*>…</td>", big._repr_html_())


# -- SymPy, NumPy, Python protocols -------------------------------------------------------

def test_sympify_entry_and_matrix():
    w = sa.softmax(sa.matrix([["0", "1/2"]]))
    e = sympy.sympify(w[0, 1])
    assert sympy.simplify(e - sympy.exp(sympy.Rational(1, 2)) / (1 + sympy.exp(sympy.Rational(1, 2)))) == 0
    m = sympy.sympify(sa.matrix([["1/3", "2"], ["0.5", "-1"]]))
    assert m == sympy.ImmutableMatrix([[sympy.Rational(1, 3), 2], [sympy.Rational(1, 2), -1]])
    x = sa.matrix([["1/3", "2"], ["0.5", "-1"]])
    assert sympy.Matrix(x) == m and sympy.ImmutableMatrix(x) == m     # exact, not floats
    assert sympy.Matrix(w)[0, 1] == e


def test_numpy_array_len_iteration_tolist():
    x = sa.matrix([["1/3", "2"], ["0.5", "-1"], ["7", "0"]], rows=["a", "b", "c"])
    a = np.array(x)
    assert a.shape == (3, 2) and a.dtype == np.float64
    assert a[0, 0] == 1 / 3 and a[1, 0] == 0.5
    assert np.asarray(x, dtype=np.float32).dtype == np.float32
    assert len(x) == 3
    rows = list(x)
    assert [r.shape for r in rows] == [(1, 2)] * 3 and rows[1].rows == ("b",)
    assert x.tolist() == [[sympy.Rational(1, 3), 2], [sympy.Rational(1, 2), -1], [7, 0]]


# -- in from NumPy and PyTorch ----------------------------------------------------------

def test_matrix_takes_integer_and_decimal_string_arrays():
    assert sa.matrix(np.array([[1, -2], [3, 4]], dtype=np.int16)).exact() == \
        sympy.Matrix([[1, -2], [3, 4]])
    assert sa.matrix(np.array(["0.1", "1/3"])).exact() == \
        sympy.Matrix([[sympy.Rational(1, 10), sympy.Rational(1, 3)]])
    with pytest.raises(InputError, match="binary floats"):
        sa.matrix(np.array([0.1, 0.2]))
    with pytest.raises(ShapeError):
        sa.matrix(np.zeros((2, 2, 2), dtype=int))


def test_from_numpy_exact_binary_value_or_as_printed():
    a = np.array([[0.1, -2.675], [1e-7, 3.0]])
    exact = sa.from_numpy(a).exact()
    for i in range(2):
        for j in range(2):
            q = Fraction(Decimal(float(a[i, j])))           # the exact binary value, via decimal
            assert exact[i, j] == sympy.Rational(q.numerator, q.denominator)
    shown = sa.from_numpy(a, decimals=2).exact()
    for i in range(2):
        for j in range(2):
            d = Decimal(float(a[i, j])).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
            assert shown[i, j] == sympy.Rational(str(d))
    assert shown[0, 1] == sympy.Rational("-2.67")            # -2.675 is below the tie in binary
    f32 = sa.from_numpy(np.array([0.1], dtype=np.float32)).exact()[0, 0]
    assert f32 == sympy.Rational(13421773, 134217728)
    assert sa.from_numpy(np.array([[0.0, -np.inf]])).evaluate(digits=3) == [["0", "-inf"]]
    with pytest.raises(InputError):
        sa.from_numpy(np.array([np.nan]))


def test_a_huge_array_is_refused_before_it_is_converted(monkeypatch):
    from symattn.errors import LimitError
    from symattn.ops import primitives
    monkeypatch.setattr(primitives, "MAX_ENTRIES", 100)
    with pytest.raises(LimitError, match="101 entries"):
        sa.from_numpy(np.zeros(101, dtype=object))
    # numbers and text are read into integers (at most 16 bytes an entry, not a ball's 72):
    # as many entries as the memory of MAX_ENTRIES balls holds (4 to 7 times as many)
    assert sa.from_numpy(np.zeros(400)).shape == (1, 400)
    with pytest.raises(LimitError, match="1×1000 matrix"):
        sa.from_numpy(np.zeros(1000))
    with pytest.raises(LimitError):
        sa.matrix(np.zeros((32, 32), dtype=int))


@pytest.mark.torch
def test_torch_linear_weights_give_the_printed_output():
    torch = pytest.importorskip("torch")
    torch.manual_seed(123)
    lin = torch.nn.Linear(3, 2)
    x = torch.tensor([[0.5, -1.0, 2.0]])
    with torch.no_grad():
        y = lin(x)
    printed = re.findall(r"-?\d+\.\d+", str(y))             # tensor([[-1.1300,  0.9882]])
    assert len(printed) == 2
    z = sa.linear(sa.from_torch(x), sa.from_torch(lin.weight.T), sa.from_torch(lin.bias))
    assert sa.evaluate(z, decimals=4, rounding="half-even") == [printed]
    # the weights as printed: what print(lin.weight) shows, exactly
    w_printed = [re.findall(r"-?\d+\.\d+", line) for line in str(lin.weight).splitlines()[1:]]
    w = sa.from_torch(lin.weight, decimals=4).exact()
    assert [[w[i, j] for j in range(3)] for i in range(2)] == \
        [[sympy.Rational(s) for s in row] for row in w_printed]


# -- one vocabulary, decimals beside digits ----------------------------------------------

def test_evaluate_decimals_half_up_beside_significant_digits():
    x = sa.matrix([["-1.16045", "0.0565549", "0.00005"]])
    by_places = [str(Decimal(s).quantize(Decimal("0.0001"), ROUND_HALF_UP))
                 for s in ["-1.16045", "0.0565549", "0.00005"]]
    assert sa.evaluate(x, decimals=4) == [by_places]
    assert sa.evaluate(x, decimals=4, rounding="half-even")[0][2] == "0.0000"
    assert sa.evaluate(x, digits=4) == [["-1.160", "0.05655", "0.00005000"]]
    assert x.evaluate(decimals=1) == [["-1.2", "0.1", "0.0"]]
    with pytest.raises(InputError):
        sa.evaluate(x, digits=4, decimals=4)


def test_python_and_spec_share_operation_names():
    from symattn.spec.functions import FUNCTIONS
    for name in FUNCTIONS:
        assert callable(getattr(sa, name)), name
    assert sa.sum is sa.row_sum and sa.max is sa.row_max and sa.abs is sa.ops.abs_
    from symattn.spec.expr import parse, unparse
    assert unparse(parse("row_sum(x) + row_max(x) + matmul(a, b)")) == \
        unparse(parse("sum(x) + max(x) + a @ b"))
    ns = {}
    exec("from symattn import *", ns)                       # builtins stay unshadowed
    assert "sum" not in ns and "max" not in ns and "abs" not in ns


def test_import_symattn_loads_neither_sympy_nor_numpy_nor_torch():
    import subprocess
    import sys
    code = ("import sys, symattn; x = symattn.matrix([['1']]); "
            "print(sorted(m for m in ('sympy', 'numpy', 'torch') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.stdout.strip() == "[]", r.stderr


def test_docstring_examples_of_the_public_api():
    import doctest
    import symattn.display
    import symattn.interop
    for module in (sa, symattn.display, symattn.interop):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
