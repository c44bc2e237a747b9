"""The mistakes that belong to the LLaMA-style operations (issue 22), each declared beside its
operation: a printed block computed here the wrong way with mpmath (test_llama_ops'
references) is checked, and the diagnosis names that mistake. Never the engine's numbers."""

from __future__ import annotations

import json
import textwrap
from decimal import Decimal, ROUND_HALF_UP

import mpmath
import pytest

from symattn.claims.check import check_spec
from symattn.spec.load import load
from test_llama_ops import mpm, ref_matmul, ref_silu, paper_slopes, H_IN
from test_llama_ops import precision  # noqa: F401  (autouse: mpmath at 40 digits)


def four(v) -> str:
    return str(Decimal(mpmath.nstr(v, 30)).quantize(Decimal("0.0001"), ROUND_HALF_UP))


def row_text(row) -> str:
    return "[" + ", ".join(four(v) for v in row) + "]"


def check(tmp_path, inputs: str, expr: str, printed: dict):
    """printed: row -> the printed row; one claim per row, on lines 1, 2, …"""
    text = '[example]\nid = "m"\nsource = "post.md"\n[inputs]\n' + textwrap.dedent(inputs)
    text += f'[[steps]]\nname = "y"\nexpr = {json.dumps(expr)}\n'
    for line, (i, row) in enumerate(printed.items(), 1):
        text += f'[[claims]]\nstep = "y"\nat = {i}\nprinted = "{row}"\nline = {line}\n'
    p = tmp_path / "m.toml"
    p.write_text(text, encoding="utf-8")
    return check_spec(load(str(p)))


def diagnosed(recs, label: str) -> bool:
    """Every wrong entry is diagnosed with ``label`` (and there is one)."""
    wrong = [r for r in recs if r.verdict == "wrong"]
    return bool(wrong) and all(label in (r.diagnosis or []) for r in wrong)


X = [["1", "2", "-1", "0.5"], ["0.5", "-1.5", "2", "1"]]
G = [["1", "0.5", "2", "-1"]]
XS = "x = [[1, 2, -1, 0.5], [0.5, -1.5, 2, 1]]\ng = [[1, 0.5, 2, -1]]\n"


def _rows(f):
    x, g = mpm(X), mpm(G)[0]
    return {i: row_text([f(x[i], j) * g[j] for j in range(4)]) for i in range(2)}


@pytest.mark.parametrize("how, label", [
    ("l2", "RMSNorm dividing by the L2 norm √(Σx²) instead of the RMS √(mean(x²) + ε)"),
    ("std", "RMSNorm dividing by the standard deviation (LayerNorm without subtracting the mean)"),
    ("outside", "RMSNorm with eps outside the square root"),
    ("no_gamma", "RMSNorm without the gain γ")])
def test_rms_norm_mistakes(tmp_path, how, label):
    eps = mpmath.mpf("0.01")

    def wrong(r, j):
        ms = mpmath.fsum(v * v for v in r) / 4
        mu = mpmath.fsum(r) / 4
        d = {"l2": mpmath.sqrt(ms * 4), "std": mpmath.sqrt(mpmath.fsum((v - mu) ** 2 for v in r) / 4 + eps),
             "outside": mpmath.sqrt(ms) + eps, "no_gamma": mpmath.sqrt(ms + eps)}[how]
        return r[j] / d / (mpm(G)[0][j] if how == "no_gamma" else 1)
    recs = check(tmp_path, XS, "rms_norm(x, eps=0.01, gamma=g)", _rows(wrong))
    assert diagnosed(recs, label)


def test_silu_mistake(tmp_path):
    x = mpm(X)
    sig = {i: row_text([1 / (1 + mpmath.exp(-v)) for v in x[i]]) for i in range(2)}
    assert sig[0] != row_text([ref_silu(v) for v in x[0]])
    assert diagnosed(check(tmp_path, XS, "silu(x)", sig), "σ(x) instead of SiLU x·σ(x)")


WG = [["1", "0"], ["0", "1"], ["1", "1"], ["0", "-1"]]
WU = [["0.5", "0"], ["0", "0.5"], ["1", "0"], ["0", "1"]]
WD = [["1", "0", "0", "1"], ["0", "1", "1", "0"]]
SW = XS + ("W_gate = [[1, 0], [0, 1], [1, 1], [0, -1]]\nW_up = [[0.5, 0], [0, 0.5], [1, 0], [0, 1]]\n"
           "W_down = [[1, 0, 0, 1], [0, 1, 1, 0]]\n")


@pytest.mark.parametrize("how, label", [
    ("glu", "GLU form σ(x·W_gate) ⊙ x·W_up instead of SiLU(x·W_gate) ⊙ x·W_up"),
    ("swapped", "SiLU on the up projection instead of the gate (W_gate and W_up swapped)")])
def test_swiglu_mistakes(tmp_path, how, label):
    x = mpm(X)
    gate, up = ref_matmul(x, mpm(WG)), ref_matmul(x, mpm(WU))
    if how == "glu":
        hidden = [[u / (1 + mpmath.exp(-g)) for g, u in zip(gr, ur)] for gr, ur in zip(gate, up)]
    else:
        hidden = [[ref_silu(u) * g for g, u in zip(gr, ur)] for gr, ur in zip(gate, up)]
    out = ref_matmul(hidden, mpm(WD))
    right = ref_matmul([[ref_silu(g) * u for g, u in zip(gr, ur)] for gr, ur in zip(gate, up)], mpm(WD))
    assert row_text(out[0]) != row_text(right[0])
    recs = check(tmp_path, SW, "swiglu(x, W_gate, W_up, W_down)", {i: row_text(out[i]) for i in range(2)})
    assert diagnosed(recs, label)


def _alibi(n_heads, n, slopes, form):
    rows = []
    for h in range(n_heads):
        for i in range(n):
            rows.append([slopes[h] * {"sign": i - j, "symmetric": -abs(i - j), "right": j - i}[form]
                         for j in range(n)])
    return rows


@pytest.mark.parametrize("n_heads, form, schedule, label", [
    (2, "sign", "paper", "ALiBi with the sign flipped: +m·(i − j) instead of m·(j − i)"),
    (2, "symmetric", "paper", "ALiBi's symmetric form −m·|i − j| instead of m·(j − i)"),
    (3, "right", "geometric", "ALiBi with slopes 2^(−8h/n) for every n instead of the paper's slopes"),
    (2, "right", "halving", "ALiBi with slopes 2^(−h) instead of the paper's slopes")])
def test_alibi_mistakes(tmp_path, n_heads, form, schedule, label):
    paper = [mpmath.mpf(s) for s in paper_slopes(n_heads)]
    assert all(mpmath.almosteq(p, mpmath.power(2, mpmath.mpf(-8 * (h + 1)) / n_heads))
               for h, p in enumerate(paper)) == (n_heads == 2)
    slopes = {"paper": paper,
              "geometric": [mpmath.power(2, mpmath.mpf(-8 * h) / n_heads) for h in range(1, n_heads + 1)],
              "halving": [mpmath.power(2, -h) for h in range(1, n_heads + 1)]}[schedule]
    rows = _alibi(n_heads, 3, slopes, form)
    printed = {i: row_text(r) for i, r in enumerate(rows) if row_text(r) != row_text(_alibi(n_heads, 3, paper, "right")[i])}
    assert printed
    recs = check(tmp_path, "", f"alibi_bias({n_heads}, 3)", printed)
    assert diagnosed(recs, label)


def _rope(x, positions, base, theta=None):
    out = []
    for m, row in zip(positions, x):
        new = list(row)
        for k in range(len(row) // 2):
            th = theta if theta is not None else mpmath.power(base, mpmath.mpf(-2 * k) / len(row))
            c, s = mpmath.cos(m * th), mpmath.sin(m * th)
            new[2 * k], new[2 * k + 1] = row[2 * k] * c - row[2 * k + 1] * s, row[2 * k] * s + row[2 * k + 1] * c
        out.append(new)
    return out


@pytest.mark.parametrize("expr, positions, base, label", [
    ("rope(x)", [1, 2], 10000, "RoPE positions counted from 1 instead of 0"),
    ("rope(x, positions=p)", [4, 8], 10000, "RoPE positions off by one (m + 1)"),
    ("rope(x)", [0, 1], 1000, "RoPE with base 1000 instead of 10000"),
    ("rope(x, base=500)", [0, 1], 10000, "RoPE with base 10000 instead of 500")])
def test_rope_mistakes(tmp_path, expr, positions, base, label):
    rows = _rope(mpm(X), positions, mpmath.mpf(base))
    recs = check(tmp_path, XS + "p = [[3], [7]]\n", expr, {i: row_text(r) for i, r in enumerate(rows)})
    assert diagnosed(recs, label)


def test_a_slip_in_a_grouped_key_projection_is_a_slip_not_a_neighbour(tmp_path):
    # K = H·W_K with two key/value heads of width 1: K[0] = [1 − 0.5, 0.5 + 2] = [0.5, 2.5];
    # the term H[0,3]·W_K[3,1] = 2 left out gives 0.5, which is also the neighbour K[0,0]
    K = ref_matmul(mpm(H_IN), mpm([["1", "0"], ["0", "1"], ["1", "0"], ["0", "1"]]))
    assert [four(v) for v in K[0]] == ["0.5000", "2.5000"]
    assert K[0][1] - mpm(H_IN)[0][3] == K[0][0]
    inputs = ("H = [[1, 0.5, -0.5, 2], [0, 1, 1.5, -1], [0.5, 0.5, 0.5, 0.5]]\n"
              "W_K = [[1, 0], [0, 1], [1, 0], [0, 1]]\n")
    recs = check(tmp_path, inputs, "H @ W_K", {0: "[0.5000, 0.5000]"})
    bad = recs[1]
    assert bad.verdict == "wrong"
    assert "arithmetic slip: the term H[0, 3]·W_K[3, 1] left out" in bad.diagnosis
    assert not any("neighbouring" in d for d in bad.diagnosis)


def test_a_slip_in_a_key_head_of_grouped_query_attention_names_the_weight(tmp_path):
    # head 3 of 4 with 2 key/value heads uses W_K's column 1: K = H·W_K[:, 1]
    x, wk = mpm(H_IN), mpm([["1", "0"], ["0", "1"], ["1", "0"], ["0", "1"]])
    K = [sum(x[i][k] * wk[k][1] for k in range(4)) for i in range(3)]
    assert [four(v) for v in K] == ["2.5000", "0.0000", "1.0000"] and K[2] - x[2][3] * wk[3][1] == mpmath.mpf("0.5")
    inputs = ("H = [[1, 0.5, -0.5, 2], [0, 1, 1.5, -1], [0.5, 0.5, 0.5, 0.5]]\n"
              "W_Q = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]\n"
              "W_K = [[1, 0], [0, 1], [1, 0], [0, 1]]\nW_V = [[0.5, 0], [0, 0.5], [1, 0], [0, 1]]\n")
    recs = check(tmp_path, inputs, "multi_head(H, W_Q, W_K, W_V, n_heads=4, n_kv_heads=2, head=3, part='K')",
                 {2: "[0.5]"})
    assert recs[0].verdict == "wrong"
    assert "arithmetic slip: the term H[2, 3]·W_K[3, 1] left out" in recs[0].diagnosis
