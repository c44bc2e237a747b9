"""The operations of LLaMA-style models against PyTorch in float64: ``nn.RMSNorm``,
``F.silu``, ``F.gelu`` (both variants), a SwiGLU of ``nn.Linear`` layers, a reference RoPE in both layouts written here
(Meta's complex-number form for pairs, Hugging Face's ``rotate_half`` for halves), ALiBi
written from the paper, ``F.scaled_dot_product_attention(..., enable_gqa=True)``, and
torch.autograd gradients. The engine's values are certified digits; torch's agree to 1e-12.

PyTorch is an optional test extra (`pip install torch==2.13.0`): without it this file is
skipped.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

import symattn as sa  # noqa: E402
from symattn.ops import primitives as P  # noqa: E402
from test_llama_ops import paper_slopes  # noqa: E402  (the ALiBi authors' rule, written once)
from test_torch_crosscheck import tt, certified, grad_of as grads, assert_close as close  # noqa: E402,E501

pytestmark = pytest.mark.torch

F64 = torch.float64
X = [["0.5", "-1.25", "2", "0.75", "1", "0"], ["1.5", "0.25", "-0.5", "-2", "0.5", "1"],
     ["0", "1", "0.125", "3", "-1", "2"], ["-1", "0.5", "0.5", "1", "2", "-0.25"]]
C = [[(3 * i + 5 * j) % 7 - 3 for j in range(6)] for i in range(4)]


def weighted(t):
    return P.row_sum(P.row_sum(t * sa.matrix([r[:t.shape[1]] for r in C[:t.shape[0]]])).T)


def weighted_torch(y):
    return (y * torch.tensor([r[:y.shape[1]] for r in C[:y.shape[0]]], dtype=F64)).sum()


def rand(rows, cols, seed):
    rng = np.random.default_rng(seed)
    return sa.matrix([[str(v) for v in row] for row in rng.integers(-8, 9, (rows, cols)) / 8])


# -- RMSNorm, SiLU, SwiGLU ----------------------------------------------------------------------

@pytest.mark.parametrize("eps", ["1e-6", "1e-5", "0.25"])
def test_rms_norm_against_nn_rmsnorm(eps):
    x, g = sa.matrix(X), rand(1, 6, 1)
    norm = torch.nn.RMSNorm(6, eps=float(eps), dtype=F64)
    with torch.no_grad():
        norm.weight.copy_(tt(g)[0])
    xt = tt(x, grad=True)
    y = norm(xt)
    t = sa.rms_norm(x, eps=eps, gamma=g)
    close(y, certified(t))
    weighted_torch(y).backward()
    close(xt.grad, grads(weighted(t), x))
    close(norm.weight.grad[None], grads(weighted(t), g))


def test_rms_norm_default_eps_is_llamas():
    x = sa.matrix(X)
    close(torch.nn.RMSNorm(6, eps=1e-6, elementwise_affine=False, dtype=F64)(tt(x)),
          certified(sa.rms_norm(x)))


def test_silu_against_f_silu():
    x = sa.matrix(X)
    xt = tt(x, grad=True)
    y = F.silu(xt)
    close(y, certified(sa.silu(x)))
    close(y, sa.silu(x).numpy())
    weighted_torch(y).backward()
    close(xt.grad, grads(weighted(sa.silu(x)), x))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_against_f_gelu(approximate):
    x = sa.matrix(X)
    xt = tt(x, grad=True)
    y = F.gelu(xt, approximate=approximate)
    t = sa.gelu(x, approximate=approximate)
    close(y, certified(t))
    close(y, t.numpy())
    weighted_torch(y).backward()
    close(xt.grad, grads(weighted(t), x))


def test_swiglu_against_linear_layers():
    x, Wg, Wu, Wd = sa.matrix(X), rand(6, 5, 2), rand(6, 5, 3), rand(5, 6, 4)
    w1, w3, w2 = (torch.nn.Linear(a, b, bias=False, dtype=F64) for a, b in ((6, 5), (6, 5), (5, 6)))
    with torch.no_grad():                    # nn.Linear stores weight = Wᵀ (out × in)
        w1.weight.copy_(tt(Wg).T), w3.weight.copy_(tt(Wu).T), w2.weight.copy_(tt(Wd).T)
    xt = tt(x, grad=True)
    y = w2(F.silu(w1(xt)) * w3(xt))         # LLaMA's FeedForward.forward
    t = sa.swiglu(x, Wg, Wu, Wd)
    close(y, certified(t))
    weighted_torch(y).backward()
    close(xt.grad, grads(weighted(t), x))
    close(w1.weight.grad.T, grads(weighted(t), Wg))
    close(w2.weight.grad.T, grads(weighted(t), Wd))


# -- RoPE: two reference implementations ---------------------------------------------------------

def rope_pairs_meta(x, base):
    """Meta's LLaMA: adjacent pairs as complex numbers times e^{i·m·θ_k}."""
    T, d = x.shape
    freqs = 1.0 / (base ** (torch.arange(0, d, 2, dtype=F64)[: d // 2] / d))
    angles = torch.outer(torch.arange(T, dtype=F64), freqs)
    cis = torch.polar(torch.ones_like(angles), angles)
    xc = torch.view_as_complex(x.reshape(T, d // 2, 2))
    return torch.view_as_real(xc * cis).reshape(T, d)


def rope_halves_hf(x, base):
    """Hugging Face's LLaMA: x·cos + rotate_half(x)·sin with cos, sin of cat(freqs, freqs)."""
    T, d = x.shape
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=F64) / d))
    emb = torch.cat([torch.outer(torch.arange(T, dtype=F64), inv_freq)] * 2, dim=-1)

    def rotate_half(v):
        return torch.cat((-v[..., d // 2:], v[..., : d // 2]), dim=-1)
    return x * emb.cos() + rotate_half(x) * emb.sin()


@pytest.mark.parametrize("layout, reference", [("pairs", rope_pairs_meta), ("halves", rope_halves_hf)])
@pytest.mark.parametrize("base", [10000, 500])
def test_rope_against_references(layout, reference, base):
    x = sa.matrix(X)
    xt = tt(x, grad=True)
    y = reference(xt, float(base))
    t = sa.rope(x, base=base, layout=layout)
    close(y, certified(t))
    close(y, t.numpy())
    weighted_torch(y).backward()
    close(xt.grad, grads(weighted(t), x))


@pytest.mark.parametrize("layout, reference", [("pairs", rope_pairs_meta), ("halves", rope_halves_hf)])
def test_rope_matrix_times_a_column_is_the_references_row(layout, reference):
    """R_m xᵀ for the row x at position m: row m of the reference implementation's output."""
    x = sa.matrix(X)
    y = reference(tt(x), 10000.0)
    for m in range(len(X)):
        t = sa.rope_matrix(len(X[0]), m, layout=layout) @ sa.transpose(x[m])
        assert t.shape == (len(X[0]), 1)
        close(y[m:m + 1].T, certified(t))


def test_the_two_layouts_are_a_permutation_apart():
    """halves(x) = pairs(x permuted so that (k, k + d/2) become adjacent), permuted back."""
    x = sa.matrix(X)
    perm = [k for j in range(3) for k in (j, j + 3)]
    back = [perm.index(j) for j in range(6)]
    xt = tt(x)
    close(rope_pairs_meta(xt[:, perm], 10000.0)[:, back], certified(sa.rope(x, layout="halves")))


# -- ALiBi and grouped-query attention -----------------------------------------------------------

def alibi_paper(n_heads, n):
    """The paper's slopes and its bias m·(j − i), (n_heads, n, n)."""
    m = torch.tensor(paper_slopes(n_heads), dtype=F64)
    rel = torch.arange(n, dtype=F64)[None, :] - torch.arange(n, dtype=F64)[:, None]
    return m[:, None, None] * rel[None]


@pytest.mark.parametrize("n_heads", [2, 3, 4, 8])
def test_alibi_against_the_paper(n_heads):
    close(alibi_paper(n_heads, 4).reshape(n_heads * 4, 4), certified(sa.alibi_bias(n_heads, 4)))


@pytest.mark.parametrize("n_heads, n_kv_heads", [(4, 4), (4, 2), (4, 1), (2, 1)])
@pytest.mark.parametrize("alibi", [False, True])
def test_gqa_against_sdpa_enable_gqa(n_heads, n_kv_heads, alibi):
    T, d, d_head = 4, 6, 2
    x = sa.matrix(X)
    WQ, WK, WV = (rand(d, n * d_head, s) for n, s in ((n_heads, 5), (n_kv_heads, 6), (n_kv_heads, 7)))
    WO = rand(n_heads * d_head, d, 8)
    bias = sa.alibi_bias(n_heads, T) if alibi else None
    st = sa.multi_head(x, WQ, WK, WV, n_heads=n_heads, n_kv_heads=n_kv_heads, W_O=WO,
                       mask=sa.causal_mask(T), bias=bias)
    ts = {k: tt(w, grad=True) for k, w in (("x", x), ("WQ", WQ), ("WK", WK), ("WV", WV), ("WO", WO))}

    def heads(v, n):                          # T × n·d_head → (n, T, d_head), split by columns
        return v.reshape(T, n, d_head).transpose(0, 1)[None]
    xt = ts["x"]
    q, k, v = heads(xt @ ts["WQ"], n_heads), heads(xt @ ts["WK"], n_kv_heads), heads(xt @ ts["WV"], n_kv_heads)
    causal = torch.full((T, T), float("-inf"), dtype=F64).triu(1)
    mask = causal + (alibi_paper(n_heads, T) if alibi else 0)
    z = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[None], enable_gqa=True)
    # its repeat_interleave equivalent, as GQA is usually written out
    rep = n_heads // n_kv_heads
    z2 = F.scaled_dot_product_attention(q, k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1),
                                        attn_mask=mask[None])
    close(z, z2.detach().numpy())
    y = z[0].transpose(0, 1).reshape(T, n_heads * d_head) @ ts["WO"]
    close(y, certified(st["output"]))
    # the mistake kept for diagnosis: key/value heads repeated with repeat, not repeat_interleave
    tiled = F.scaled_dot_product_attention(q, k.repeat(1, rep, 1, 1), v.repeat(1, rep, 1, 1),
                                           attn_mask=mask[None])
    tiled_st = sa.multi_head(x, WQ, WK, WV, n_heads=n_heads, n_kv_heads=n_kv_heads, W_O=WO,
                             mask=sa.causal_mask(T), bias=bias, kv_repeat="tile")
    close(tiled[0].transpose(0, 1).reshape(T, n_heads * d_head) @ ts["WO"],
          certified(tiled_st["output"]))
    weighted_torch(y).backward()
    loss = weighted(st["output"])
    for name, w in (("x", x), ("WQ", WQ), ("WK", WK), ("WV", WV)):
        close(ts[name].grad, grads(loss, w))
