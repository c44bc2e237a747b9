"""The primitives added through their declarations alone: erf, tanh and an exact π.

Truths come from mpmath (values at 50 digits, derivatives by ``mpmath.diff``) and from
Python's ``math`` (floats), never from the code under test."""

import math

import mpmath
import pytest
import sympy

import symattn as sa
from symattn.errors import MaskError
from symattn.tensor import NEG_INF

mpmath.mp.dps = 60
POINTS = ["1/2", "-3/2", "2", "7/100", "-1/3"]
FUNCTIONS = {"erf": (sa.erf, mpmath.erf, math.erf), "tanh": (sa.tanh, mpmath.tanh, math.tanh)}


def mp(q: str):
    return mpmath.mpf(sympy.Rational(q).p) / sympy.Rational(q).q


def assert_digits(text: str, truth, digits: int = 30):
    """``text`` is ``truth`` correctly rounded to ``digits`` significant digits: within half
    a unit in its last place (the unit computed from the truth, independently)."""
    if truth == 0:
        assert text == "0"
        return
    unit = mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(abs(truth))) - digits + 1)
    assert abs(mpmath.mpf(text) - truth) <= unit / 2, (text, truth)
    assert len(text.lstrip("-").replace(".", "").lstrip("0")) <= digits


@pytest.mark.parametrize("name", FUNCTIONS)
def test_values_to_30_digits_against_mpmath(name):
    build, truth, _ = FUNCTIONS[name]
    x = sa.matrix([POINTS])
    got = build(x).evaluate(digits=30)[0]
    for text, q in zip(got, POINTS):
        assert_digits(text, truth(mp(q)))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_exact_values_are_sympy_closed_forms(name):
    x = sa.matrix([POINTS])
    got = FUNCTIONS[name][0](x).exact()
    want = getattr(sympy, name)
    assert list(got) == [want(sympy.Rational(q)) for q in POINTS]
    assert FUNCTIONS[name][0](sa.matrix([[0]])).exact()[0, 0] == 0     # folds at 0


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_float_against_math(name, dtype):
    build, _, ref = FUNCTIONS[name]
    got = build(sa.matrix([POINTS])).numpy(dtype)
    assert got.dtype.name == dtype
    tol = 1e-15 if dtype == "float64" else 1e-7
    for v, q in zip(got[0], POINTS):
        assert abs(float(v) - ref(float(sympy.Rational(q)))) <= tol


@pytest.mark.parametrize("name", FUNCTIONS)
def test_derivatives_against_mpmath_diff(name):
    build, truth, _ = FUNCTIONS[name]
    x = sa.matrix([POINTS])
    g = sa.grad(sa.row_sum(build(x)), x, digits=30)[0]
    for text, q in zip(g, POINTS):
        assert_digits(text, mpmath.diff(truth, mp(q)))
    exact = sa.grad(sa.row_sum(build(x)), x)               # the exact reverse mode
    d = sympy.Symbol("d")
    for e, q in zip(exact, POINTS):
        want = sympy.diff(getattr(sympy, name)(d), d).subs(d, sympy.Rational(q))
        assert sympy.N(e - want, 40) == 0 or abs(sympy.N(e - want, 40)) < 1e-35


def test_gelu_tanh_form_uses_pi_exactly_and_differentiates():
    """GELU's tanh form 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) and its slope."""
    c = sa.sqrt(2 / sa.pi())
    assert c.exact()[0, 0] == sympy.sqrt(2) / sympy.sqrt(sympy.pi)
    assert_digits(c.evaluate(digits=30)[0][0], mpmath.sqrt(2 / mpmath.pi))
    x = sa.matrix([POINTS])
    y = sa.row_sum(x * (1 + sa.tanh(c * (x + sa.matrix([["0.044715"]]) * x ** 3))) / 2)

    def gelu(t):
        return t * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (t + mpmath.mpf("0.044715") * t ** 3))) / 2
    assert_digits(y.evaluate(digits=30)[0][0], sum(gelu(mp(q)) for q in POINTS))
    for text, q in zip(sa.grad(y, x, digits=25)[0], POINTS):
        assert_digits(text, mpmath.diff(gelu, mp(q)), 25)
    assert abs(float(y.numpy()[0, 0]) - float(sum(gelu(mp(q)) for q in POINTS))) < 1e-13


def test_pi_in_every_context_and_its_gradient():
    p = sa.pi()
    assert p.shape == (1, 1)
    assert p.exact()[0, 0] is sympy.pi
    assert_digits(p.evaluate(digits=30)[0][0], mpmath.pi)
    assert p.numpy()[0, 0] == math.pi
    x = sa.matrix([["1", "-2"]])
    assert list(sa.grad(sa.row_sum(x * p), x)) == [sympy.pi, sympy.pi]
    assert list(sa.grad(sa.row_sum(sa.sin(x * p)), x)) == [-sympy.pi, sympy.pi]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_minus_infinity_is_the_limit(name):
    """erf(−∞) = tanh(−∞) = −1 in every context; a −∞ entry has no slope to pass on."""
    build = FUNCTIONS[name][0]
    x = sa.matrix([[0, NEG_INF]])
    y = build(x)
    assert list(y.exact()) == [0, -1]
    assert y.evaluate(digits=10) == [["0", "-1.000000000"]]
    assert y.numpy().tolist() == [[0.0, -1.0]]
    w = sa.matrix([["1/2", "1/3"]])
    g = sa.grad(sa.row_sum(build(w + x)), w, digits=10)
    assert g[0][1] == "0" and g[0][0] != "0"
    with pytest.raises(MaskError):
        (sa.log(y + 2) + sa.log(x + 1)).exact()     # a mask reaching log is refused


def test_formal_proof_of_zero_and_signs_through_erf():
    x = sa.matrix([["1/2", "-3/2"]])
    z = sa.erf(x) * sa.tanh(x) - sa.tanh(x) * sa.erf(x)      # exactly 0: balls cannot tell
    assert z.evaluate(digits=20) == [["0", "0"]]
    r = sa.relu(sa.erf(x) - sa.matrix([["1/2"]])).exact()     # sign decided by balls
    assert r[0, 0] == sympy.erf(sympy.Rational(1, 2)) - sympy.Rational(1, 2) and r[0, 1] == 0


def test_the_spec_language_calls_every_declared_function_by_its_name(tmp_path):
    """erf, tanh and pi() in a spec, checked against mpmath: GELU's two forms by hand."""
    from symattn.claims.check import check_spec
    from symattn.spec.load import load
    x = mpmath.mpf("0.7")
    with mpmath.workdps(40):
        erf_form = 0.5 * x * (1 + mpmath.erf(x / mpmath.sqrt(2)))
        tanh_form = 0.5 * x * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (x + mpmath.mpf("0.044715") * x ** 3)))
    spec = tmp_path / "gelu.toml"
    spec.write_text(f'''
[example]
id = "g"
source = "a.md"

[inputs]
x = 0.7

[[steps]]
name = "by_erf"
expr = "0.5 * x * (1 + erf(x / sqrt(2)))"

[[steps]]
name = "by_tanh"
expr = "0.5 * x * (1 + tanh(sqrt(2 / pi()) * (x + 0.044715 * x ** 3)))"

[[claims]]
step = "by_erf"
printed = "{mpmath.nstr(erf_form, 12)}"
line = 1

[[claims]]
step = "by_tanh"
printed = "{mpmath.nstr(tanh_form, 12)}"
line = 2

[[claims]]
step = "by_tanh"
printed = "{mpmath.nstr(erf_form, 12)}"
line = 3
''', encoding="utf-8")
    records = check_spec(load(str(spec)))
    assert [r.verdict for r in records] == ["correct", "correct", "wrong"]
