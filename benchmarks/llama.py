"""A LLaMA-style decoder block at LLaMA-7B's width (issue 25), written once per tool.

Pre-norm: h = x + W_O·GQA(RoPE(Q), RoPE(K), V) of RMSNorm(x), then out = h + SwiGLU(RMSNorm(h)):
d = 4096, 32 query heads and 8 key/value heads of width 128 (grouped-query attention,
query head i on key/value head i // 4), causal, RoPE in the "halves" layout (Hugging Face's
``rotate_half``) at base 10000, RMSNorm with ε = 10⁻⁵ and gains γ, SwiGLU with d_ff = 11008.

Weights are decimals with 4 places (|w| ≤ 0.03, about LLaMA's spread), the gains 2 places
near 1, the input rows 2 places in ±0.99; all generated as float64 arrays from a seed and read
by ``sa.from_numpy(a, decimals=k)``, as a user brings weights from NumPy or PyTorch.
"""

from __future__ import annotations

from fractions import Fraction

D, H, H_KV, D_HEAD, D_FF = 4096, 32, 8, 128, 11008
EPS = Fraction(1, 100000)
ROPE_BASE = 10000
W_SPAN = 300                      # weights k/10^4, |k| <= 300


def arrays(T: int, seed: int = 25, d: int = D, d_ff: int = D_FF, h: int = H, h_kv: int = H_KV):
    """The block's inputs as float64 arrays with their places: {name: (array, decimals)},
    made one at a time by ``yield`` (a caller may read each and let it go)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    dh = d // h

    def w(m, n):
        return rng.integers(-W_SPAN, W_SPAN + 1, (m, n)) / 10 ** 4, 4
    yield "x", (rng.integers(-99, 100, (T, d)) / 100, 2)
    yield "g1", (rng.integers(90, 111, (1, d)) / 100, 2)
    yield "g2", (rng.integers(90, 111, (1, d)) / 100, 2)
    for i in range(h):
        yield f"Wq{i}", w(d, dh)
    for j in range(h_kv):
        yield f"Wk{j}", w(d, dh)
        yield f"Wv{j}", w(d, dh)
    yield "W_O", w(d, d)
    yield "W_gate", w(d, d_ff)
    yield "W_up", w(d, d_ff)
    yield "W_down", w(d_ff, d)


def symattn_inputs(T: int, **shape) -> dict:
    """Every input read by ``sa.from_numpy(..., decimals=k)`` (the float arrays let go)."""
    import symattn as sa
    return {name: sa.from_numpy(a, decimals=k) for name, (a, k) in arrays(T, **shape)}


def symattn_block(m: dict, h: int = H, h_kv: int = H_KV):
    """The block's output (T×d) from the inputs of :func:`symattn_inputs`."""
    import symattn as sa
    x = m["x"]
    T = x.shape[0]
    mask = sa.causal_mask(T)
    n1 = sa.rms_norm(x, eps=EPS, gamma=m["g1"])
    kv = [(sa.rope(n1 @ m[f"Wk{j}"], base=ROPE_BASE, layout="halves"), n1 @ m[f"Wv{j}"])
          for j in range(h_kv)]
    heads = []
    for i in range(h):
        q = sa.rope(n1 @ m[f"Wq{i}"], base=ROPE_BASE, layout="halves")
        k, v = kv[i // (h // h_kv)]
        heads.append(sa.attention(q, k, v, mask=mask)[0])
    x2 = x + sa.concat(heads) @ m["W_O"]
    n2 = sa.rms_norm(x2, eps=EPS, gamma=m["g2"])
    return x2 + sa.swiglu(n2, m["W_gate"], m["W_up"], m["W_down"])


def torch_block(T: int, dtype: str, seed: int = 25, **shape):
    """The same block in PyTorch, every input rounded to ``dtype`` and every operation in it
    (``F.rms_norm``, RoPE as Hugging Face's LLaMA, ``scaled_dot_product_attention`` with
    ``enable_gqa``): its output tensor (of that dtype, as ``sa.compare`` reads it)."""
    import torch
    F = torch.nn.functional
    dt = getattr(torch, dtype)
    t = {name: torch.from_numpy(a).to(dt) for name, (a, _) in arrays(T, seed, **shape)}
    h, h_kv = shape.get("h", H), shape.get("h_kv", H_KV)
    d = t["x"].shape[1]
    dh = d // h
    inv = 1.0 / (ROPE_BASE ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh))
    emb = torch.cat([torch.outer(torch.arange(T, dtype=torch.float64), inv)] * 2, dim=-1)
    cos, sin = emb.cos().to(dt), emb.sin().to(dt)

    def rope(v):                                     # v: heads × T × dh
        return v * cos + torch.cat((-v[..., dh // 2:], v[..., :dh // 2]), dim=-1) * sin

    def rms(v, g):
        return F.rms_norm(v, (d,), weight=g[0], eps=float(EPS))
    with torch.inference_mode():
        x = t["x"]
        n1 = rms(x, t["g1"])
        q = rope(torch.stack([n1 @ t[f"Wq{i}"] for i in range(h)]))
        k = rope(torch.stack([n1 @ t[f"Wk{j}"] for j in range(h_kv)]))
        v = torch.stack([n1 @ t[f"Wv{j}"] for j in range(h_kv)])
        z = F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=True,
                                           enable_gqa=True)[0]
        x2 = x + torch.cat(list(z), dim=-1) @ t["W_O"]
        n2 = rms(x2, t["g2"])
        out = x2 + (F.silu(n2 @ t["W_gate"]) * (n2 @ t["W_up"])) @ t["W_down"]
        return out
