"""The spec language says what articles do (issue 22): ** with a matrix exponent, sigmoid,
floor/trunc/round, expressions inside a literal matrix, slices, alibi_bias with a slope
and its symmetric form, rope with one angle per position, multi_head's per-head
intermediates; each with the LaTeX that reads like the article. Truths from mpmath,
fractions and Python's own math, never from symattn."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from decimal import Decimal, ROUND_HALF_UP
from fractions import Fraction

import mpmath
import pytest

import symattn as sa
from symattn.claims.check import check_spec
from symattn.errors import SymattnError
from symattn.spec.load import load
from test_llama_ops import mpm, ref_matmul, ref_attention, cols, H_IN, WQ, WK, WV
from test_llama_ops import precision  # noqa: F401  (autouse: mpmath at 40 digits)


def spec_file(tmp_path, body: str, name="s.toml"):
    p = tmp_path / name
    p.write_text('[example]\nid = "s"\nsource = "post.md"\n' + textwrap.dedent(body), encoding="utf-8")
    return p


def values(tmp_path, body: str, step: str, digits=25):
    return sa.evaluate(load(str(spec_file(tmp_path, body))).tensors[step], digits=digits)


def close(text: str, truth, digits=20) -> bool:
    return abs(mpmath.mpf(text) - truth) <= abs(truth) * mpmath.mpf(10) ** (1 - digits) + mpmath.mpf(10) ** -30


def latex(tmp_path, body: str) -> str:
    p = spec_file(tmp_path, body)
    out = tmp_path / "out.md"
    r = subprocess.run([sys.executable, "-m", "symattn", "latex", str(p), "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return out.read_text(encoding="utf-8")


def four(v) -> str:
    return str(Decimal(mpmath.nstr(v, 30)).quantize(Decimal("0.0001"), ROUND_HALF_UP))


# -- ** with a matrix exponent -------------------------------------------------------------------

THETA = '''
[inputs]
i = [[0, 1, 2, 3]]
d = 8
[[steps]]
name = "theta"
expr = "10000 ** (-2 * i / d)"
'''


def test_power_with_a_matrix_exponent(tmp_path):
    got = values(tmp_path, THETA, "theta")[0]
    for k, text in enumerate(got):
        assert close(text, mpmath.power(10000, mpmath.mpf(-2 * k) / 8))
    assert r"{10000}^{-2i/d}" in latex(tmp_path, THETA)


def test_power_with_an_irrational_exponent_is_one_line(tmp_path):
    p = spec_file(tmp_path, '[inputs]\nx = [[1, 2]]\n[[steps]]\nname = "y"\nexpr = "2 ** sqrt(x)"\n')
    r = subprocess.run([sys.executable, "-m", "symattn", "check", str(p)], capture_output=True, text=True)
    assert r.returncode == 2 and "exact rational" in r.stderr and len(r.stderr.strip().splitlines()) == 1


# -- sigmoid, floor, trunc, round -----------------------------------------------------------------

POINTS = ["2.5", "-2.5", "3.5", "1.7", "-1.7", "0.5", "-0.5", "0"]


def test_integer_parts_against_python():
    x = sa.matrix([POINTS])
    qs = [Fraction(p) for p in POINTS]
    from symattn.ops import primitives as P
    truth = {"floor": [math.floor(q) for q in qs], "trunc": [math.trunc(q) for q in qs],
             "round": [round(q) for q in qs]}                     # Python's round: ties to even
    assert truth["round"][:3] == [2, -2, 4]
    for name, want in truth.items():
        t = P.BUILDERS["round_" if name == "round" else name](x)
        assert list(t.exact()) == want, name
        assert [float(v) for v in t.numpy()[0]] == [float(w) for w in want], name
    irr = sa.floor(sa.sqrt(sa.matrix([[2]])) * 10)                  # ⌊10√2⌋ = 14
    assert list(irr.exact()) == [math.isqrt(200)]


def test_integer_parts_have_derivative_zero_and_say_so():
    x = sa.matrix([["0.3", "1.7"]])
    g = sa.gradient(sa.row_sum(sa.floor(x * 3) + x), x)
    assert list(g.exact()) == [1, 1]
    assert any("floor: derivative 0 almost everywhere" in n for n in g.notes)


def test_sigmoid_values_and_derivative_against_mpmath():
    x = sa.matrix([["0.5", "-1.5", "2"]])
    sig = lambda t: 1 / (1 + mpmath.exp(-t))
    for text, p in zip(sa.sigmoid(x).evaluate(digits=25)[0], ("0.5", "-1.5", "2")):
        assert close(text, sig(mpmath.mpf(p)))
    for text, p in zip(sa.grad(sa.row_sum(sa.sigmoid(x)), x, digits=20)[0], ("0.5", "-1.5", "2")):
        assert close(text, mpmath.diff(sig, mpmath.mpf(p)), 18)


def test_the_functions_in_a_spec_and_their_latex(tmp_path):
    body = '''
    [inputs]
    x = [[2.5, -1.7]]
    [[steps]]
    name = "y"
    expr = "round(x) + floor(x) + trunc(x) + sigmoid(x)"
    '''
    got = values(tmp_path, body, "y")[0]
    sig = lambda t: 1 / (1 + mpmath.exp(-mpmath.mpf(t)))
    assert close(got[0], 2 + 2 + 2 + sig("2.5")) and close(got[1], -2 - 2 - 1 + sig("-1.7"))
    tex = latex(tmp_path, body)
    assert r"\left\lfloor x \right\rfloor" in tex and r"\sigma\left(x\right)" in tex
    assert r"\operatorname{round}" in tex and r"\operatorname{trunc}" in tex


# -- literal matrices with expressions, slices ----------------------------------------------------

ROT = '''
[inputs]
t = 0.5
x = [[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 1.5]]
[[steps]]
name = "R"
expr = "[[cos(t), -sin(t)], [sin(t), cos(t)]]"
[[steps]]
name = "y"
expr = "x[0, 0:2] @ R.T"
[[steps]]
name = "tail"
expr = "x[:, 2:]"
'''


def test_a_rotation_matrix_literal_and_slices(tmp_path):
    t = mpmath.mpf("0.5")
    c, s = mpmath.cos(t), mpmath.sin(t)
    y = values(tmp_path, ROT, "y")[0]
    assert close(y[0], 1 * c - 2 * s) and close(y[1], 1 * s + 2 * c)
    X = [["1.0", "2.0", "3.0", "4.0"], ["0.5", "-1.0", "2.0", "1.5"]]
    tail = values(tmp_path, ROT, "tail")
    assert [[Fraction(v) for v in r] for r in tail] == [[Fraction(v) for v in r[2:]] for r in X]
    tex = latex(tmp_path, ROT)
    assert (r"\begin{bmatrix} \cos\left(t\right) & -\sin\left(t\right) \\ "
            r"\sin\left(t\right) & \cos\left(t\right) \end{bmatrix}") in tex
    assert "Concat" not in tex and "Stack" not in tex
    assert r"x_{1,1{:}2}" in tex and r"x_{:,3{:}4}" in tex


@pytest.mark.parametrize("expr, says", [("[[x, 1]]", "one number, not a 2×4 matrix"),
                                        ("x[0, 3:1]", "is empty")])
def test_bad_literals_and_slices_are_one_line(tmp_path, expr, says):
    p = spec_file(tmp_path, f'[inputs]\nx = [[1, 2, 3, 4], [5, 6, 7, 8]]\n[[steps]]\nname = "y"\nexpr = "{expr}"\n')
    r = subprocess.run([sys.executable, "-m", "symattn", "check", str(p)], capture_output=True, text=True)
    assert r.returncode == 2 and says in r.stderr and len(r.stderr.strip().splitlines()) == 1


# -- alibi_bias with a slope, symmetric; rope with one angle per position -----------------------

def test_alibi_with_a_given_slope_and_the_symmetric_form(tmp_path):
    body = '''
    [inputs]
    [[steps]]
    name = "B"
    expr = "alibi_bias(1, 3, slope=0.5, symmetric=1)"
    [[steps]]
    name = "C"
    expr = "alibi_bias(2, 3, slope=[[0.5, 0.25]])"
    '''
    B = values(tmp_path, body, "B")
    assert [[Fraction(v) for v in r] for r in B] == [[Fraction(-abs(i - j), 2) for j in range(3)] for i in range(3)]
    C = values(tmp_path, body, "C")
    want = [[m * (j - i) for j in range(3)] for m in (Fraction(1, 2), Fraction(1, 4)) for i in range(3)]
    assert [[Fraction(v) for v in r] for r in C] == want
    tex = latex(tmp_path, body)
    assert r"-m_{h}\,\lvert i - j\rvert" in tex and "m_{2} &= 0.25" in tex.replace("\\\\", "")


def test_rope_with_one_angle_per_position(tmp_path):
    body = '''
    [inputs]
    x = [[1.0, 0.5], [0.5, 1.0], [2.0, -1.0]]
    m = [[0], [1], [2]]
    [[steps]]
    name = "y"
    expr = "rope(x, theta=0.1, positions=m)"
    '''
    x = mpm([["1.0", "0.5"], ["0.5", "1.0"], ["2.0", "-1.0"]])
    got = values(tmp_path, body, "y")
    for pos, (row, g) in enumerate(zip(x, got)):
        a = mpmath.mpf("0.1") * pos
        assert close(g[0], row[0] * mpmath.cos(a) - row[1] * mpmath.sin(a))
        assert close(g[1], row[0] * mpmath.sin(a) + row[1] * mpmath.cos(a))
    tex = latex(tmp_path, body)
    assert r"\text{ at position } m" in tex and r"m\,\theta_{k}" in tex and r"\theta_{k} &= 0.1" in tex


# -- multi_head's per-head intermediates ---------------------------------------------------------

MH = '''
[inputs]
H = [[1, 0.5, -0.5, 2], [0, 1, 1.5, -1], [0.5, 0.5, 0.5, 0.5]]
W_Q = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]
W_K = [[1, 0, 0.5, 0], [0, 1, 0, 1], [1, 0, 0, 0], [0, 1, 1, 0]]
W_V = [[0.5, 0, 1, 0], [0, 0.5, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0]]
[[steps]]
name = "S2"
expr = "multi_head(H, W_Q, W_K, W_V, n_heads=2, head=2, part='scores')"
[[steps]]
name = "A2"
expr = "multi_head(H, W_Q, W_K, W_V, n_heads=2, head=2, part='weights')"
[[steps]]
name = "Z1"
expr = "multi_head(H, W_Q, W_K, W_V, n_heads=2, head=1)"
'''


def _head(h):
    x = mpm(H_IN)
    q = cols(ref_matmul(x, mpm(WQ)), 2 * h, 2 * h + 2)
    k = cols(ref_matmul(x, mpm(WK)), 2 * h, 2 * h + 2)
    v = cols(ref_matmul(x, mpm(WV)), 2 * h, 2 * h + 2)
    s = [[mpmath.fsum(a * b for a, b in zip(qi, kj)) / mpmath.sqrt(2) for kj in k] for qi in q]
    w = [[mpmath.exp(z) / mpmath.fsum(mpmath.exp(y) for y in r) for z in r] for r in s]
    return s, w, ref_attention(q, k, v, [[0] * 3] * 3)


def test_multi_head_parts_are_steps_a_claim_names(tmp_path):
    s, w, z = _head(1)
    _, _, z1 = _head(0)
    for step, truth in (("S2", s), ("A2", w), ("Z1", z1)):
        got = values(tmp_path, MH, step)
        assert all(close(g, t) for gr, tr in zip(got, truth) for g, t in zip(gr, tr)), step
    claims = "".join(f'[[claims]]\nstep = "A2"\nat = {i}\nprinted = "[{", ".join(four(v) for v in w[i])}]"\nline = {i + 1}\n'
                     for i in range(3))
    recs = check_spec(load(str(spec_file(tmp_path, MH + claims))))
    assert [r.verdict for r in recs] == ["correct"] * 9
    tex = latex(tmp_path, MH)
    assert r"A^{(2)} \text{ (head 2)}" in tex and r"Z^{(1)} \text{ (head 1)}" in tex


def test_multi_head_part_refusals(tmp_path):
    for expr, says in (("head=3", "the heads are 1 … 2"), ("part='weights'", "belongs to one head"),
                       ("head=1, part='nope'", "a head has Q, K, V")):
        p = spec_file(tmp_path, MH.split("[[steps]]")[0] + f'[[steps]]\nname = "y"\nexpr = "multi_head(H, W_Q, W_K, W_V, n_heads=2, {expr})"\n')
        r = subprocess.run([sys.executable, "-m", "symattn", "check", str(p)], capture_output=True, text=True)
        assert r.returncode == 2 and says in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
