"""The operations of LLaMA-style models: rms_norm, gelu, silu, swiglu, rope (both layouts),
alibi_bias and multi_head with packed projections (n_kv_heads: grouped-query and
multi-query attention). The spec language, check, latex and the proof: test_llama_spec.py.

Truths are computed here, independently of the engine: mpmath at 40 digits for the
values (the engine's 30 certified digits must agree), mpmath.diff for gradients, the
ALiBi paper's own slope rule. The PyTorch cross-checks are in test_llama_torch.py.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy

import symattn as sa
from symattn.errors import ShapeError, InputError, DomainError
from symattn.ops import primitives as P
from symattn.ops.alibi import alibi_slopes
from symattn.ops.multi_head import split_heads
from symattn.ops.rms_norm import RMS_EPS, rms_norm_steps
from symattn.ops.rope import rope_steps
from symattn.ops.swiglu import swiglu_steps

ROOT = Path(__file__).resolve().parents[1]
mp = mpmath.mp
DIGITS = 30

X = [["0.5", "-1.25", "2", "0.75"], ["1.5", "0.25", "-0.5", "-2"], ["0", "1", "0.125", "3"]]
GAMMA = [["1", "0.5", "-2", "1.25"]]


def mpm(rows):
    return [[mpmath.mpf(Fraction(v).numerator) / Fraction(v).denominator for v in r] for r in rows]


def assert_digits(t, truth, digits=DIGITS):
    """The engine's certified digits agree with an mpmath truth to about 10^-digits."""
    got = sa.evaluate(t, digits=digits)
    assert len(got) == len(truth) and len(got[0]) == len(truth[0])
    for g_row, t_row in zip(got, truth):
        for g, v in zip(g_row, t_row):
            assert abs(mpmath.mpf(g) - v) <= abs(v) * mpmath.mpf(10) ** (1 - digits) + \
                mpmath.mpf(10) ** (-digits - 5), (g, v)


def assert_float(t, truth):
    got = t.numpy()
    want = np.array([[float(v) for v in r] for r in truth])
    assert np.allclose(got, want, rtol=1e-13, atol=1e-14), (got, want)


@pytest.fixture(autouse=True)
def precision():
    with mpmath.workdps(40):
        yield


# -- references, written from the papers' formulas ---------------------------------------------

def ref_rms_norm(x, eps, gamma=None):
    out = []
    for row in x:
        rms = mpmath.sqrt(mpmath.fsum(v * v for v in row) / len(row) + eps)
        out.append([v / rms * (gamma[0][j] if gamma else 1) for j, v in enumerate(row)])
    return out


def ref_silu(v):
    return v / (1 + mpmath.exp(-v))


def ref_gelu(v, approximate="none"):
    if approximate == "none":
        return v / 2 * (1 + mpmath.erf(v / mpmath.sqrt(2)))
    inner = mpmath.sqrt(2 / mpmath.pi) * (v + mpmath.mpf("0.044715") * v ** 3)
    return v / 2 * (1 + mpmath.tanh(inner))


def ref_matmul(a, b):
    return [[mpmath.fsum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def ref_rope(x, base, layout):
    d = len(x[0])
    out = []
    for i, row in enumerate(x):
        new = list(row)
        for k in range(d // 2):
            a, b = (2 * k, 2 * k + 1) if layout == "pairs" else (k, k + d // 2)
            angle = i * mpmath.power(base, mpmath.mpf(-2 * k) / d)
            c, s = mpmath.cos(angle), mpmath.sin(angle)
            new[a], new[b] = row[a] * c - row[b] * s, row[a] * s + row[b] * c
        out.append(new)
    return out


def paper_slopes(n):
    """The ALiBi authors' get_slopes, verbatim in its logic."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + paper_slopes(2 * closest)[0::2][:n - closest]


def ref_attention(q, k, v, bias):
    """softmax(q kᵀ / √d + bias) v, row by row (−inf in bias: no weight)."""
    d = len(q[0])
    out = []
    for i, qi in enumerate(q):
        s = [mpmath.fsum(a * b for a, b in zip(qi, kj)) / mpmath.sqrt(d) + bias[i][j]
             for j, kj in enumerate(k)]
        top = max(x for x in s if x != -mpmath.inf)
        e = [mpmath.exp(x - top) if x != -mpmath.inf else 0 for x in s]
        w = [x / mpmath.fsum(e) for x in e]
        out.append([mpmath.fsum(w[j] * v[j][c] for j in range(len(v))) for c in range(len(v[0]))])
    return out


def cols(m, lo, hi):
    return [r[lo:hi] for r in m]


# -- values: certified digits against mpmath, floats against the same truth ---------------------

@pytest.mark.parametrize("eps", [None, "1e-5", 0])
def test_rms_norm(eps):
    x, g = sa.matrix(X), sa.matrix(GAMMA)
    e = RMS_EPS if eps is None else Fraction(eps)
    t = sa.rms_norm(x, gamma=g) if eps is None else sa.rms_norm(x, eps=eps, gamma=g)
    truth = ref_rms_norm(mpm(X), mpmath.mpf(e.numerator) / e.denominator, mpm(GAMMA))
    assert_digits(t, truth)
    assert_float(t, truth)
    assert RMS_EPS == Fraction(1, 10 ** 6)                 # LLaMA's default, documented


def test_rms_norm_exact_and_steps():
    st = rms_norm_steps(sa.matrix([[3, 4]]), eps=0)
    assert st["mean_square"].exact() == sympy.Matrix([[Fraction(25, 2)]])
    assert sa.rms_norm(sa.matrix([[3, 4]]), eps=0).exact() == \
        sympy.Matrix([[3 * sympy.sqrt(2) / 5, 4 * sympy.sqrt(2) / 5]])
    with pytest.raises(DomainError):
        sa.rms_norm(sa.matrix([[1]]), eps=-1)
    with pytest.raises(sa.SymattnError):                    # 0/0: a zero row and eps = 0
        sa.rms_norm(sa.matrix([[0, 0]]), eps=0).exact()


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(approximate):
    t = sa.gelu(sa.matrix(X), approximate=approximate)
    truth = [[ref_gelu(v, approximate) for v in r] for r in mpm(X)]
    assert_digits(t, truth)
    assert_float(t, truth)


def test_gelu_exact_forms_and_refusal():
    e = sa.gelu(sa.matrix([[0, 1]])).exact()
    assert e[0] == 0 and sympy.simplify(e[1] - (1 + sympy.erf(1 / sympy.sqrt(2))) / 2) == 0
    t = sa.gelu(sa.matrix([[1]]), approximate="tanh").exact()[0]
    inner = sympy.sqrt(2 / sympy.pi) * (1 + sympy.Rational(44715, 10 ** 6))
    assert sympy.simplify(t - (1 + sympy.tanh(inner)) / 2) == 0
    with pytest.raises(InputError):
        sa.gelu(sa.matrix([[1]]), approximate="sigmoid")


def test_silu_and_swiglu():
    x = sa.matrix(X)
    assert_digits(sa.silu(x), [[ref_silu(v) for v in r] for r in mpm(X)])
    assert_float(sa.silu(x), [[ref_silu(v) for v in r] for r in mpm(X)])
    W_gate = [["1", "0", "-0.5"], ["0", "1", "1"], ["1", "1", "0"], ["0", "-1", "0.25"]]
    W_up = [["0.5", "0", "1"], ["0", "0.5", "0"], ["1", "0", "0"], ["0", "1", "-1"]]
    W_down = [["1", "0", "0", "1"], ["0", "1", "1", "0"], ["0.5", "0", "0", "-1"]]
    gate, up = ref_matmul(mpm(X), mpm(W_gate)), ref_matmul(mpm(X), mpm(W_up))
    hidden = [[ref_silu(a) * b for a, b in zip(ra, rb)] for ra, rb in zip(gate, up)]
    truth = ref_matmul(hidden, mpm(W_down))
    t = sa.swiglu(x, sa.matrix(W_gate), sa.matrix(W_up), sa.matrix(W_down))
    assert_digits(t, truth)
    assert_float(t, truth)
    st = swiglu_steps(x, sa.matrix(W_gate), sa.matrix(W_up), sa.matrix(W_down))
    assert list(st) == ["gate", "up", "activated", "hidden", "output"]
    with pytest.raises(ShapeError):
        sa.swiglu(x, sa.matrix(W_gate), sa.matrix(cols(W_up, 0, 1)), sa.matrix(W_down))
    assert sa.silu(sa.matrix([[0]])).exact() == sympy.Matrix([[0]])


@pytest.mark.parametrize("layout", ["pairs", "halves"])
@pytest.mark.parametrize("base", [10000, 100])
def test_rope(layout, base):
    t = sa.rope(sa.matrix(X, cols=["a", "b", "c", "d"]), base=base, layout=layout)
    truth = ref_rope(mpm(X), mpmath.mpf(base), layout)
    assert_digits(t, truth)
    assert_float(t, truth)
    assert t.cols == ("a", "b", "c", "d")


def test_rope_layouts_differ_and_agree_where_they_must():
    x = sa.matrix(X)
    pairs, halves = sa.rope(x), sa.rope(x, layout="halves")
    assert pairs[0].exact() == halves[0].exact() == x[0].exact()        # position 0: no turn
    assert sa.evaluate(pairs[1], digits=6) != sa.evaluate(halves[1], digits=6)
    # a width of 2 has one pair: the layouts coincide
    y = sa.matrix(cols(X, 0, 2))
    assert sa.rope(y).exact() == sa.rope(y, layout="halves").exact()
    # θ_0 = 1 exactly, θ_1 = base^(-1/2): exact closed forms
    assert rope_steps(x)["frequencies"].exact() == sympy.Matrix([[1, sympy.Rational(1, 100)]])


def test_rope_refusals():
    with pytest.raises(ShapeError):
        sa.rope(sa.matrix([[1, 2, 3]]))
    with pytest.raises(InputError):
        sa.rope(sa.matrix([[1, 2]]), layout="interleaved")
    with pytest.raises(DomainError):
        sa.rope(sa.matrix([[1, 2]]), base=1)
    with pytest.raises(ShapeError):
        sa.rope(sa.matrix([[1, 2]]), positions=sa.matrix([[1], [2]]))


@pytest.mark.parametrize("n_heads", [1, 2, 3, 4, 5, 6, 8, 12, 16])
def test_alibi_slopes_follow_the_paper(n_heads):
    ours = [float(s.numpy()[0, 0]) for s in alibi_slopes(n_heads)]
    assert ours == pytest.approx(paper_slopes(n_heads), rel=1e-15)


def test_alibi_bias_exact_and_shape():
    b = sa.alibi_bias(8, 3)                                  # slopes 1/2, 1/4, …, 1/256
    assert b.shape == (24, 3)
    e = b.exact()
    for h in range(8):
        m = sympy.Rational(1, 2 ** (h + 1))
        for i in range(3):
            assert list(e.row(h * 3 + i)) == [m * (j - i) for j in range(3)]
    assert sa.alibi_bias(2, 2).exact()[1, 0] == -sympy.Integer(2) ** sympy.Rational(-4)
    assert sa.alibi_bias(3, 1).exact() == sympy.zeros(3, 1)
    with pytest.raises(InputError):
        sa.alibi_bias(0, 3)


# -- grouped-query attention ------------------------------------------------------------------

H_IN = [["1", "0.5", "-0.5", "2"], ["0", "1", "1.5", "-1"], ["0.5", "0.5", "0.5", "0.5"]]
WQ = [["1", "0", "0", "1"], ["0", "1", "1", "0"], ["1", "1", "0", "0"], ["0", "0", "1", "1"]]
WK = [["1", "0", "0.5", "0"], ["0", "1", "0", "1"], ["1", "0", "0", "0"], ["0", "1", "1", "0"]]
WV = [["0.5", "0", "1", "0"], ["0", "0.5", "0", "1"], ["1", "0", "0", "0"], ["0", "1", "0", "0"]]


def ref_gqa(n_heads, n_kv_heads, tiled=False):
    """The ALiBi-biased causal grouped-query attention of H_IN, written out here: query
    head h on key/value head h // (n_heads/n_kv_heads) (tiled: h mod n_kv_heads)."""
    d_head = 4 // n_heads
    x = mpm(H_IN)
    Q = ref_matmul(x, mpm(WQ))
    K = ref_matmul(x, mpm(cols(WK, 0, n_kv_heads * d_head)))
    V = ref_matmul(x, mpm(cols(WV, 0, n_kv_heads * d_head)))
    slopes = paper_slopes(n_heads)
    truth = [[] for _ in range(3)]
    for h in range(n_heads):
        g = h % n_kv_heads if tiled else h // (n_heads // n_kv_heads)
        m = mpmath.power(2, mpmath.mpf(-8 * (h + 1)) / n_heads)
        assert float(m) == pytest.approx(slopes[h], rel=1e-15)
        b = [[m * (j - i) if j <= i else -mpmath.inf for j in range(3)] for i in range(3)]
        z = ref_attention(cols(Q, h * d_head, (h + 1) * d_head),
                          cols(K, g * d_head, (g + 1) * d_head),
                          cols(V, g * d_head, (g + 1) * d_head), b)
        for i in range(3):
            truth[i] += z[i]
    return truth


@pytest.mark.parametrize("n_heads, n_kv_heads", [(2, 2), (2, 1), (4, 2), (4, 1)])
@pytest.mark.parametrize("kv_repeat", ["interleave", "tile"])
def test_grouped_query_attention(n_heads, n_kv_heads, kv_repeat):
    d_head = 4 // n_heads
    WKg, WVg = cols(WK, 0, n_kv_heads * d_head), cols(WV, 0, n_kv_heads * d_head)
    st = sa.multi_head(sa.matrix(H_IN), sa.matrix(WQ), sa.matrix(WKg), sa.matrix(WVg),
                       n_heads=n_heads, n_kv_heads=n_kv_heads, mask=sa.causal_mask(3),
                       bias=sa.alibi_bias(n_heads, 3), kv_repeat=kv_repeat)
    truth = ref_gqa(n_heads, n_kv_heads, tiled=kv_repeat == "tile")
    assert_digits(st["output"], truth)
    assert_float(st["output"], truth)
    heads = st["heads"]

    def kv(j):
        return j % n_kv_heads if kv_repeat == "tile" else j // (n_heads // n_kv_heads)
    for h in range(n_heads):                       # one K node per key/value head
        assert heads[h]["K"] is heads[min(j for j in range(n_heads) if kv(j) == kv(h))]["K"]


def test_multi_head_packed_equals_per_head():
    x = sa.matrix(H_IN)
    packed = sa.multi_head(x, sa.matrix(WQ), sa.matrix(WK), sa.matrix(WV), n_heads=2,
                           W_O=sa.matrix(WV))["output"]
    heads = split_heads(sa.matrix(WQ), sa.matrix(WK), sa.matrix(WV), n_heads=2)
    per_head = sa.multi_head(x, x, heads, sa.matrix(WV))["output"]
    by_hand = sa.multi_head(x, x, [sa.Head(sa.matrix(cols(WQ, 2 * h, 2 * h + 2)),
                                           sa.matrix(cols(WK, 2 * h, 2 * h + 2)),
                                           sa.matrix(cols(WV, 2 * h, 2 * h + 2))) for h in (0, 1)],
                            sa.matrix(WV))["output"]
    assert packed.exact() == per_head.exact() == by_hand.exact()


def test_multi_head_refusals():
    x, w = sa.matrix(H_IN), sa.matrix(WQ)
    with pytest.raises(ShapeError):                       # 3 heads do not divide 4 columns
        sa.multi_head(x, w, w, w, n_heads=3)
    with pytest.raises(ShapeError):                       # 4 query heads, 3 key/value heads
        sa.multi_head(x, w, sa.matrix(cols(WK, 0, 3)), sa.matrix(cols(WV, 0, 3)), n_heads=4,
                      n_kv_heads=3)
    with pytest.raises(ShapeError):                       # head widths 2 and 1
        sa.multi_head(x, w, sa.matrix(cols(WK, 0, 2)), sa.matrix(cols(WV, 0, 2)), n_heads=2,
                      n_kv_heads=2)
    with pytest.raises(InputError):
        sa.multi_head(x, x, [sa.Head(w, w, w)], n_kv_heads=1)
    with pytest.raises(ShapeError):                       # a bias of 5 rows for 2 heads × 3
        sa.multi_head(x, w, w, w, n_heads=2, bias=sa.matrix([[0] * 3] * 5))


# -- gradients through the primitives, against mpmath.diff ---------------------------------------

C = [["1", "-2", "3", "0.5"], ["0.25", "1", "-1", "2"], ["-0.5", "0", "1.5", "1"]]


def loss_of(t):
    return P.row_sum(P.row_sum(t * sa.matrix(C)).T)


GRAD_CASES = {
    "rms_norm": (lambda x: sa.rms_norm(x, gamma=sa.matrix(GAMMA)),
                 lambda x: ref_rms_norm(x, mpmath.mpf(1) / 10 ** 6, mpm(GAMMA))),
    "silu": (sa.silu, lambda x: [[ref_silu(v) for v in r] for r in x]),
    "gelu": (sa.gelu, lambda x: [[ref_gelu(v) for v in r] for r in x]),
    "gelu-tanh": (lambda x: sa.gelu(x, approximate="tanh"),
                  lambda x: [[ref_gelu(v, "tanh") for v in r] for r in x]),
    "rope-pairs": (lambda x: sa.rope(x, base=100), lambda x: ref_rope(x, mpmath.mpf(100), "pairs")),
    "rope-halves": (lambda x: sa.rope(x, base=100, layout="halves"),
                    lambda x: ref_rope(x, mpmath.mpf(100), "halves")),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_against_mpmath_diff(name):
    op, ref = GRAD_CASES[name]
    x = sa.matrix(X)
    got = sa.grad(loss_of(op(x)), x, digits=20)
    c, base = mpm(C), mpm(X)
    for i in range(3):
        for j in range(4):
            def f(v, i=i, j=j):
                point = [list(r) for r in base]
                point[i][j] = v
                return mpmath.fsum(a * b for ra, rb in zip(ref(point), c) for a, b in zip(ra, rb))
            truth = mpmath.diff(f, base[i][j])
            assert abs(mpmath.mpf(got[i][j]) - truth) <= mpmath.mpf(10) ** -17 * max(1, abs(truth))
