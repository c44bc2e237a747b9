"""The engine: closed forms and printed numbers of the articles' worked examples, built
with the Python API (independently of the bundled specs), properties, and errors."""

from fractions import Fraction

import pytest
import sympy
from sympy import exp, sqrt, Rational as Q_, log, E

import symattn as sa

TOKENS = ["I", "love", "machine", "learning"]


def m(entries, **kw):
    return sa.matrix(entries, **kw)


def digits(t, n, mode="half-up"):
    """Entries rounded to n decimals (certified), as the articles print them."""
    from symattn.evaluation.evaluator import Evaluator
    ev = Evaluator()
    return [[str(ev.rounded(t, i, j, decimals=n, mode=mode)) for j in range(t.shape[1])]
            for i in range(t.shape[0])]


# -- article 000: self-attention for "love" ------------------------------------------------

@pytest.fixture(scope="module")
def self_attn():
    X = m([["1.0", "0.5"], ["0.8", "1.2"], ["1.5", "0.7"], ["0.6", "1.8"]], rows=TOKENS)
    W_Q = m([["1.0", "0.2"], ["0.1", "0.9"]])
    W_K = m([["0.6", "0.1"], ["-0.3", "1.0"]])
    W_V = m([["1.2", "0.0", "0.5"], ["-0.2", "0.8", "0.3"]])
    return sa.self_attention(X, W_Q, W_K, W_V)


def test_000_projections_exact(self_attn):
    assert self_attn["Q"]["love"].exact().tolist() == [[Q_(23, 25), Q_(31, 25)]]
    assert self_attn["K"]["learning"].exact().tolist() == [[Q_(-9, 50), Q_(93, 50)]]
    assert digits(self_attn["V"], 2) == [["1.10", "0.40", "0.65"], ["0.72", "0.96", "0.76"],
                                         ["1.66", "0.56", "0.96"], ["0.36", "1.44", "0.84"]]


def test_000_weight_of_learning_closed_form(self_attn):
    s = [Rational for Rational in (Q_("1.158"), Q_("1.6976"), Q_("1.6888"), Q_("2.1408"))]
    den = sum(exp(x / sqrt(2)) for x in s)
    expected = exp(s[3] / sqrt(2)) / den
    got = self_attn["weights"]["love", "learning"].exact()[0, 0]
    assert sympy.simplify(got - expected) == 0
    assert self_attn["raw_scores"]["love"].exact().tolist() == [s]


def test_000_printed_chain(self_attn):
    assert digits(self_attn["raw_scores"]["love"], 4) == [["1.1580", "1.6976", "1.6888", "2.1408"]]
    assert digits(self_attn["scores"]["love"], 4) == [["0.8188", "1.2004", "1.1942", "1.5138"]]
    # the article prints 0.3383 for learning; the exact weight rounds to 0.3382
    assert digits(self_attn["weights"]["love"], 4) == [["0.1688", "0.2472", "0.2457", "0.3382"]]
    assert digits(self_attn["output"]["love"], 4) == [["0.8933", "0.9295", "0.8176"]]
    assert digits(self_attn["output"]["love"], 3) == [["0.893", "0.930", "0.818"]]


def test_000_cross_attention():
    H = m([["1.020", "0.910"], ["0.880", "1.020"], ["1.140", "0.860"], ["0.760", "1.150"]], rows=TOKENS)
    x = m([["0.800", "1.500"]], rows=["私は"])
    st = sa.cross_attention(x, H, m([["0.9", "0.2"], ["0.3", "0.8"]]),
                            m([["0.5", "0.1"], ["-0.4", "1.1"]]),
                            m([["1.1", "0.0", "0.4"], ["-0.2", "0.9", "0.2"]]))
    assert st["Q"].exact().tolist() == [[Q_(117, 100), Q_(136, 100)]]
    assert digits(st["raw_scores"], 4) == [["1.6709", "1.6830", "1.7060", "1.7302"]]
    assert digits(st["scores"], 4) == [["1.1815", "1.1901", "1.2063", "1.2234"]]
    assert digits(st["weights"], 4) == [["0.2453", "0.2474", "0.2515", "0.2558"]]
    assert digits(st["output"], 3) == [["0.847", "0.887", "0.577"]]
    assert st["weights"].rows == ("私は",) and st["weights"].cols == tuple(TOKENS)


# -- article 002: three vectors, unscaled, and the causal mask ---------------------------

def test_002_three_vectors_closed_forms():
    X = m([[1, 0], [0, 1], [1, 1]])
    Z, A = sa.attention(X, X, X, scale=1)
    w = A.exact()
    assert sympy.simplify(w[2, 0] - 1 / (2 + E)) == 0
    assert sympy.simplify(w[2, 2] - E / (2 + E)) == 0
    assert digits(A, 3) == [["0.422", "0.155", "0.422"], ["0.155", "0.422", "0.422"],
                            ["0.212", "0.212", "0.576"]]
    assert digits(Z, 3)[2] == ["0.788", "0.788"]


def test_002_causal_mask_gives_exact_zeros():
    X = m([[1, 0], [0, 1], [1, 1]])
    Z, A = sa.attention(X, X, X, mask=sa.causal_mask(3), scale=1)
    w = A.exact()
    assert w[0, :].tolist() == [[1, 0, 0]]
    assert w[0, 1] is sympy.S.Zero and w[1, 2] is sympy.S.Zero
    assert sympy.simplify(w[1, 1] - E / (1 + E)) == 0
    assert digits(A, 3)[1] == ["0.269", "0.731", "0.000"]
    assert digits(Z, 3)[1] == ["0.269", "0.731"]


def test_002_exercise():
    X = m([[2, 0], [0, 1], [1, 1]])
    Z, A = sa.attention(X, X, X, scale=1)
    assert sympy.simplify(A.exact()[2, 1] - 1 / (1 + 2 * E)) == 0
    assert digits(A, 3)[2] == ["0.422", "0.155", "0.422"]
    # 1.267 is printed; exactly 2·0.42232 + 0.42232 = 1.26696...
    assert digits(Z, 3)[2] == ["1.267", "0.578"]
    Zm, Am = sa.attention(X, X, X, mask=sa.causal_mask(3), scale=1)
    assert digits(Zm, 3)[1] == ["0.538", "0.731"]


# -- article 003 ---------------------------------------------------------------------------

def test_003_slider_ends():
    K = m([[1, 0], ["0.5", 1]])
    V = m([[2, 0], [0, 4]])
    for q, first in (([1, 0], "0.5875"), ([0, 1], "0.3302")):
        Z, A = sa.attention(m([q]), K, V)
        assert digits(A, 4)[0][0] == first
    Z, A = sa.attention(m([[1, 0]]), K, V)
    a = exp(1 / sqrt(2)) / (exp(1 / sqrt(2)) + exp(Q_(1, 2) / sqrt(2)))
    assert sympy.simplify(A.exact()[0, 0] - a) == 0


def test_003_ch5_add_norm_ffn_chain():
    concat = m([[1, 2, 3, 4]])
    W_O = m([[1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 0], [0, "-0.5", 0, 0]])
    O = concat @ W_O
    assert O.exact().tolist() == [[1, 0, 3, 2]]
    st = sa.layer_norm_steps(m([[1, 0, 1, 0]]) + O)
    h = st["output"]
    assert h.exact().tolist() == [[0, -2 / sqrt(Q_(200001, 100000)), 2 / sqrt(Q_(200001, 100000)), 0]]
    W1 = m([[1, -1, 0, 0, 1, 0], [0, 0, 1, -1, 0, 1], [0, 0, 0, 0, 1, 1], [1, 1, 1, 1, 0, 0]])
    W2 = m([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, "0.5", 0, 1], [0, 0, 1, 0]])
    f = sa.ffn_steps(h, W1, m([[0, 0, 0, 0, 1, -1]]), W2, m([[0, 0, 1, 0]]))
    assert digits(f["hidden"], 3) == [["0.000", "0.000", "-1.414", "1.414", "2.414", "-1.000"]]
    assert digits(f["output"], 3) == [["1.414", "1.207", "1.000", "2.414"]]
    out = sa.layer_norm_steps(h + f["output"])
    assert digits(out["mean"], 3) == [["1.509"]]
    assert digits(out["std"], 3) == [["1.072"]]
    assert digits(out["output"], 3) == [["-0.088", "-1.601", "0.845", "0.845"]]


def test_003_decoder_masked_self_and_cross_attention():
    X = m([[1, 0], [0, 1], [1, 1]], rows=["開始", "猫", "は"])
    st = sa.self_attention(X, m([[0, 1], [1, 0]]), m([[1, 0], ["0.5", 1]]), m([[2, 0], [0, 4]]),
                           mask=sa.causal_mask(3))
    assert digits(st["weights"], 4) == [["1.0000", "0.0000", "0.0000"],
                                        ["0.5875", "0.4125", "0.0000"],
                                        ["0.1882", "0.2681", "0.5437"]]
    assert st["weights"].exact()[0, 1] == 0
    assert digits(st["output"]["猫"], 4) == [["1.1750", "1.6501"]]
    S = sa.layer_norm(X + st["output"])
    H_enc = m([[0, 0], [1, 0], [0, 1], [0, 0]], rows=["The", "cat", "sleeps", "."])
    cr = sa.cross_attention(S, H_enc, m([[0, 1], [1, 1]]), m([[1, 0], [0, 1]]), m([[2, 0], [0, 4]]))
    assert cr["weights"].shape == (3, 4)
    assert digits(cr["weights"], 4) == [["0.2863", "0.1412", "0.2863", "0.2863"],
                                        ["0.1989", "0.4034", "0.1989", "0.1989"],
                                        ["0.1989", "0.4034", "0.1989", "0.1989"]]
    assert digits(cr["output"], 4) == [["0.2823", "1.1451"], ["0.8067", "0.7955"], ["0.8067", "0.7955"]]


def test_003_two_head_encoder_layer_and_next_q():
    X = m([[1, 0, 1, 0], [0, 1, 0, 1]], rows=["猫", "眠る"])
    z = lambda r: m(r)
    heads = [sa.Head(z([[1, 0], [0, 1], [0, 0], [0, 0]]), z([[1, 0], [0, 1], [0, 0], [0, 0]]),
                     z([[2, 0], [0, 2], [0, 0], [0, 0]])),
             sa.Head(z([[0, 0], [0, 0], [0, 1], [1, 0]]), z([[0, 0], [0, 0], [1, 0], [0, 1]]),
                     z([[0, 0], [0, 0], [1, 0], [0, 3]]))]
    W_O = z([[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1]])
    ffn = sa.FFNParams(z([[1, -1, 0, 0, 1, 0], [0, 0, 1, -1, 0, 1], [0, 0, 0, 0, 1, 1], [1, 1, 1, 1, 0, 0]]),
                       z([[0, 0, 0, 0, 1, -1]]),
                       z([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, "0.5", 0, 1], [0, 0, 1, 0]]),
                       z([[0, 0, 1, 0]]))
    st = sa.encoder_layer(X, sa.EncoderLayerParams(heads, W_O, ffn))
    assert digits(st["attention"]["concat"]["眠る"], 4) == [["0.6605", "1.3395", "0.6698", "0.9907"]]
    assert digits(st["attention"]["output"]["眠る"], 4) == [["1.3302", "2.3302", "0.6698", "0.9907"]]
    assert digits(st["norm1"]["output"]["眠る"], 4) == [["-0.5082", "1.5245", "-1.1794", "0.1631"]]
    assert digits(st["output"]["眠る"], 4) == [["-1.2624", "1.2700", "0.6260", "-0.6337"]]
    assert digits(st["output"]["猫"], 4) == [["1.3080", "0.6344", "-0.9712", "-0.9712"]]
    q2 = st["output"] @ z([[0, 1], [1, 0], [0, 0], [0, 0]])
    assert digits(q2["眠る"], 4) == [["1.2700", "-1.2624"]]


def test_003_vocabulary_softmax_and_cross_entropy():
    h = m([[-1, 2]])
    W = m([[1, 1, 0, -1, 0], [0, 1, 1, 0, -1]], cols=["猫", "は", "眠る", "。", "終了"])
    z = sa.logits(h, W)
    assert z.exact().tolist() == [[-1, 1, 2, 1, -2]]
    p = sa.probabilities(z)
    assert digits(p, 4) == [["0.0276", "0.2039", "0.5544", "0.2039", "0.0102"]]
    loss = sa.cross_entropy(z, "眠る")
    expected = -log(exp(2) / (exp(-1) + 2 * E + exp(2) + exp(-2)))
    assert sympy.simplify(loss.exact()[0, 0] - expected) == 0
    assert digits(loss, 4) == [["0.5899"]]
    assert sa.greedy(z) == "眠る"


# -- evaluation ---------------------------------------------------------------------------

def test_evaluate_many_digits_are_correct():
    w = sa.softmax(m([[0, "1/2"]]))
    got = sa.evaluate(w, digits=60)[0][1]
    import mpmath
    with mpmath.workdps(100):
        ref = mpmath.e ** mpmath.mpf(0.5) / (1 + mpmath.e ** mpmath.mpf(0.5))
        want = mpmath.nstr(ref, 60, strip_zeros=False)
    assert got == want


def test_evaluate_1000_digits_and_exact_tie():
    got = sa.evaluate(sa.sqrt(m([[2]])), digits=1000)[0][0]
    assert got.startswith("1.41421356237309504880168872420969807856967187537694")
    assert len(got) == 1001
    # 5/2 is an exact tie: half-even gives 2, half-up 3
    assert sa.evaluate(m([["5/2"]]), digits=1)[0][0] == "2"
    assert sa.evaluate(m([["5/2"]]), digits=1, mode="half-up")[0][0] == "3"


def test_evaluate_masked_entries():
    Z, A = sa.attention(m([[1, 0], [0, 1]]), m([[1, 0], [0, 1]]), m([[1, 0], [0, 1]]),
                        mask=sa.causal_mask(2))
    assert sa.evaluate(A, digits=5)[0] == ["1.0000", "0"]


def test_float_paths_and_errors_against_exact():
    X = m([["0.3", "-1.2", "0.5"], ["2", "0.25", "-0.75"]])
    c64 = sa.compare(sa.layer_norm(X @ X.T), "float64")
    c32 = sa.compare(sa.layer_norm(X @ X.T), "float32")
    assert c64.max_abs_err() < 1e-14
    assert 1e-9 < c32.max_abs_err() < 1e-5


# -- properties ---------------------------------------------------------------------------

from hypothesis import given, settings, strategies as st

small = st.fractions(min_value=-3, max_value=3, max_denominator=8)


def mats(r, c):
    return st.lists(st.lists(small, min_size=c, max_size=c), min_size=r, max_size=r)


@settings(max_examples=25, deadline=None)
@given(mats(2, 3))
def test_softmax_rows_sum_to_exactly_one(rows):
    w = sa.softmax(sa.matrix(rows)).exact()
    for i in range(w.shape[0]):
        assert sympy.cancel(sum(w[i, :])) == 1


@settings(max_examples=25, deadline=None)
@given(mats(3, 2), mats(3, 2))
def test_masked_weights_are_exactly_zero(a, b):
    A = sa.weights(sa.matrix(a), sa.matrix(b), mask=sa.causal_mask(3)).exact()
    assert all(A[i, j] is sympy.S.Zero for i in range(3) for j in range(3) if j > i)


@settings(max_examples=25, deadline=None)
@given(mats(3, 2), mats(3, 2), mats(3, 2))
def test_float64_within_1e_12_of_exact(q, k, v):
    Z, A = sa.attention(sa.matrix(q), sa.matrix(k), sa.matrix(v))
    assert sa.compare(Z).max_abs_err() < 1e-12
    assert sa.compare(A).max_abs_err() < 1e-12


# -- bad input ------------------------------------------------------------------------------

def test_float_refused_with_advice():
    with pytest.raises(sa.InputError, match=r"pass the decimal string '0.1'"):
        sa.matrix([[0.1]])


def test_shape_mismatch_names_operation_and_shapes():
    with pytest.raises(sa.ShapeError, match=r"matmul: a 2×3 matrix @ a 2×2 matrix"):
        sa.matrix([[1, 2, 3], [4, 5, 6]]) @ sa.matrix([[1, 0], [0, 1]])


def test_fully_masked_row():
    s = sa.matrix([[0, 1]]) + sa.padding_mask([0, 0])
    with pytest.raises(sa.DomainError, match="every entry of a row is masked"):
        sa.softmax(s).exact()
    with pytest.raises(sa.DomainError, match="every entry of a row is masked"):
        sa.evaluate(sa.softmax(s), digits=5)
    with pytest.raises(sa.DomainError, match="every entry of a row is masked"):
        sa.softmax(s).numpy()


def test_eps_zero_constant_row():
    with pytest.raises(sa.DomainError, match="constant"):
        sa.evaluate(sa.layer_norm(sa.matrix([[2, 2]]), eps=0), digits=3)


def test_non_positive_temperature():
    with pytest.raises(sa.DomainError, match="must be > 0"):
        sa.softmax(sa.matrix([[1, 2]]), T=0)


def test_temperature_symbolic_and_exact():
    w = sa.softmax(sa.matrix([[0, 1]]), T=2).exact()
    assert sympy.simplify(w[0, 1] - exp(Q_(1, 2)) / (1 + exp(Q_(1, 2)))) == 0


# -- layers and stacks -------------------------------------------------------------------

def _layer_params(k):
    z = lambda r: sa.matrix(r)
    h = sa.Head(z([[1, k], [0, 1]]), z([[1, 0], [k, 1]]), z([[2, 0], [0, 1]]))
    f = sa.FFNParams(z([[1, -1, 0], [0, 1, 1]]), z([[0, "0.5", 0]]), z([[1, 0], [0, 1], [1, 1]]), z([[0, 1]]))
    return h, f


def test_encoder_stack_is_layers_in_sequence():
    X = sa.matrix([["0.5", 1], [1, "-0.5"]])
    (h1, f1), (h2, f2) = _layer_params(1), _layer_params(2)
    W_O = sa.matrix([[1, 0], [0, 1]])
    p1, p2 = sa.EncoderLayerParams([h1], W_O, f1), sa.EncoderLayerParams([h2], W_O, f2)
    stack = sa.encoder(X, [p1, p2])
    by_hand = sa.encoder_layer(sa.encoder_layer(X, p1)["output"], p2)["output"]
    assert sa.evaluate(stack["output"], digits=30) == sa.evaluate(by_hand, digits=30)
    assert len(stack["layers"]) == 2


def test_decoder_layer_row_does_not_see_the_future():
    (h, f) = _layer_params(1)
    I = sa.matrix([[1, 0], [0, 1]])
    p = sa.DecoderLayerParams([h], I, [h], I, f)
    H = sa.matrix([[1, 2], [3, "0.5"], [0, 1]])
    Y1 = sa.matrix([[1, "0.25"], [2, 1]])
    Y2 = sa.matrix([[1, "0.25"], [-7, 5]])          # only the future row differs
    out1 = sa.decoder_layer(Y1, H, p)["output"]
    out2 = sa.decoder_layer(Y2, H, p)["output"]
    assert sa.evaluate(out1[0], digits=40) == sa.evaluate(out2[0], digits=40)
    assert sa.evaluate(out1[1], digits=5) != sa.evaluate(out2[1], digits=5)
    w = sa.decoder_layer(Y1, H, p)["self_attention"]["heads"][0]["weights"].exact()
    assert w[0, 1] == 0


def test_closed_form_that_would_blow_up_is_refused():
    n = 16
    Q = sa.matrix([[(i * j) % 5 for j in range(n)] for i in range(n)])
    Z, A = sa.attention(Q, Q, Q)
    H = sa.layer_norm(Z + Q)
    with pytest.raises(sa.LimitError, match="digits"):
        sa.layer_norm(H @ H.T).exact()
    assert len(sa.evaluate(sa.layer_norm(H @ H.T)[0], digits=20)[0]) == n
    assert A[0, 0].exact() is not None          # small closed forms are fine
