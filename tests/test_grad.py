"""Exact gradients: symattn.grad against closed forms (softmax Jacobian, cross-entropy
p − onehot, the attention identities), against exact finite differences of the engine's
own certified evaluation, reverse mode against SymPy's differentiation of the closed form,
and `symattn grad` on the bundled examples."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from hypothesis import given, settings, strategies as st, HealthCheck

import symattn as sa
from symattn.cli import main
from symattn.gradients import gradient, substitute, tree_size, exact_rational
from symattn.ops import primitives as P
from symattn.spec.load import load

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def spec(name):
    return load(str(EXAMPLES / f"{name}.toml"))


def total(t):
    """The sum of every entry of t, 1×1."""
    return P.row_sum(P.row_sum(t).T)


def weighted(t, seed=1):
    """Σ c_ij t_ij with fixed, distinct rational weights (a loss that sees every entry)."""
    m, n = t.shape
    c = sa.matrix([[Fraction((seed * (i * n + j) * 7) % 11 - 5, 4) for j in range(n)]
                   for i in range(m)])
    return total(t * c)


def is_exactly_zero(expr) -> bool:
    """expr is 0: one fraction whose expanded numerator is 0 (a proof when it says yes)."""
    num, _ = sympy.fraction(sympy.together(expr))
    return sympy.expand(num) == 0


def fd(loss, wrt, i, j, h=Fraction(1, 10 ** 25), digits=100):
    """(f(x + h e_ij) − f(x − h e_ij)) / 2h, f evaluated by the engine to `digits`
    certified digits: within ~h² of the derivative (and 10^-digits/h of rounding)."""
    base = wrt.params["entries"]

    def f(delta):
        entries = [[v + (delta if (r, c) == (i, j) else 0) for c, v in enumerate(row)]
                   for r, row in enumerate(base)]
        leaf = sa.matrix(entries)
        moved = substitute(loss, lambda n: n is wrt or n.params is wrt.params, leaf)
        return Fraction(sa.evaluate(moved, digits=digits)[0][0])

    return (f(h) - f(-h)) / (2 * h)


def assert_matches_fd(loss, wrt, tol=Fraction(1, 10 ** 40)):
    g = gradient(loss, wrt)
    got = g.evaluate(60)
    m, n = wrt.shape
    for i in range(m):
        for j in range(n):
            d = fd(loss, wrt, i, j)
            exact = Fraction(got[i][j])
            assert abs(d - exact) <= tol * max(1, abs(exact)), (i, j, got[i][j], float(d))
    return got


# -- closed forms ---------------------------------------------------------------------------

def test_softmax_jacobian_symbolic():
    z = sa.symbols("z", 1, 3)
    p = sa.softmax(z).exact()
    for i in range(3):
        J = sa.grad(P.take(sa.softmax(z), [0], [i]), z)
        for j in range(3):
            expected = p[i] * ((1 if i == j else 0) - p[j])
            assert is_exactly_zero(J[j] - expected), (i, j)


def test_softmax_jacobian_at_a_point_reverse_and_symbolic():
    z = sa.matrix([["0.5", "-1", "2", "0"]])
    probs = sa.evaluate(sa.softmax(z), digits=40)[0]
    p = [Fraction(x) for x in probs]
    for i in range(4):
        out = P.take(sa.softmax(z), [0], [i])
        for method in ("reverse", "symbolic"):
            got = sa.grad(out, z, digits=40, method=method)[0]
            for j in range(4):
                expected = p[i] * ((1 if i == j else 0) - p[j])
                assert abs(Fraction(got[j]) - expected) < Fraction(1, 10 ** 38), (i, j, method)


def test_cross_entropy_gradient_is_p_minus_onehot():
    logits = sa.matrix([[-1, 1, 2, 1, -2]], cols=["猫", "は", "眠る", "。", "終了"])
    g = gradient(sa.cross_entropy(logits, "眠る"), logits)
    onehot = sa.matrix([[0, 0, 1, 0, 0]])
    assert g.evaluate(50) == sa.evaluate(sa.softmax(logits) - onehot, digits=50)
    # the closed form: e^{z_j}/Σ − δ, tidied to one fraction
    S = 1 + sympy.E + 2 * sympy.exp(3) + sympy.exp(4)
    assert str(g.exact()[0, 2]) == "-(1 + E + 2*exp(3))/(1 + E + 2*exp(3) + exp(4))"
    assert is_exactly_zero(g.exact()[0, 2] - (sympy.exp(4) / S - 1))
    assert is_exactly_zero(g.exact()[0, 0] - sympy.E / S)
    assert g.cols == ("猫", "は", "眠る", "。", "終了")


def test_cross_entropy_symbolic_gradient_sums_to_zero():
    z = sa.symbols("z", 1, 4)
    g = sa.grad(sa.cross_entropy(z, 1), z)
    p = sa.softmax(z).exact()
    assert is_exactly_zero(sum(g))
    assert is_exactly_zero(g[1] - (p[1] - 1))


def test_label_smoothing_gradient_is_p_minus_q():
    z = sa.matrix([["0.3", "-0.7", "1.1"]])
    eps = Fraction(1, 10)
    g = sa.grad(sa.label_smoothing_loss(z, 2, eps), z, digits=40)
    q = [eps / 3, eps / 3, 1 - eps + eps / 3]
    p = [Fraction(x) for x in sa.evaluate(sa.softmax(z), digits=45)[0]]
    for j in range(3):
        assert abs(Fraction(g[0][j]) - (p[j] - q[j])) < Fraction(1, 10 ** 39)


def test_attention_query_and_key_gradients_through_the_scores():
    """∂L/∂q_i = Σ_j g_ij k_j and ∂L/∂k_j = Σ_i g_ij q_i, g = ∂L/∂s for s = Q·Kᵀ."""
    X = sa.matrix([["1.0", "0.5"], ["0.8", "1.2"], ["1.5", "0.7"]])
    W_Q = sa.matrix([["1.0", "0.2"], ["0.1", "0.9"]])
    W_K = sa.matrix([["0.6", "0.1"], ["-0.3", "1.0"]])
    Q, K, V = X @ W_Q, X @ W_K, X @ sa.matrix([["1.2", "0"], ["-0.2", "0.8"]])
    s = sa.scores(Q, K, scale=1)
    L = weighted(sa.softmax(s) @ V)
    G = gradient(L, s).numpy()
    Qv, Kv = Q.numpy(), K.numpy()
    gq = gradient(L, Q).numpy()
    gk = gradient(L, K).numpy()
    assert abs(gq - G @ Kv).max() < 1e-14
    assert abs(gk - G.T @ Qv).max() < 1e-14
    # and to 40 certified digits: ∂L/∂Q = (∂L/∂s)·K with the exact ∂L/∂s
    assert gradient(L, Q).evaluate(40) == sa.evaluate(
        sa.matrix(gradient(L, s).exact().tolist()) @ K, digits=40)


def test_residual_passes_the_gradient_through():
    x = sa.matrix([["0.2", "-0.4", "0.9"]])
    W = sa.matrix([["0.5", "0", "1"], ["1", "-1", "0"], ["0", "2", "0.5"]])
    c = sa.matrix([["1", "2", "3"]])
    f = sa.relu(x @ W)
    with_res = gradient(total((x + f) * c), x).evaluate(30)
    without = gradient(total(f * c), x).evaluate(30)
    for a, b, cj in zip(with_res[0], without[0], ["1", "2", "3"]):
        assert Fraction(a) - Fraction(b) == Fraction(cj)


def test_causal_mask_sends_no_gradient_to_the_future():
    X = sa.matrix([[1, 0], [0, 1], [1, 1]])
    Z, _ = sa.attention(X, X, X, mask=sa.causal_mask(3), scale=1)
    g = gradient(total(Z[0]), X)
    d = g.evaluate(20)
    assert d[1] == ["0", "0"] and d[2] == ["0", "0"]
    assert d[0] != ["0", "0"]
    # exactly zero in the closed form too, not merely small
    E = g.exact()
    assert E[1, 0] == 0 and E[2, 1] == 0


# -- exact finite differences ---------------------------------------------------------------

def test_finite_differences_article_000_self_attention():
    s = spec("000-self-attention")
    loss = weighted(s.tensors["z"])
    for name in ("X", "W_Q", "W_K", "W_V"):
        assert_matches_fd(loss, s.inputs[name])


def test_finite_differences_article_003_ch7_encoder_layer():
    s = spec("003-ch7-multihead-layer")
    loss = weighted(s.tensors["Y"], seed=3)
    for name in ("X", "W2_K", "W_O", "b_ff1", "gamma", "eps"):
        g = gradient(loss, s.inputs[name])
        assert_matches_fd(loss, s.inputs[name])
        assert not g.notes


def test_finite_differences_article_003_decoder_masked_and_cross_attention():
    s = spec("003-ch6-decoder-attention")
    loss = weighted(s.tensors["S2"], seed=5)         # masked self-attn → Add&Norm → cross → Add&Norm
    for name in ("X", "Ws_K", "Wc_Q", "H_enc"):
        assert_matches_fd(loss, s.inputs[name])


def test_finite_differences_layer_norm_with_affine():
    x = sa.matrix([["0.3", "-1.2", "2.5", "0.7"], ["1", "0.5", "-0.5", "2"]])
    gamma = sa.matrix([["1.5", "-0.5", "2", "1"]])
    beta = sa.matrix([["0.1", "0", "-0.2", "0.3"]])
    loss = weighted(sa.layer_norm(x, gamma=gamma, beta=beta), seed=2)
    for w in (x, gamma, beta):
        assert_matches_fd(loss, w)


def test_reverse_mode_equals_symbolic_differentiation():
    s = spec("000-self-attention")
    loss = weighted(s.tensors["z"])
    for name in ("W_Q", "W_V"):
        rev = gradient(loss, s.inputs[name])
        sym = gradient(loss, s.inputs[name], method="symbolic")
        assert rev.evaluate(50) == sym.evaluate(50)
    s8 = spec("003-ch8-vocab-softmax")
    rev = gradient(s8.tensors["loss"], s8.inputs["W_vocab"]).exact()
    sym = gradient(s8.tensors["loss"], s8.inputs["W_vocab"], method="symbolic").exact()
    assert all(is_exactly_zero(a - b) for a, b in zip(rev, sym))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(-30, 30), min_size=6, max_size=6),
       st.lists(st.integers(-20, 20), min_size=4, max_size=4))
def test_property_attention_gradient_matches_finite_differences(xs, ws):
    X = sa.matrix([[Fraction(v, 10) for v in xs[k:k + 2]] for k in (0, 2, 4)])
    W = sa.matrix([[Fraction(ws[0], 10), Fraction(ws[1], 10)],
                   [Fraction(ws[2], 10), Fraction(ws[3], 10)]])
    Z, _ = sa.attention(X @ W, X, X)
    loss = weighted(Z, seed=4)
    g = gradient(loss, W).evaluate(40)
    for i in range(2):
        for j in range(2):
            d = fd(loss, W, i, j, h=Fraction(1, 10 ** 20), digits=70)
            assert abs(d - Fraction(g[i][j])) < Fraction(1, 10 ** 32)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-40, 40), min_size=2, max_size=5), st.data())
def test_property_cross_entropy_gradient_sums_to_exactly_zero(zs, data):
    z = sa.matrix([[Fraction(v, 8) for v in zs]])
    t = data.draw(st.integers(0, len(zs) - 1))
    g = gradient(sa.cross_entropy(z, t), z)
    onehot = sa.matrix([[1 if j == t else 0 for j in range(len(zs))]])
    assert g.evaluate(30) == sa.evaluate(sa.softmax(z) - onehot, digits=30)
    assert gradient(total(sa.softmax(z)), z).evaluate(10) == [["0"] * len(zs)]


# -- exact zeros, rationals, kinks ----------------------------------------------------------

def test_exact_zeros_by_cancellation_are_proven():
    x = sa.matrix([["0.3", "-1.2", "2.5", "0.7"]])
    assert sa.grad(total(sa.layer_norm(x)), x, digits=15) == [["0"] * 4]
    s = spec("003-ch7-multihead-layer")
    Y = s.tensors["Y"]
    g = gradient(total(Y), s.inputs["X"])
    assert g.evaluate(15) == [["0"] * 4] * 2
    assert gradient(total(Y), s.inputs["beta"]).evaluate(5) == [["8.0000"]]


def test_rational_gradients_are_exact_and_ties_round_by_mode():
    y = sa.matrix([["1/4", "1/8"]])
    w = sa.matrix([["0.1"], ["0.3"]])
    g = gradient(y @ w, w)
    assert g.exact().tolist() == [[sympy.Rational(1, 4)], [sympy.Rational(1, 8)]]
    assert g.evaluate(2, mode="half-even") == [["0.25"], ["0.12"]]
    assert g.evaluate(2, mode="half-up") == [["0.25"], ["0.13"]]
    assert exact_rational(sympy.Add(sympy.Rational(1, 3), sympy.Rational(1, 6),
                                    evaluate=False)) == Fraction(1, 2)


def test_relu_kink_takes_slope_zero_and_says_so():
    x = sa.matrix([["0", "0.5", "-0.5"]])
    g = gradient(total(sa.relu(x)), x)
    assert g.evaluate(5) == [["0", "1.0000", "0"]]
    assert g.exact().tolist() == [[0, 1, 0]]
    assert any("ReLU at exactly 0" in n for n in g.notes)
    g2 = gradient(total(sa.relu(sa.matrix([["0.5", "-0.5"]]))), sa.matrix([["1"]]),
                  missing="zero")
    assert g2.evaluate(3) == [["0"]]


def test_named_copies_are_the_same_variable_and_intermediates_work():
    s = spec("003-ch8-vocab-softmax")
    h = s.inputs["h"]
    a = gradient(s.tensors["loss"], h).evaluate(30)
    b = gradient(s.tensors["loss"], h.named("h_again")).evaluate(30)
    assert a == b
    # ∂L/∂logit of the spec's own step: p − onehot
    g = gradient(s.tensors["loss"], s.tensors["logit"]).evaluate(30)
    onehot = sa.matrix([[0, 0, 1, 0, 0]])
    assert g == sa.evaluate(s.tensors["P"] - onehot, digits=30)


def test_large_closed_forms_are_refused_but_digits_come():
    s = spec("003-ch7-multihead-layer")
    g = gradient(weighted(s.tensors["Y"]), s.inputs["X"])
    with pytest.raises(sa.LimitError, match="certified digits"):
        g.exact()
    raw = g.exact(max_size=None, tidy=False)
    assert tree_size(raw[0]) > 10 ** 6            # never print this
    assert len(g.evaluate(20)[0]) == 4


def test_latex_and_numpy():
    z = sa.matrix([[-1, 1, 2, 1, -2]])
    g = gradient(sa.cross_entropy(z, 2), z)
    assert g.latex().startswith(r"\begin{bmatrix} \frac{e}{1 + e + 2 e^{3} + e^{4}}")
    assert "0.0276003" in g.latex(digits=6)
    assert abs(g.numpy()[0, 2] - (-0.44563374167)) < 1e-10


# -- errors ---------------------------------------------------------------------------------

def test_errors_are_symattn_errors():
    z = sa.matrix([["1", "2"]])
    with pytest.raises(sa.ShapeError, match="scalar"):
        sa.grad(sa.softmax(z), z)
    with pytest.raises(sa.InputError, match="does not occur"):
        sa.grad(sa.cross_entropy(z, 0), sa.matrix([["1", "2"]]))
    x, y = sympy.symbols("x y")
    with pytest.raises(sa.InputError, match="not a symbol"):
        sa.grad(sa.cross_entropy(z, 0), sympy.Matrix([[x + y]]))
    with pytest.raises(sa.InputError, match="Tensor"):
        sa.grad("loss", z)
    with pytest.raises(sa.InputError, match="method"):
        sa.grad(sa.cross_entropy(z, 0), z, method="numeric")
    with pytest.raises(sa.InputError, match="digits"):
        sa.grad(sa.cross_entropy(z, 0), z, digits=0)
    w = sa.matrix([["1", "1", "0"]])
    with pytest.raises(sa.DomainError, match="tied"):
        sa.grad(P.row_max(w), w)
    u = sa.matrix([["0"]])
    with pytest.raises(sa.DomainError, match="no derivative"):
        sa.grad(sa.sqrt(u), u)
    t = sa.symbols("t", 1)
    with pytest.raises(sa.InputError, match="symbol"):
        gradient(total(sa.exp(t * z)), z).evaluate(5)
    masked = sa.matrix([["1", "2"]])
    with pytest.raises(sa.DomainError, match="−∞"):
        sa.grad(total(masked + sa.padding_mask([0, 0])), masked)


# -- the command line -----------------------------------------------------------------------

def run_cli(capsys, *argv):
    code = main(["grad", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_vocabulary_softmax_cross_entropy(capsys):
    code, out, err = run_cli(capsys, str(EXAMPLES / "003-ch8-vocab-softmax.toml"),
                             "--loss", 'cross_entropy(logit, "眠る")', "--wrt", "h",
                             "--digits", "4")
    assert code == 0, err
    assert "L = 0.5899" in out                       # the article's cross-entropy
    assert "0.02760" in out and "-0.2518" in out
    assert "E/(1 + E + 2*exp(3) + exp(4))" in out
    # the gradient is (p − onehot)·W_vocabᵀ
    s = spec("003-ch8-vocab-softmax")
    expected = (s.tensors["P"] - sa.matrix([[0, 0, 1, 0, 0]])) @ s.inputs["W_vocab"].T
    code, out, _ = run_cli(capsys, "003-ch8-vocab-softmax", "--loss", "loss", "--wrt", "h",
                           "--json", "--digits", "25")
    data = json.loads(out)
    assert code == 0
    assert data["gradient"]["digits"] == sa.evaluate(expected, digits=25)
    assert data["loss"]["digits"] == sa.evaluate(s.tensors["loss"], digits=25)[0][0]
    assert data["wrt"] == {"name": "h", "shape": [1, 2], "rows": ["は"], "cols": ["0", "1"]}
    assert data["gradient"]["closed_form"]["latex"][0][0] == r"\frac{e}{1 + e + 2 e^{3} + e^{4}}"


def test_cli_latex(capsys):
    code, out, _ = run_cli(capsys, "003-ch8-vocab-softmax", "--loss", "loss",
                           "--wrt", "W_vocab", "--latex", "--digits", "6")
    assert code == 0
    assert r"\frac{\partial L}{\partial W_{vocab}} = \begin{bmatrix}" in out
    assert r"\approx \begin{bmatrix} -0.0276003 &" in out


def test_cli_large_example_gives_digits_and_explains_the_closed_form(capsys):
    code, out, err = run_cli(capsys, "003-ch7-multihead-layer", "--loss", 'Y["眠る", 0]',
                             "--wrt", "X", "--digits", "12")
    assert code == 0, err
    assert "closed form: the loss's closed form would have about" in out
    s = spec("003-ch7-multihead-layer")
    g = gradient(P.take(s.tensors["Y"], [1], [0]), s.inputs["X"])
    assert g.evaluate(12)[1][0] in out


def test_cli_loss_not_depending_on_the_input(capsys):
    code, out, _ = run_cli(capsys, "003-ch8-vocab-softmax", "--loss", "loss_p09", "--wrt", "h")
    assert code == 0
    assert "does not depend on h" in out


@pytest.mark.parametrize("argv, message", [
    (["--loss", "logit", "--wrt", "h"], "--loss is 1×5; a gradient needs a scalar"),
    (["--loss", "loss", "--wrt", "logit"], "'logit' is a step of 003-ch8-vocab-softmax, not an input"),
    (["--loss", "loss", "--wrt", "nothing"], "has no input named 'nothing'"),
    (["--loss", "sum((", "--wrt", "h"], "--loss:"),
    (["--loss", "undefined_name", "--wrt", "h"], "--loss: unknown name 'undefined_name'"),
    (["--loss", "loss", "--wrt", "h", "--digits", "0"], "--digits 0"),
    (["--loss", "loss", "--wrt", "h", "--json", "--latex"], "choose one"),
])
def test_cli_bad_input_is_one_line_exit_2(capsys, argv, message):
    code, out, err = run_cli(capsys, "003-ch8-vocab-softmax", *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err


def test_cli_input_used_as_a_plain_number_is_refused(capsys, tmp_path):
    path = tmp_path / "masked.toml"
    path.write_text('''
[example]
id = "masked"
[inputs]
X = [[1, 0], [0, 1], [1, 1]]
n = 3
p = 2
[[steps]]
name = "A"
expr = "softmax(X @ X.T + causal_mask(n))"
[[steps]]
name = "B"
expr = "X ** p"
''', encoding="utf-8")
    code, _, err = run_cli(capsys, str(path), "--loss", "sum(sum(A).T)", "--wrt", "n")
    assert code == 2 and "through step 'A'" in err and err.count("\n") == 1
    code, _, err = run_cli(capsys, str(path), "--loss", "sum(sum(B).T)", "--wrt", "p")
    assert code == 2 and "through step 'B'" in err
    code, out, err = run_cli(capsys, str(path), "--loss", "A[2, 0]", "--wrt", "X", "--digits", "8")
    assert code == 0, err
    code, _, err = run_cli(capsys, str(path), "--loss", "sum(sum(X ** p).T)", "--wrt", "p")
    assert code == 2 and "--loss uses p" in err


def test_cli_symbol_input_gives_the_formula(capsys, tmp_path):
    path = tmp_path / "slider.toml"
    path.write_text('''
[example]
id = "slider"
[inputs]
t = { symbol = "t" }
k = [[1, 0]]
[[steps]]
name = "w"
expr = "softmax(k * t)"
''', encoding="utf-8")
    code, out, err = run_cli(capsys, str(path), "--loss", "w[0, 0]", "--wrt", "t")
    assert code == 0, err
    assert "no digits" in out and "exp(t)" in out
    code, out, err = run_cli(capsys, str(path), "--loss", "w[0, 0]", "--wrt", "k", "--json")
    data = json.loads(out)
    assert data["gradient"]["digits"] is None and data["gradient"]["closed_form"] is not None


def test_the_formal_proof_of_zeros_is_bounded_by_its_terms_not_by_time(monkeypatch):
    """A smaller budget changes which path proves a zero, never the digits (a machine's
    speed no longer chooses the path: the budget counts terms)."""
    from symattn.evaluation import formal as F
    built = []
    make = F.FormalContext

    def counting(*a, **k):
        built.append(k.get("max_terms"))
        return make(*a, **k)
    monkeypatch.setattr(F, "FormalContext", counting)
    x = sa.matrix([["0.3", "-1.2", "2.5", "0.7"]])
    assert sa.grad(total(sa.layer_norm(x)), x, digits=15) == [["0"] * 4]
    assert built == [F.FORMAL_MAX_TERMS]
    monkeypatch.setattr(F, "FORMAL_MAX_TERMS", 2)
    with pytest.raises(F._GiveUp):
        ctx = make(3, {}, max_terms=2)
        a, b, c = ctx.gens
        ctx.s_mul(ctx.s_add((a, ctx.one[1]), (b, ctx.one[1])), (c + 1, ctx.one[1]))
    assert sa.grad(total(sa.layer_norm(x)), x, digits=15) == [["0"] * 4]
