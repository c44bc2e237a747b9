"""Cross-checks against PyTorch in float64: F.scaled_dot_product_attention (plain, causal,
an attn_mask of −inf), nn.LayerNorm, nn.TransformerEncoderLayer (post-norm, dropout 0, ReLU,
2 heads) and torch.autograd gradients, on the articles' worked examples; the engine's
values are certified digits, torch's are float64, and they agree to 1e-12.

PyTorch is an optional test extra (`pip install torch==2.13.0`, the CPU build): without it
this file is skipped.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from hypothesis import given, settings, strategies as st  # noqa: E402

import symattn as sa  # noqa: E402
from symattn.gradients import gradient  # noqa: E402
from symattn.ops import primitives as P  # noqa: E402
from symattn.spec.load import load  # noqa: E402

pytestmark = pytest.mark.torch

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TOL = 1e-12
F64 = torch.float64


def spec(name):
    return load(str(EXAMPLES / f"{name}.toml"))


def tt(x, grad=False):
    """A torch float64 tensor of an exact input (each entry the float nearest its value)."""
    return torch.tensor(x.numpy("float64"), dtype=F64, requires_grad=grad)


def certified(x, digits=25):
    """The engine's value of x: certified decimal digits, as float64."""
    return np.array([[float(v) for v in row] for row in sa.evaluate(x, digits=digits)])


def grad_of(loss, wrt, digits=25):
    """The engine's exact gradient, certified digits as float64."""
    return np.array([[float(v) for v in row] for row in gradient(loss, wrt).evaluate(digits)])


def assert_close(got, expected, tol=TOL):
    got = got.detach().numpy() if isinstance(got, torch.Tensor) else np.asarray(got)
    expected = np.asarray(expected, dtype=float)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    err = np.abs(got - expected) / np.maximum(1.0, np.abs(expected))
    assert err.max() <= tol, f"max error {err.max():.3e}\n{got}\n{expected}"


def total(t):
    return P.row_sum(P.row_sum(t).T)


def coefficients(m, n, seed=1):
    """Fixed rational weights c_ij for a loss Σ c_ij z_ij that sees every entry."""
    return [[Fraction((seed * (i * n + j) * 7) % 11 - 5, 4) for j in range(n)] for i in range(m)]


def weighted(t, seed=1):
    m, n = t.shape
    return total(t * sa.matrix(coefficients(m, n, seed)))


def weighted_torch(y, seed=1):
    m, n = y.shape[-2:]
    c = torch.tensor([[float(v) for v in row] for row in coefficients(m, n, seed)], dtype=F64)
    return (y * c).sum()


# -- scaled dot-product attention ------------------------------------------------------------

@pytest.fixture(scope="module")
def art000():
    s = spec("000-self-attention")
    X, W_Q, W_K, W_V = (s.inputs[k] for k in ("X", "W_Q", "W_K", "W_V"))
    return s, X, W_Q, W_K, W_V


def test_sdpa_article_000(art000):
    s, X, W_Q, W_K, W_V = art000
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    Z, A = sa.attention(Q, K, V)                           # scale 1/√d_k, d_k = 2
    Xt = tt(X)
    Qt, Kt, Vt = Xt @ tt(W_Q), Xt @ tt(W_K), Xt @ tt(W_V)
    out = F.scaled_dot_product_attention(Qt[None], Kt[None], Vt[None])[0]
    assert_close(out, certified(Z))
    weights = torch.softmax(Qt @ Kt.T / 2 ** 0.5, dim=-1)
    assert_close(weights, certified(A))
    # the spec's own chain for the row `love` (its step z) is torch's row 1
    assert_close(out[1:2], certified(s.tensors["z"]))


def test_sdpa_causal_and_minus_inf_mask(art000):
    _, X, W_Q, W_K, W_V = art000
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    Xt = tt(X)
    Qt, Kt, Vt = (Xt @ tt(W) for W in (W_Q, W_K, W_V))
    Z, _ = sa.attention(Q, K, V, mask=sa.causal_mask(4))
    out = F.scaled_dot_product_attention(Qt[None], Kt[None], Vt[None], is_causal=True)[0]
    assert_close(out, certified(Z))
    # an additive float mask of −inf (padding of the key `machine`), and its boolean form
    Z, A = sa.attention(Q, K, V, mask=sa.padding_mask([1, 1, 0, 1], n_queries=4))
    m = torch.zeros(4, 4, dtype=F64)
    m[:, 2] = float("-inf")
    out = F.scaled_dot_product_attention(Qt[None], Kt[None], Vt[None], attn_mask=m[None])[0]
    assert_close(out, certified(Z))
    keep = torch.ones(4, 4, dtype=torch.bool)
    keep[:, 2] = False
    out = F.scaled_dot_product_attention(Qt[None], Kt[None], Vt[None], attn_mask=keep[None])[0]
    assert_close(out, certified(Z))
    assert sa.evaluate(A[:, "machine"], digits=5) == [["0"]] * 4       # exactly 0


def test_sdpa_unscaled_article_002_causal():
    s = spec("002-causal-mask")
    X = s.inputs["X"]
    Xt = tt(X)[None]
    out = F.scaled_dot_product_attention(Xt, Xt, Xt, is_causal=True, scale=1.0)[0]
    assert_close(out, certified(s.tensors["Zm"]))
    Z, _ = sa.attention(X, X, X, scale=1)
    assert_close(F.scaled_dot_product_attention(Xt, Xt, Xt, scale=1.0)[0], certified(Z))


# -- LayerNorm ---------------------------------------------------------------------------------

def test_layer_norm_with_affine():
    X = sa.matrix([["1", "2.5", "-0.5", "3"], ["0.2", "0.2", "0.3", "-1.7"],
                   ["10", "-10", "0.001", "7"]])
    gamma = sa.matrix([["1.5", "-0.5", "2", "1"]])
    beta = sa.matrix([["0.1", "0", "-0.2", "0.3"]])
    ln = torch.nn.LayerNorm(4, eps=1e-5, elementwise_affine=True, dtype=F64)
    with torch.no_grad():
        ln.weight.copy_(tt(gamma)[0])
        ln.bias.copy_(tt(beta)[0])
    assert_close(ln(tt(X)), certified(sa.layer_norm(X, gamma=gamma, beta=beta)))


def test_layer_norm_two_components_article_003():
    """Two components give ±(a − b)/√((a − b)² + 4ε): article 003's "about [−1, 1]"."""
    X = sa.matrix([["2", "3"], ["0.5", "-0.25"], ["1", "1.001"]])
    ln = torch.nn.LayerNorm(2, eps=1e-5, dtype=F64)
    Y = sa.layer_norm(X)
    assert_close(ln(tt(X)), certified(Y))
    assert sa.evaluate(Y[0], digits=6) == [["-0.999980", "0.999980"]]


# -- the 2-head encoder layer of article 003, chapter 7 ----------------------------------------

def torch_layer(s):
    """nn.TransformerEncoderLayer with the chapter's weights; symattn's row convention
    y = x·W maps to PyTorch's y = x·weightᵀ, so weight = Wᵀ."""
    i = s.inputs
    W_Q = sa.concat([i["W1_Q"], i["W2_Q"]])                # head h: columns h·d_h … of q
    W_K = sa.concat([i["W1_K"], i["W2_K"]])
    W_V = sa.concat([i["W1_V"], i["W2_V"]])
    layer = torch.nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=6, dropout=0.0,
                                             activation="relu", layer_norm_eps=1e-5,
                                             batch_first=True, norm_first=False, dtype=F64)
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(torch.cat([tt(W).T for W in (W_Q, W_K, W_V)]))
        layer.self_attn.in_proj_bias.zero_()
        layer.self_attn.out_proj.weight.copy_(tt(i["W_O"]).T)
        layer.self_attn.out_proj.bias.zero_()
        layer.linear1.weight.copy_(tt(i["W_ff1"]).T)
        layer.linear1.bias.copy_(tt(i["b_ff1"])[0])
        layer.linear2.weight.copy_(tt(i["W_ff2"]).T)
        layer.linear2.bias.copy_(tt(i["b_ff2"])[0])
        for norm in (layer.norm1, layer.norm2):
            norm.weight.fill_(float(i["gamma"].params["entries"][0][0]))
            norm.bias.fill_(float(i["beta"].params["entries"][0][0]))
    return layer


@pytest.fixture(scope="module")
def ch7():
    return spec("003-ch7-multihead-layer")


def test_encoder_layer_article_003_ch7(ch7):
    layer = torch_layer(ch7)
    X = tt(ch7.inputs["X"])[None]
    Y = certified(ch7.tensors["Y"])
    layer.train()                                          # dropout 0: the plain math path
    assert_close(layer(X)[0], Y)
    layer.eval()
    with torch.no_grad():                                  # the fused inference path
        assert_close(layer(X)[0], Y)
    # the engine's encoder_layer operation gives the same as the spec's steps
    i = ch7.inputs
    p = sa.EncoderLayerParams(
        heads=[sa.Head(i["W1_Q"], i["W1_K"], i["W1_V"]), sa.Head(i["W2_Q"], i["W2_K"], i["W2_V"])],
        W_O=i["W_O"], ffn=sa.FFNParams(i["W_ff1"], i["b_ff1"], i["W_ff2"], i["b_ff2"]),
        eps=Fraction(1, 100000), norm1=(i["gamma"], i["beta"]), norm2=(i["gamma"], i["beta"]))
    out = sa.encoder_layer(i["X"], p)["output"]
    assert sa.evaluate(out, digits=30) == sa.evaluate(ch7.tensors["Y"], digits=30)
    assert_close(layer(X)[0], certified(out))


# -- gradients against torch.autograd ----------------------------------------------------------

def test_autograd_through_attention_article_000(art000):
    _, X, W_Q, W_K, W_V = art000
    Z, _ = sa.attention(X @ W_Q, X @ W_K, X @ W_V)
    loss = weighted(Z)
    ts = {name: tt(w, grad=True) for name, w in (("X", X), ("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V))}
    Xt = ts["X"]
    out = F.scaled_dot_product_attention((Xt @ ts["W_Q"])[None], (Xt @ ts["W_K"])[None],
                                         (Xt @ ts["W_V"])[None])[0]
    L = weighted_torch(out)
    L.backward()
    assert_close(L.detach().reshape(1, 1), certified(loss))
    for name, w in (("X", X), ("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        assert_close(ts[name].grad, grad_of(loss, w))


def test_autograd_through_causal_attention_unscaled():
    s = spec("002-causal-mask")
    X = s.inputs["X"]
    loss = weighted(s.tensors["Zm"], seed=2)
    Xt = tt(X, grad=True)
    out = F.scaled_dot_product_attention(Xt[None], Xt[None], Xt[None], is_causal=True,
                                         scale=1.0)[0]
    L = weighted_torch(out, seed=2)
    L.backward()
    assert_close(Xt.grad, grad_of(loss, X))


def test_autograd_through_the_encoder_layer_article_003_ch7(ch7):
    i = ch7.inputs
    layer = torch_layer(ch7)
    X = tt(i["X"], grad=True)
    L = weighted_torch(layer(X[None])[0], seed=3)
    L.backward()
    loss = weighted(ch7.tensors["Y"], seed=3)
    assert_close(L.detach().reshape(1, 1), certified(loss))
    assert_close(X.grad, grad_of(loss, i["X"]))
    assert_close(layer.self_attn.out_proj.weight.grad.T, grad_of(loss, i["W_O"]))
    assert_close(layer.linear1.weight.grad.T, grad_of(loss, i["W_ff1"]))
    assert_close(layer.linear1.bias.grad[None], grad_of(loss, i["b_ff1"]))
    assert_close(layer.linear2.weight.grad.T, grad_of(loss, i["W_ff2"]))
    g_in = layer.self_attn.in_proj_weight.grad              # rows: W_Qᵀ, W_Kᵀ, W_Vᵀ
    assert_close(g_in[0:4].T[:, 0:2], grad_of(loss, i["W1_Q"]))
    assert_close(g_in[4:8].T[:, 2:4], grad_of(loss, i["W2_K"]))
    assert_close(g_in[8:12].T[:, 0:2], grad_of(loss, i["W1_V"]))
    # one γ and one β serve both LayerNorms in the spec: their gradients add up
    g_gamma = (layer.norm1.weight.grad + layer.norm2.weight.grad).sum()
    g_beta = (layer.norm1.bias.grad + layer.norm2.bias.grad).sum()
    assert_close(g_gamma.reshape(1, 1), grad_of(loss, i["gamma"]))
    assert_close(g_beta.reshape(1, 1), grad_of(loss, i["beta"]))


def test_autograd_cross_entropy_article_003_ch8():
    s = spec("003-ch8-vocab-softmax")
    h, W = tt(s.inputs["h"], grad=True), tt(s.inputs["W_vocab"], grad=True)
    L = F.cross_entropy(h @ W, torch.tensor([2]))              # target 眠る
    L.backward()
    assert_close(L.detach().reshape(1, 1), certified(s.tensors["loss"]))
    assert round(L.item(), 4) == 0.5899
    assert_close(h.grad, grad_of(s.tensors["loss"], s.inputs["h"]))
    assert_close(W.grad, grad_of(s.tensors["loss"], s.inputs["W_vocab"]))


def test_autograd_label_smoothing():
    z = sa.matrix([["0.3", "-0.7", "1.1", "0.2"]])
    loss = sa.label_smoothing_loss(z, 2, Fraction(1, 10))
    zt = tt(z, grad=True)
    L = F.cross_entropy(zt, torch.tensor([2]), label_smoothing=0.1)
    L.backward()
    assert_close(L.detach().reshape(1, 1), certified(loss))
    assert_close(zt.grad, grad_of(loss, z))


# -- properties ----------------------------------------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(1, 3), st.booleans(), st.data())
def test_property_attention_and_its_gradient_match_torch(T, d, causal, data):
    ints = st.integers(-25, 25)
    rows = lambda: [[Fraction(data.draw(ints), 10) for _ in range(d)] for _ in range(T)]  # noqa: E731
    Q, K, V = sa.matrix(rows()), sa.matrix(rows()), sa.matrix(rows())
    Z, _ = sa.attention(Q, K, V, mask=sa.causal_mask(T) if causal else None)
    loss = weighted(Z, seed=T + d)
    Qt, Kt, Vt = tt(Q, grad=True), tt(K, grad=True), tt(V, grad=True)
    out = F.scaled_dot_product_attention(Qt[None], Kt[None], Vt[None], is_causal=causal)[0]
    assert_close(out, certified(Z))
    weighted_torch(out, seed=T + d).backward()
    for t, x in ((Qt, Q), (Kt, K), (Vt, V)):
        assert_close(t.grad, grad_of(loss, x))


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 5), st.data())
def test_property_layer_norm_and_its_gradient_match_torch(d, data):
    ints = st.integers(-40, 40)
    X = sa.matrix([[Fraction(data.draw(ints), 8) for _ in range(d)] for _ in range(2)])
    gamma = sa.matrix([[Fraction(data.draw(ints), 16) for _ in range(d)]])
    loss = weighted(sa.layer_norm(X, gamma=gamma), seed=d)
    Xt, gt = tt(X, grad=True), tt(gamma, grad=True)
    out = F.layer_norm(Xt, (d,), weight=gt[0], eps=1e-5)
    weighted_torch(out, seed=d).backward()
    assert_close(Xt.grad, grad_of(loss, X))
    assert_close(gt.grad, grad_of(loss, gamma))
