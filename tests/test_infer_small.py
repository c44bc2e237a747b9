"""Small worked examples inferred with no spec: d = 2 blocks of one or two rows, weights
printed from Q and K with the scores left out, a weight shown after its product.

Each post is written here; its truths are worked out with ``fractions`` and ``mpmath`` at
30 digits, never by symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from fractions import Fraction as F

import mpmath

mpmath.mp.dps = 30


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          cwd=cwd)


def check(path, tmp_path):
    """(the claims of ``check --json``, the inferred spec written with ``-o``)."""
    out = tmp_path / f"{path.stem}.toml"
    r = cli("check", "--json", str(path), "-o", str(out))
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["claims"], tomllib.loads(out.read_text(encoding="utf-8")), out


def mp(x: F):
    return mpmath.mpf(x.numerator) / x.denominator


def close(exact: str, truth) -> bool:
    return abs(mpmath.mpf(exact) - truth) <= mpmath.mpf("1e-12") * max(1, abs(truth))


# -- weights printed from Q and K, causally masked, the scores never printed ---------

Q = [[F(1), F(0)], [F(0), F(1)], [F(1), F(1)]]
K = [[F(1), F(1, 2)], [F(0), F(1)], [F(2), F(1)]]      # Q Kᵀ is not symmetric: K Qᵀ differs


def masked_weights():
    out = []
    for i in range(3):
        e = [mpmath.exp(mp(sum(Q[i][k] * K[j][k] for k in range(2))) / mpmath.sqrt(2)) for j in range(i + 1)]
        out.append([x / mpmath.fsum(e) for x in e] + [mpmath.mpf(0)] * (2 - i))
    return out


def bmatrix(rows) -> str:
    return r"\begin{bmatrix} " + r" \\ ".join(" & ".join(r) for r in rows) + r" \end{bmatrix}"


def test_weights_from_q_and_k_with_the_causal_mask_and_one_wrong(tmp_path):
    A = masked_weights()
    shown = [[f"{float(x):.4f}" for x in row] for row in A]
    shown[2][1] = f"{float(A[2][1]) + 0.01:.4f}"                    # one digit slipped
    path = tmp_path / "masked.md"
    path.write_text("\n".join([
        "# Masked self-attention by hand", "", "Three tokens of a decoder:", "",
        "$$Q = " + bmatrix([[str(x) for x in r] for r in [[1, 0], [0, 1], [1, 1]]]) + "$$", "",
        "$$K = " + bmatrix([["1", "0.5"], ["0", "1"], ["2", "1"]]) + "$$", "",
        r"The scores are divided by $\sqrt{2}$, the future masked with $-\infty$, then softmax:", "",
        "$$A = " + bmatrix(shown) + "$$", ""]), encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    assert [s["expr"] for s in spec["steps"]] == ["weights(Q, K, mask=causal_mask(3))"]
    weights = [c for c in claims if c["step"] == "A"]
    assert len(weights) == 9
    for c in weights:
        i, j = map(int, c["at"])
        assert close(c["exact"], A[i][j])
        assert c["verdict"] == ("wrong" if (i, j) == (2, 1) else "correct"), c


def test_weights_printed_without_the_scaling_the_text_states_are_diagnosed(tmp_path):
    def softmax_rows(scale):
        out = []
        for i in range(3):
            e = [mpmath.exp(mp(sum(Q[i][k] * K[j][k] for k in range(2))) * scale) for j in range(3)]
            out.append([x / mpmath.fsum(e) for x in e])
        return out
    printed_, truth = softmax_rows(1), softmax_rows(1 / mpmath.sqrt(2))
    path = tmp_path / "unscaled.md"
    path.write_text("\n".join([
        "# Attention weights", "", "$$Q = " + bmatrix([["1", "0"], ["0", "1"], ["1", "1"]]) + "$$", "",
        "$$K = " + bmatrix([["1", "0.5"], ["0", "1"], ["2", "1"]]) + "$$", "",
        r"The weights are the softmax of $QK^T / \sqrt{d_k}$ with $d_k = 2$:", "",
        "$$A = " + bmatrix([[f"{float(x):.4f}" for x in r] for r in printed_]) + "$$", ""]), encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    assert [s["expr"] for s in spec["steps"]] == ["weights(Q, K)"]
    assert len(claims) == 9
    for c in claims:
        i, j = map(int, c["at"])
        assert close(c["exact"], truth[i][j]) and c["verdict"] == "wrong"
        assert any("1/√d_k missing" in d for d in c["diagnosis"]), c


# -- a chain of 1×2 blocks: too small for the search's margin, taken last ------------

def test_a_chain_of_two_entry_blocks_is_checked_and_whole_numbers_are_not_explained(tmp_path):
    s = [mpmath.mpf("0.5"), mpmath.mpf("1.2")]
    w = [mpmath.exp(x) / mpmath.fsum(mpmath.exp(y) for y in s) for x in s]
    V = [[2, 0], [1, 3]]
    z = [mpmath.fsum(w[k] * V[k][j] for k in range(2)) for j in range(2)]
    path = tmp_path / "small.md"
    path.write_text("\n".join([
        "# One query, two keys", "", "The values of the two keys:", "",
        r"$$V = \begin{bmatrix} 2 & 0 \\ 1 & 3 \end{bmatrix}$$", "",
        r"The scaled scores of the query are $\begin{bmatrix} 0.5 & 1.2 \end{bmatrix}$.", "",
        rf"Softmax turns them into weights: $\begin{{bmatrix}} {float(w[0]):.4f} & {float(w[1]):.4f} \end{{bmatrix}}$.",
        "",
        rf"The output: $\begin{{bmatrix}} {float(z[0]):.4f} & {float(z[1]):.4f} \end{{bmatrix}}$.", "",
        r"Twice the first value is $\begin{bmatrix} 4 & 0 \end{bmatrix}$.", ""]), encoding="utf-8")
    claims, spec, out = check(path, tmp_path)
    by_line = {}
    for c in claims:
        by_line.setdefault(c["line"], []).append(c)
    assert [close(c["exact"], t) for c, t in zip(by_line[9], w)] == [True, True]
    assert [close(c["exact"], t) for c, t in zip(by_line[11], z)] == [True, True]
    assert all(c["verdict"] == "correct" for c in by_line[9] + by_line[11])
    assert 13 not in by_line                    # 2·V[0]: whole numbers, no derivation
    assert not any("+" in s["expr"] for s in spec["steps"])
    again = json.loads(cli("check", "--json", str(out)).stdout)["claims"]
    assert sorted((c["line"], c["verdict"]) for c in again) == sorted((c["line"], c["verdict"]) for c in claims)


# -- a weight printed after its product -----------------------------------------------

def test_a_weight_shown_after_its_product_is_its_operand(tmp_path):
    x = [F(1), F(2)]
    W = [[F(1, 8), F(25, 16), F(-3, 4)], [F(9, 8), F(1, 2), F(37, 16)]]
    xw = [x[0] * W[0][j] + x[1] * W[1][j] for j in range(3)]
    path = tmp_path / "later.md"
    path.write_text("\n".join([
        "# A projection", "", r"The token's vector is $x = \begin{bmatrix} 1 & 2 \end{bmatrix}$.", "",
        "Its projection $x W$:", "",
        "$$" + bmatrix([[str(float(v)) for v in xw]]) + "$$", "", "with the weight used above:", "",
        "$$W = " + bmatrix([[str(float(v)) for v in r] for r in W]) + "$$", ""]), encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    assert [s["expr"] for s in spec["steps"]] == ["x @ W"]
    assert spec["inputs"]["W"]["line"] == 11
    assert [F(c["exact"]) for c in claims] == xw and all(c["verdict"] == "correct" for c in claims)


# -- positional encodings go onto embeddings, not onto a computed block ---------------

def test_a_computed_row_plus_0101_is_no_positional_encoding(tmp_path):
    x = [F(1, 4), F(3, 2)]
    W = [[F(3, 2), F(1, 8), F(-1, 2), F(5, 4)], [F(1, 8), F(5, 4), F(3, 4), F(-1, 4)]]
    y = [x[0] * W[0][j] + x[1] * W[1][j] for j in range(4)]
    plus = [v + d for v, d in zip(y, [0, 1, 0, 1])]             # PE(0) for d = 4 is [0, 1, 0, 1]
    path = tmp_path / "residual.md"
    path.write_text("\n".join([
        "# A sublayer and a sum", "", r"$$x = \begin{bmatrix} 0.25 & 1.5 \end{bmatrix}$$", "",
        "$$W = " + bmatrix([[str(float(v)) for v in r] for r in W]) + "$$", "",
        "The sublayer's output $x W$:", "", "$$" + bmatrix([[str(float(v)) for v in y]]) + "$$", "",
        "After the sum:", "", "$$" + bmatrix([[str(float(v)) for v in plus]]) + "$$", ""]), encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    assert [s["expr"] for s in spec["steps"]] == ["x @ W"]     # the sum: unverified, not y + PE
    assert [F(c["exact"]) for c in claims] == y


# -- a tab table of one quantity per column: worked cells and percentages -------------

def test_the_columns_of_a_table_with_worked_cells_and_percentages(tmp_path):
    dots = [F(1), F(1, 2), F(3, 2)]                              # 1×1 + 0×0 = 1, …
    scaled = [mp(d) / mpmath.sqrt(2) for d in dots]
    weights = [mpmath.exp(x) / mpmath.fsum(mpmath.exp(y) for y in scaled) for x in scaled]
    rows = [f"{k}\t{w} = {d}\t{float(s):.4f}\t{100 * float(a):.2f}%" for k, w, d, s, a in
            zip(["start", "cat", "sleeps"], ["1×1 + 0×0", "1×0.5 + 0×1", "1×1.5 + 0×1"],
                ["1", "0.5", "1.5"], scaled, weights)]
    path = tmp_path / "table.txt"
    path.write_text("\n".join(['Scores of the query "cat" against three keys.', "",
                               "key\tQ·K\tdivided by √2\tsoftmax", *rows, ""]), encoding="utf-8")
    claims, spec, out = check(path, tmp_path)
    assert [s["expr"].split("(")[0].split(" ")[-1] for s in spec["steps"]] == ["sqrt", "softmax"]
    for line, (s, a) in enumerate(zip(scaled, weights), start=4):
        got = sorted((c["printed"], mpmath.mpf(c["exact"])) for c in claims if c["line"] == line)
        assert [p for p, _ in got] == sorted([f"{float(s):.4f}", f"{100 * float(a):.2f}%"])
        assert all(c["verdict"] == "correct" for c in claims if c["line"] == line)
        truth = {f"{float(s):.4f}": s, f"{100 * float(a):.2f}%": 100 * a}
        assert all(abs(v - truth[p]) <= mpmath.mpf("1e-12") * abs(truth[p]) for p, v in got)
    assert not any(c["printed"] in ("0.5", "1.5") for c in claims)  # the dot products: plain inputs


# -- LayerNorm worked vector by vector: the deviations are a step --------------------

def test_the_deviations_from_the_mean_and_the_normalised_vector(tmp_path):
    x = [F("1.414"), F("-0.207"), F("2.414"), F("2.414")]
    mean = sum(x) / 4
    dev = [v - mean for v in x]
    var = sum(d * d for d in dev) / 4
    out = [mp(d) / mpmath.sqrt(mp(var) + mpmath.mpf("0.00001")) for d in dev]
    path = tmp_path / "norm.md"
    path.write_text("\n".join([
        "# Add & Norm by hand", "", "The sum: $\\begin{bmatrix} 1.414 & -0.207 & 2.414 & 2.414 \\end{bmatrix}$", "",
        "Minus its mean: $" + bmatrix([[f"{float(d):.3f}" for d in dev]]) + "$", "",
        "Divided by the square root of the variance plus 0.00001: $" + bmatrix([[f"{float(o):.3f}" for o in out]]) + "$",
        ""]), encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    assert [s["expr"].split("(")[0] for s in spec["steps"]] == ["M3 - mean", "layer_norm"]
    got = {(c["line"], c["printed"]): c for c in claims}
    for d in dev:
        c = got[(5, f"{float(d):.3f}")]
        assert F(c["exact"]) == d and c["verdict"] == "correct"
    for o in out:
        c = got[(7, f"{float(o):.3f}")]
        assert close(c["exact"], o) and c["verdict"] == "correct"


# -- SwiGLU printed whole: x, the three weights, the output ---------------------------

def test_a_swiglu_output_printed_whole(tmp_path):
    x = [[F(1), F(-1, 2)], [F(1, 4), F(2)], [F(-3, 2), F(1, 2)]]     # 6 outputs: one may be wrong
    W_gate = [[F(1, 2), F(-1), F(1)], [F(1), F(1, 4), F(-1, 2)]]
    W_up = [[F(1), F(1, 2), F(-1, 4)], [F(-1, 2), F(1), F(3, 4)]]
    W_down = [[F(1), F(0)], [F(1, 2), F(-1)], [F(-1), F(1, 2)]]

    def mm(a, b):
        return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]
    g, u = mm(x, W_gate), mm(x, W_up)
    h = [[mp(g[i][j]) / (1 + mpmath.exp(-mp(g[i][j]))) * mp(u[i][j]) for j in range(3)] for i in range(3)]
    out = [[mpmath.fsum(h[i][k] * mp(W_down[k][j]) for k in range(3)) for j in range(2)] for i in range(3)]
    shown = [[f"{float(v):.4f}" for v in r] for r in out]
    shown[1][0] = f"{float(out[1][0]) - 0.01:.4f}"                # one digit slipped

    def tex(m):
        return bmatrix([[str(float(v)) for v in r] for r in m])
    path = tmp_path / "swiglu.md"
    path.write_text("\n".join([
        "# A SwiGLU feed-forward by hand", "", f"$$x = {tex(x)}$$", "", f"$$W_{{gate}} = {tex(W_gate)}$$", "",
        f"$$W_{{up}} = {tex(W_up)}$$", "", f"$$W_{{down}} = {tex(W_down)}$$", "",
        "SiLU of the gate times the up projection, then down:", "", f"$$y = {bmatrix(shown)}$$", ""]),
        encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    assert [s["expr"] for s in spec["steps"]] == ["swiglu(x, W_gate, W_up, W_down)"]
    for c in claims:
        i, j = map(int, c["at"])
        assert close(c["exact"], out[i][j])
        assert c["verdict"] == ("wrong" if (i, j) == (1, 0) else "correct"), c


# -- a row of the weights printed again, then used: the row is the operand -----------

def _masked_post_parts():
    V = [[F(2), F(0)], [F(1), F(3)], [F(0), F(1)]]
    A = masked_weights()
    z = [mpmath.fsum(A[1][k] * mp(V[k][j]) for k in range(3)) for j in range(2)]
    head = ["$$Q = " + bmatrix([["1", "0"], ["0", "1"], ["1", "1"]]) + "$$", "",
            "$$K = " + bmatrix([["1", "0.5"], ["0", "1"], ["2", "1"]]) + "$$", "",
            "$$V = " + bmatrix([["2", "0"], ["1", "3"], ["0", "1"]]) + "$$", ""]
    return A, z, head


def test_a_row_printed_again_before_its_use_is_the_operand(tmp_path):
    A, z, head = _masked_post_parts()
    path = tmp_path / "row.md"
    path.write_text("\n".join(["# One row followed", "", *head,
        r"Scaled by $\sqrt{2}$, the future masked, softmax:", "",
        "$$A = " + bmatrix([[f"{float(x):.4f}" for x in r] for r in A]) + "$$", "",
        "The weights of the second token: $" + bmatrix([[f"{float(x):.4f}" for x in A[1]]]) + "$", "",
        "Its output: $" + bmatrix([[f"{float(x):.4f}" for x in z]]) + "$", ""]), encoding="utf-8")
    claims, spec, out = check(path, tmp_path)
    assert spec["steps"][-1]["expr"] == "A[1] @ V"
    outs = [c for c in claims if c["line"] == 15]
    assert len(outs) == 2 and all(close(c["exact"], z[int(c["at"][1])]) and c["verdict"] == "correct" for c in outs)


def test_a_percent_column_used_before_the_matrix_it_is_a_row_of(tmp_path):
    """The weights of one query as a table's percentages, its output, and only then the
    whole weights matrix: the output is computed from that matrix's row, exactly."""
    A, z, head = _masked_post_parts()
    table = ["key\tweight", *[f"{k}\t{100 * float(a):.1f}%" for k, a in zip(["start", "cat", "sleeps"], A[1])]]
    table[0] = "key\tQ·K\tweight"
    table[1:] = [f"{k}\t{w}\t{100 * float(a):.1f}%" for k, w, a in
                 zip(["start", "cat", "sleeps"], ["1×0 + 0×0.5 = 0", "1×1 + 0×1 = 1", "1×1 + 0×2 = 1"], A[1])]
    path = tmp_path / "column.txt"
    path.write_text("\n".join(["One row first.", "", *head, r"Scaled by √2, masked, softmax:", "", *table, "",
        "Its output: " + bmatrix([[f"{float(x):.4f}" for x in z]]), "",
        "All the weights: " + bmatrix([[f"{float(x):.4f}" for x in r] for r in A]), ""]), encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    by_name = {s["name"]: s["expr"] for s in spec["steps"]}
    assert any(e.endswith("[1] @ V") for e in by_name.values()), by_name
    outs = [c for c in claims if c["printed"] in {f"{float(x):.4f}" for x in z}]
    assert len(outs) == 2 and all(close(c["exact"], z[int(c["at"][1])]) and c["verdict"] == "correct" for c in outs)


def test_one_query_row_masked_is_the_scores_plus_that_row_of_the_causal_mask(tmp_path):
    """A row of scaled scores, then the same row with its future −∞: the mask's row, so the
    exponentials after it are e^(s/√2) exactly, not e^0.7071 of the rounded print; one
    exponential misprinted is wrong."""
    s = [F(1), F(1, 2), F(3, 2), F(2), F(-1), F(0)]               # the fourth of six tokens
    scaled = [mp(x) / mpmath.sqrt(2) for x in s]
    e = [mpmath.exp(x) for x in scaled[:4]] + [mpmath.mpf(0)] * 2
    shown_e = [f"{float(x):.4f}" for x in e]
    shown_e[1] = f"{float(e[1]) + 0.002:.4f}"                      # a slip
    path = tmp_path / "masked_row.md"
    path.write_text("\n".join([
        "# One query of a causal head", "", "The fourth token scores the six keys:", "",
        r"$$s = \begin{bmatrix} 1 & 0.5 & 1.5 & 2 & -1 & 0 \end{bmatrix}$$", "", r"Divided by $\sqrt{2}$:", "",
        "$$" + bmatrix([[f"{float(x):.4f}" for x in scaled]]) + "$$", "",
        r"The last two are in its future, so their scores become $-\infty$:", "",
        "$$" + bmatrix([[f"{float(x):.4f}" for x in scaled[:4]] + [r"-\infty"] * 2]) + "$$", "",
        "Exponentials:", "", "$$" + bmatrix([shown_e]) + "$$", ""]), encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    masked = next(st for st in spec["steps"] if "causal_mask" in st["expr"])
    assert masked["expr"].endswith(" + causal_mask(6)[3]"), spec["steps"]
    inf = [c for c in claims if c["step"] == masked["name"] and c["printed"] in ("-∞", "−∞")]
    assert inf and all(c["exact"] == "-inf" and c["verdict"] == "correct" for c in inf)
    exps = [c for c in claims if c["line"] == 17]
    assert len(exps) == 6
    for c in exps:
        j = int(c["at"][1])
        assert close(c["exact"], e[j])
        assert c["verdict"] == ("wrong" if j == 1 else "correct"), c


def test_a_bias_beside_its_weight_and_a_residual_five_vectors_back(tmp_path):
    """Add & Norm then an FFN, every vector inline: the biases printed beside their weight
    matrices (``W_1 = [...], b_1 = [...]``) are inputs, the FFN's output is derived through
    them, and the residual that adds it to the normalised vector five prose vectors back is
    checked exactly: its -0.233 is right (the sum of the 3-decimal prints would say -0.232)."""
    x, z = [F(2), F(-1), F(1, 2), F(3, 2)], [F(3, 10), F(1, 5), F(-2, 5), F(1, 10)]
    W1 = [[F(1, 2), F(-1, 5), F(1, 10)], [F(3, 10), F(2, 5), F(-1, 2)],
          [F(-1, 10), F(1, 5), F(3, 5)], [F(1, 5), F(1, 10), F(3, 10)]]
    b1 = [F(1, 10), F(0), F(-1, 5)]
    W2 = [[F(1), F(0), F(1, 2), F(-1, 2)], [F(1, 5), F(3, 10), F(0), F(1, 10)], [F(0), F(-2, 5), F(1, 5), F(3, 5)]]
    b2 = [F(0), F(1, 10), F(0), F(-1, 10)]
    r = [a + b for a, b in zip(x, z)]
    mu = sum(r) / 4
    var = sum((v - mu) ** 2 for v in r) / 4
    ln = [mp(v - mu) / mpmath.sqrt(mp(var + F(1, 100000))) for v in r]
    h = [mpmath.fsum(ln[i] * mp(W1[i][j]) for i in range(4)) + mp(b1[j]) for j in range(3)]
    a = [max(v, mpmath.mpf(0)) for v in h]
    f = [mpmath.fsum(a[i] * mp(W2[i][j]) for i in range(3)) + mp(b2[j]) for j in range(4)]
    out = [u + v for u, v in zip(f, ln)]

    def vec(v, fmt):
        return "[" + ", ".join(fmt(t) for t in v) + "]"

    def three(t):
        return f"{float(t):.3f}"

    def plain(t):
        return f"{float(t):g}"

    def tex(W):
        return r" \\ ".join(" & ".join(plain(t) for t in row) for row in W)

    path = tmp_path / "ffn.md"
    path.write_text("\n".join([
        "# The Add & Norm and the FFN of one token, by hand", "",
        f"The token's input is `x = {vec(x, plain)}` and the attention sublayer returned `z = {vec(z, plain)}`.", "",
        f"**Add.** The residual connection adds them: `r = x + z = {vec(r, three)}`.", "",
        "**Norm.** With ε = 1e-5 the normalised vector is", "", f"$$\\hat r = {vec(ln, three)}$$", "",
        "**FFN.** The first layer has", "",
        f"$$W_1 = \\begin{{bmatrix}} {tex(W1)} \\end{{bmatrix}}, \\quad b_1 = {vec(b1, plain)}$$", "",
        f"so that $h = \\hat r W_1 + b_1 = {vec(h, three)}$, and after the ReLU, $a = {vec(a, three)}$.", "",
        "The second layer,", "",
        f"$$W_2 = \\begin{{bmatrix}} {tex(W2)} \\end{{bmatrix}}, \\quad b_2 = {vec(b2, plain)}$$", "",
        f"gives $f = a W_2 + b_2 = {vec(f, three)}$.", "",
        f"**Add again.** $f + \\hat r = {vec(out, three)}$.", ""]), encoding="utf-8")
    assert three(out[2]) == "-0.233" and f"{float(f[2]):.3f}" == "0.342" and three(ln[2]) == "-0.574"
    claims, spec, _ = check(path, tmp_path)
    inputs = set(spec["inputs"])
    assert {"b_1", "b_2", "W_1", "W_2"} <= inputs and "f" not in inputs, inputs
    at = 1 + next(k for k, ln in enumerate(path.read_text(encoding="utf-8").splitlines()) if "Add again" in ln)
    last = [c for c in claims if c["line"] == at]
    assert len(last) == 4
    for c in last:
        assert close(c["exact"], out[int(c["at"][1])]) and c["verdict"] == "correct", c


def _causal_tex(caption: str) -> tuple:
    """A LaTeX note: Q, K, V of four tokens, the scaled scores printed alone under
    ``caption``, masked, the softmax with one slipped entry, the output. (truths, text)"""
    Q = [[1, 0, 1], [0, 2, 0], [1, 1, 0], [F(1, 2), 0, 1]]
    K = [[0, 1, 1], [1, 0, 0], [1, 1, 1], [0, F(1, 2), 2]]
    S = [[mp(F(sum(F(q) * k for q, k in zip(Q[i], K[j])))) / mpmath.sqrt(3) for j in range(4)] for i in range(4)]
    A = []
    for i in range(4):
        e = [mpmath.exp(S[i][j]) for j in range(i + 1)]
        A.append([x / mpmath.fsum(e) for x in e] + [mpmath.mpf(0)] * (3 - i))

    def pm(M, show):
        return r"\begin{pmatrix}" + r" \\ ".join(" & ".join(show(i, j, x) for j, x in enumerate(r))
                                                 for i, r in enumerate(M)) + r"\end{pmatrix}"
    given = lambda i, j, x: str(x)                                         # noqa: E731
    three = lambda i, j, x: f"{float(x):.3f}"                              # noqa: E731
    masked = lambda i, j, x: r"-\infty" if j > i else three(i, j, x)       # noqa: E731
    slipped = lambda i, j, x: f"{float(x) + 0.02:.3f}" if (i, j) == (3, 1) else three(i, j, x)  # noqa: E731
    text = "\n".join([r"\documentclass{article}", r"\begin{document}", "Four tokens, three dimensions.",
                      r"\[ Q = %s, \quad K = %s. \]" % (pm(Q, given), pm(K, given)),
                      caption, r"\[ S = %s. \]" % pm(S, three),
                      "Masking the future positions gives", r"\[ S_{\text{masked}} = %s. \]" % pm(S, masked),
                      "Applying the softmax row by row,", r"\[ A = %s. \]" % pm(A, slipped), r"\end{document}", ""])
    return S, A, text


def test_scaled_scores_printed_alone_where_the_text_states_the_root(tmp_path):
    S, A, text = _causal_tex(r"The scaled scores $S = QK^\top/\sqrt{3}$ are")
    path = tmp_path / "causal.tex"
    path.write_text(text, encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    assert {st["name"]: st["expr"] for st in spec["steps"]}["S"] == "Q @ K.T / sqrt(3)"
    scores = [c for c in claims if c["step"] == "S"]
    assert len(scores) == 16 and all(close(c["exact"], S[int(c["at"][0])][int(c["at"][1])])
                                     and c["verdict"] == "correct" for c in scores)
    weights = [c for c in claims if c["step"] == "A"]
    assert len(weights) == 16
    for c in weights:
        i, j = map(int, c["at"])
        assert close(c["exact"], A[i][j]) and c["verdict"] == ("wrong" if (i, j) == (3, 1) else "correct"), c


def test_scaled_scores_are_not_searched_for_a_root_the_text_does_not_state(tmp_path):
    """No root stated before them: √3 is no choice of the search (a width of the keys is no
    statement), the scores stay an input."""
    _, _, text = _causal_tex("The scores are")
    path = tmp_path / "causal.tex"
    path.write_text(text, encoding="utf-8")
    _, spec, _ = check(path, tmp_path)
    assert "S" in spec["inputs"], spec["steps"]


def test_two_heads_sliced_from_q_k_v_in_a_notebook_and_one_head_unscaled(tmp_path):
    """A notebook prints Q, K, V in one cell (named by its prints, in order), then each
    head's weights and output from column slices ``Q[:, 0:2]``, ``Q[:, 2:4]``: the head width
    the text states (d_k = 2.) makes the slices operands. The author's second head forgot
    the 1/√d_k its code states: diagnosed, not left an input."""
    import nbformat

    X = [[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]]
    W = {"W_Q": [[F(1, 2), 0, F(-3, 10), 1], [0, F(1, 5), F(2, 5), 0], [F(-1, 10), F(3, 10), 0, F(1, 2)], [F(1, 5), 0, F(1, 10), F(-2, 5)]],
         "W_K": [[F(3, 10), F(-1, 5), 0, F(1, 2)], [F(1, 10), 0, F(3, 5), F(-1, 10)], [0, F(2, 5), F(1, 5), 0], [F(-1, 2), F(1, 10), 0, F(3, 10)]],
         "W_V": [[1, 0, F(1, 2), 0], [0, 1, 0, F(-1, 2)], [F(1, 2), F(1, 2), 1, 0], [0, F(-1, 5), 0, 1]]}
    mat = {k: [[sum(F(X[i][t]) * w[t][j] for t in range(4)) for j in range(4)] for i in range(3)] for k, w in W.items()}
    Q, K, V = mat["W_Q"], mat["W_K"], mat["W_V"]

    def head(h, scaled):
        c = range(2 * h, 2 * h + 2)
        s = [[mp(sum(Q[i][t] * K[j][t] for t in c)) / (mpmath.sqrt(2) if scaled else 1) for j in range(3)] for i in range(3)]
        return [[mpmath.exp(x) / mpmath.fsum(mpmath.exp(y) for y in r) for x in r] for r in s]
    A1, A2_true, A2_printed = head(0, True), head(1, True), head(1, False)

    def shown(M):
        return "[" + "\n ".join("[" + " ".join(f"{float(x):.4f}" for x in r) + "]" for r in M) + "]\n"

    def cell(src, out):
        c = nbformat.v4.new_code_cell(src)
        c.outputs = [nbformat.v4.new_output("stream", name="stdout", text=out)]
        return c
    cells = [nbformat.v4.new_markdown_cell("# Two heads in NumPy\nThree tokens, d_model = 4, two heads of d_k = 2.")]
    cells.append(cell(f"X = np.array({X})\nprint(X)", shown(X)))
    cells += [cell(f"{k} = np.array({[[float(x) for x in r] for r in w]})\nprint({k})", shown(w)) for k, w in W.items()]
    cells.append(cell("Q = X @ W_Q\nK = X @ W_K\nV = X @ W_V\nprint(Q)\nprint(K)\nprint(V)", shown(Q) + shown(K) + shown(V)))
    for h, A in ((0, A1), (1, A2_printed)):
        cells.append(cell(f"q, k = Q[:, {2 * h}:{2 * h + 2}], K[:, {2 * h}:{2 * h + 2}]\n"
                          "weights = softmax(q @ k.T / np.sqrt(2))\nprint(weights)", shown(A)))
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    path = tmp_path / "heads.ipynb"
    nbformat.write(nb, str(path))
    claims, spec, _ = check(path, tmp_path)
    steps = {st["name"]: st["expr"] for st in spec["steps"]}
    assert steps["Q"] == "X @ W_Q" and steps["K"] == "X @ W_K" and steps["V"] == "X @ W_V", steps
    assert "weights(Q[:, 0:2], K[:, 0:2])" in steps.values() and "weights(Q[:, 2:4], K[:, 2:4])" in steps.values()
    first = [c for c in claims if c["line"] in (7501, 7502, 7503)]
    second = [c for c in claims if c["line"] in (8501, 8502, 8503)]
    assert len(first) == len(second) == 9
    for c in first:
        assert close(c["exact"], A1[int(c["at"][0])][int(c["at"][1])]) and c["verdict"] == "correct", c
    for c in second:
        assert close(c["exact"], A2_true[int(c["at"][0])][int(c["at"][1])]) and c["verdict"] == "wrong", c
        assert any("1/√d_k missing" in x for x in c["diagnosis"]), c


def test_rope_at_the_position_the_text_states_and_a_product_names_no_vector(tmp_path):
    """RMSNorm, then RoPE of the normalised vector as a query at position m = 2 (pairs,
    base 10000): ``rope(x, start=2)``, its numbers exact (mpmath's rotation); the vector
    printed after ``$\\hat x W_1 =`` is a product, not a block named W_1."""
    x = [F(4, 5), F(-2, 5), F(6, 5), F(3, 5)]
    rms = mpmath.sqrt(mp(sum(v * v for v in x) / 4) + mpmath.mpf("1e-6"))
    xn = [mp(v) / rms for v in x]
    rot = []
    for k in range(2):
        t = 2 * mpmath.power(10000, mpmath.mpf(-2 * k) / 4)
        a, b = xn[2 * k], xn[2 * k + 1]
        rot += [a * mpmath.cos(t) - b * mpmath.sin(t), a * mpmath.sin(t) + b * mpmath.cos(t)]
    W1 = [[F(1, 2), F(-1, 10)], [F(1, 5), F(2, 5)], [F(-1, 10), F(3, 5)], [F(3, 10), F(1, 10)]]
    gate = [mpmath.fsum(xn[i] * mp(W1[i][j]) for i in range(4)) for j in range(2)]

    def vec(v):
        return "[" + ", ".join(f"{float(t):.4f}" for t in v) + "]"
    tex = r" \\ ".join(" & ".join(f"{float(t):g}" for t in r) for r in W1)
    path = tmp_path / "rope.md"
    path.write_text("\n".join([
        "# RMSNorm and RoPE on one token", "", "Take the token vector $x = [0.8, -0.4, 1.2, 0.6]$.", "",
        r"RMSNorm with $\epsilon = 10^{-6}$ and a gain of ones gives $\hat x = " + vec(xn) + "$.", "",
        r"We rotate $\hat x$ as a query at position $m = 2$, adjacent pairs, base 10000:", "",
        r"$$R_m \hat x = " + vec(rot) + "$$", "",
        r"With $$W_1 = \begin{bmatrix} " + tex + r" \end{bmatrix}$$", "",
        r"the gate is $\hat x W_1 = " + vec(gate) + "$.", ""]), encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    steps = {st["line"]: st for st in spec["steps"]}
    assert steps[9]["expr"].startswith("rope(") and "start=2" in steps[9]["expr"], spec["steps"]
    assert steps[13]["expr"].endswith(" @ W_1") and steps[13]["name"] != "W_1_2", spec["steps"]
    rotated = [c for c in claims if c["line"] == 9]
    assert len(rotated) == 4
    for c in rotated:
        assert close(c["exact"], rot[int(c["at"][1])]) and c["verdict"] == "correct", c


# -- a three-class softmax at a stated temperature with one entry slipped -----------------

def test_a_three_entry_softmax_at_a_stated_temperature_with_one_slip(tmp_path):
    z = [F("2.0"), F("1.0"), F("0.1")]
    e = [mpmath.exp(mp(x) / mpmath.mpf("0.5")) for x in z]
    p = [x / mpmath.fsum(e) for x in e]
    shown = [f"{float(x):.4f}" for x in p]
    shown[1] = f"{float(p[1]) - 0.0027:.4f}"                       # one entry slipped
    path = tmp_path / "temperature.md"
    path.write_text("\n".join([
        "# Softmax with a temperature", "", "The logits are $z = [2.0, 1.0, 0.1]$.", "",
        "Dividing them by $T = 0.5$ sharpens the distribution:", "",
        "$$p_T = [" + ", ".join(shown) + "]$$", ""]), encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    assert [s["expr"] for s in spec["steps"]] == ["softmax(z, T=0.5)"], spec["steps"]
    got = sorted((c for c in claims if c["line"] == 7), key=lambda c: c["at"])
    assert [c["verdict"] for c in got] == ["correct", "wrong", "correct"], got
    assert all(close(c["exact"], x) for c, x in zip(got, p))


def test_three_whole_numbers_one_off_are_not_a_derivation(tmp_path):
    path = tmp_path / "whole.md"                # [1, 2] @ [[1, 0, 2], [0, 1, 1]] = [1, 2, 4]: printed 5
    path.write_text("\n".join([
        "# A product", "", "$x = [1, 2]$", "", "$$W = " + bmatrix([["1", "0", "2"], ["0", "1", "1"]]) + "$$", "",
        "$$y = [1, 2, 5]$$", ""]), encoding="utf-8")
    r = cli("check", "--json", str(path))                   # no derivation: a refusal, no verdict
    assert r.returncode == 2 and "no worked example found" in r.stderr and not r.stdout, (r.stdout, r.stderr)


# -- lecture notes in plain text: LayerNorm and RMSNorm, each with the ε stated above it ---

def _norms(rows, eps_ln: str, eps_rms: str):
    ln, rms = [], []
    for v in rows:
        v = [mp(x) for x in v]
        m = mpmath.fsum(v) / len(v)
        var = mpmath.fsum((a - m) ** 2 for a in v) / len(v)
        ln.append([(a - m) / mpmath.sqrt(var + mpmath.mpf(eps_ln)) for a in v])
        s = mpmath.sqrt(mpmath.fsum(a * a for a in v) / len(v) + mpmath.mpf(eps_rms))
        rms.append([a / s for a in v])
    return ln, rms


def test_each_norm_takes_the_epsilon_stated_just_above_it(tmp_path):
    X = [[F("1.0"), F("2.0"), F("3.0"), F("4.0")], [F("0.5"), F("-0.5"), F("1.5"), F("2.5")]]
    S = [[F("0.1"), F("-0.2"), F("0.3"), F(0)], [F("0.2"), F("0.2"), F("-0.1"), F("0.4")]]
    R = [[a + b for a, b in zip(u, v)] for u, v in zip(X, S)]
    ln, rms = _norms(R, "0.00001", "0.000001")
    shown = [[float(a) for a in r] for r in ln]
    shown[1][2] += 0.01                                             # one slipped entry

    def rows(m):
        return ["    " + "  ".join(f"{float(a):7.4f}" for a in r) for r in m]
    path = tmp_path / "notes.txt"
    text = ["Lecture 7 notes: Add & Norm, worked example", "", "Input X (2 tokens, d_model = 4):", "",
            *rows(X), "", "Sublayer output S:", "", *rows(S), "", "Residual R = X + S:", "", *rows(R), "",
            "LayerNorm over each row (eps = 1e-5, gamma = 1, beta = 0):", "", *rows(shown), "",
            "For comparison, RMSNorm of R (eps = 1e-6, no mean subtraction):", "", *rows(rms), ""]
    path.write_text("\n".join(text), encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    exprs = [s["expr"] for s in spec["steps"]]
    assert "layer_norm(R, eps=0.00001)" in exprs and "rms_norm(R, eps=0.000001)" in exprs, exprs
    first_ln, first_rms = text.index(rows(shown)[0]) + 1, text.index(rows(rms)[0]) + 1
    for c in claims:
        i, j = map(int, c["at"])
        if c["line"] in (first_ln, first_ln + 1):
            assert close(c["exact"], ln[i][j]), c
            assert c["verdict"] == ("wrong" if (i, j) == (1, 2) else "correct"), c
        elif c["line"] in (first_rms, first_rms + 1):
            assert close(c["exact"], rms[i][j]) and c["verdict"] == "correct", c
    assert sum(c["line"] in (first_ln, first_ln + 1, first_rms, first_rms + 1) for c in claims) == 16


# -- a LaTeX note: Q, K, V in one display, weights rounded to 2 decimals, Z carried from them --

def test_three_projections_in_one_display_and_an_output_carried_from_rounded_weights(tmp_path):
    X = [[1, 0, 1], [0, 2, 0], [1, 1, 0]]
    WQ = [[F(1, 2), 0, 1], [0, 1, 0], [1, 0, F(1, 2)]]
    WK = [[1, 0, 0], [0, F(1, 2), 1], [0, 1, 0]]
    WV = [[1, 1, 0], [0, 1, 1], [1, 0, 1]]

    def mm(a, b):
        return [[sum(F(x) * y for x, y in zip(r, c)) for c in zip(*b)] for r in a]
    Q, K, V = mm(X, WQ), mm(X, WK), mm(X, WV)
    A = []
    for q in Q:
        e = [mpmath.exp(mp(sum(a * b for a, b in zip(q, k))) / mpmath.sqrt(3)) for k in K]
        A.append([x / mpmath.fsum(e) for x in e])
    A2 = [[F(f"{float(a):.2f}") for a in r] for r in A]         # the weights as printed
    Z2 = mm(A2, V)                                               # the output from them

    def pm(m, k):
        return r"\begin{pmatrix} " + r" \\ ".join(" & ".join(f"{float(x):.{k}f}" for x in r) for r in m) + r" \end{pmatrix}"
    path = tmp_path / "attn.tex"
    path.write_text("\n".join([
        r"\section{Self-attention by hand}", r"Three tokens with $d_k = 3$:", rf"\[ X = {pm(X, 0)} \]",
        rf"\[ W_Q = {pm(WQ, 1)},\quad W_K = {pm(WK, 1)},\quad W_V = {pm(WV, 0)} \]",
        rf"\[ Q = XW_Q = {pm(Q, 1)}, \quad K = XW_K = {pm(K, 1)}, \quad V = XW_V = {pm(V, 0)} \]",
        r"The weights $\mathrm{softmax}(QK^\top/\sqrt{3})$, rounded to two decimals:", rf"\[ A = {pm(A, 2)} \]",
        rf"and the output \[ Z = AV = {pm(Z2, 3)} \]", ""]), encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    assert not [c for c in claims if c["verdict"] == "wrong"], [c for c in claims if c["verdict"] == "wrong"]
    for name, m in (("Q", Q), ("K", K), ("V", V)):
        got = [c for c in claims if c["step"] == name]
        assert len(got) == 9 and all(close(c["exact"], mp(F(m[int(c["at"][0])][int(c["at"][1])]))) for c in got), got
    z = [c for c in claims if c["step"] == "Z"]
    assert len(z) == 9
    for c in z:
        i, j = map(int, c["at"])
        exact = mpmath.fsum(A[i][k] * V[k][j] for k in range(3))
        assert close(c["exact"], exact)
        if abs(float(Z2[i][j]) - float(exact)) > 0.0005:         # the rounding shows at 3 decimals
            assert c["verdict"] == "carried" and all(s.startswith("A ") for s in c["carried_from"]), c


# -- weights the text says are causally masked, printed unmasked (a 0 where −∞ belongs) ---

TOKENS = ("I", "like", "tea")


def _unmasked_weights_post(sentence: str) -> tuple[str, list]:
    Qm, Km = [[1, 0], [0, 1], [1, 1]], [[1, 1], [0, 1], [1, 0]]
    S = [[mpmath.mpf(sum(a * b for a, b in zip(q, k))) / mpmath.sqrt(2) for k in Km] for q in Qm]
    W = []
    for r in S:
        e = [mpmath.exp(x) for x in r]
        W.append([x / mpmath.fsum(e) for x in e])

    def table(m):
        return ["| | I | like | tea |", "|---|---|---|---|"] + [
            f"| {t} | " + " | ".join(f"{float(x):.4f}" for x in r) + " |" for t, r in zip(TOKENS, m)]
    text = "\n".join(["# Attention, step by step", "", "Queries and keys (d_k = 2):", "",
                      "| token | Q | K |", "|---|---|---|", "| I | [1, 0] | [1, 1] |", "| like | [0, 1] | [0, 1] |",
                      "| tea | [1, 1] | [1, 0] |", "", r"Scaled scores $S = QK^T / \sqrt{2}$:", "", *table(S), "",
                      sentence, "", *table(W), ""])
    return text, W


def test_weights_said_masked_but_printed_unmasked_are_the_zero_mask_mistake(tmp_path):
    text, W = _unmasked_weights_post("We mask the future with the causal mask and take the softmax of each row:")
    path = tmp_path / "causal.md"
    path.write_text(text, encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    assert spec["steps"][-1]["expr"].endswith("+ causal_mask(3))"), spec["steps"]
    last = [c for c in claims if c["line"] >= 23]
    assert len(last) == 9
    for c in last:
        i, j = (TOKENS.index(x) for x in c["at"])
        masked = j > i                                          # above the diagonal: −∞ there
        assert c["verdict"] == ("correct" if i == 2 else "wrong"), c
        if masked:
            assert mpmath.mpf(c["exact"]) == 0 and "0 instead of −∞ in the mask" in c["diagnosis"], c


def test_weights_the_text_says_are_not_masked_stay_a_plain_softmax(tmp_path):
    text, W = _unmasked_weights_post("The encoder uses no mask: every token sees every other. The softmax of each row:")
    path = tmp_path / "encoder.md"
    path.write_text(text, encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    assert "mask" not in spec["steps"][-1]["expr"], spec["steps"]
    last = [c for c in claims if c["line"] >= 23]
    assert len(last) == 9 and all(c["verdict"] == "correct" for c in last)
    assert all(close(c["exact"], W[TOKENS.index(c["at"][0])][TOKENS.index(c["at"][1])]) for c in last)


# -- embeddings given one per token (x_1, x_2), and a key matrix made with W_K transposed -----

def _projections_post(keys_caption: str) -> tuple[str, list, list, list]:
    X = [[1, 0, 2], [0, 1, 1]]
    WQ = [[F(1, 2), 1, 0], [0, 1, 1], [1, 0, F(1, 2)]]
    WK = [[1, 0, F(1, 2)], [F(1, 2), 1, 0], [0, 1, 1]]

    def mm(a, b):
        return [[sum(F(x) * y for x, y in zip(r, c)) for c in zip(*b)] for r in a]
    Q, K = mm(X, WQ), mm(X, [list(c) for c in zip(*WK)])        # the keys from W_K transposed

    def bm(m):
        return r"\begin{bmatrix} " + r" \\ ".join(" & ".join(str(float(v)) for v in r) for r in m) + r" \end{bmatrix}"
    text = "\n".join(["# Queries and keys", "",
                      f"Two tokens, embeddings $x_1 = [1.0, 0.0, 2.0]$ and $x_2 = [0.0, 1.0, 1.0]$.", "",
                      f"$$W_Q = {bm(WQ)}, \\quad W_K = {bm(WK)}$$", "", "Queries $Q = XW_Q$:", "",
                      f"$$Q = {bm(Q)}$$", "", keys_caption, "", f"$$K = {bm(K)}$$", ""])
    return text, Q, K, mm(X, WK)


def test_vectors_given_one_per_token_stack_into_the_operand_and_a_transposed_weight_is_diagnosed(tmp_path):
    text, Q, K, right = _projections_post("Keys $K = XW_K$:")
    path = tmp_path / "proj.md"
    path.write_text(text, encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    assert [s["expr"] for s in spec["steps"]] == ["x @ W_Q", "x @ W_K"], spec["steps"]
    assert spec["inputs"]["x"]["value"] == [[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]]
    for c in claims:
        i, j = map(int, c["at"])
        if c["step"] == "Q":
            assert c["verdict"] == "correct" and close(c["exact"], mp(Q[i][j])), c
        else:
            assert close(c["exact"], mp(right[i][j])), c
            wrong = K[i][j] != right[i][j]
            assert c["verdict"] == ("wrong" if wrong else "correct"), c
            assert not wrong or "W_K transposed" in c["diagnosis"], c
    assert sum(c["step"] == "K" for c in claims) == 6


def test_a_weight_the_text_transposes_is_no_mistake(tmp_path):
    text, _, K, _ = _projections_post("Keys $K = XW_K^T$:")
    path = tmp_path / "proj.md"
    path.write_text(text, encoding="utf-8")
    claims, spec, _ = check(path, tmp_path)
    assert spec["steps"][-1]["expr"] == "x @ W_K.T", spec["steps"]
    assert all(c["verdict"] == "correct" for c in claims)
    assert all(close(c["exact"], mp(K[int(c["at"][0])][int(c["at"][1])])) for c in claims if c["step"] == "K")


# -- one query's scaled scores after "divide by √2", from Q and K printed again -------

def _one_query_post(path, extra_keys=None):
    """Chapter 1 prints the identity; sixteen unrelated tables follow; chapter 2 takes
    Q = K = I again (printed, so a repeat of chapter 1's numbers), divides the query's dot
    products by √2, and prints the softmax and the output. ``extra_keys``: a second key
    matrix printed beside K that reproduces the printed scores too, with another value."""
    V = [[2, 0], [0, 2]]
    s = [mpmath.mpf(0), 1 / mpmath.sqrt(2)]
    w = [mpmath.exp(x) / mpmath.fsum(mpmath.exp(y) for y in s) for x in s]
    z = [mpmath.fsum(w[k] * V[k][j] for k in range(2)) for j in range(2)]
    tables = [bmatrix([[str(7 * t + 3 * j + i + 11) for j in range(3)] for i in range(3)]) for t in range(16)]
    lines = ["# Chapter 1", "", "The identity: $$" + bmatrix([["1", "0"], ["0", "1"]]) + "$$", "",
             "Some tables that have nothing to do with it:", ""]
    lines += [f"Table {t}: $${m}$$" for t, m in enumerate(tables)]
    lines += ["", "# Chapter 2", "", "A new example: the queries, keys and values are", "",
              "$$Q = " + bmatrix([["1", "0"], ["0", "1"]]) + "$$", "",
              "$$K = " + bmatrix([["1", "0"], ["0", "1"]]) + "$$", "",
              "$$V = " + bmatrix([["2", "0"], ["0", "2"]]) + "$$", ""]
    if extra_keys:
        lines += ["$$K' = " + bmatrix(extra_keys) + "$$", ""]
    lines += ["The second token's query against both keys: 0×1 + 1×0 = 0 and 0×0 + 1×1 = 1.", "",
              r"Divide by √2: $\begin{bmatrix} 0 & 0.7071 \end{bmatrix}$", "",
              rf"The softmax: $\begin{{bmatrix}} {float(w[0]):.4f} & {float(w[1]):.4f} \end{{bmatrix}}$", "",
              rf"The output: $\begin{{bmatrix}} {float(z[0]):.4f} & {float(z[1]):.4f} \end{{bmatrix}}$", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return s, w, z


def test_one_querys_scores_divided_by_the_root_the_line_states_are_exact(tmp_path):
    """[0, 0.7071] has one telling number, but the line states the form and its root, and
    every query row and keys that reproduce it give [0, 1/√2]: the choice changes no number.
    The weights and output are then checked from 1/√2, not from the rounded 0.7071 (their
    exact values differ by about 1e-6). Q and K print chapter 1's identity again, sixteen
    tables later: as operands they are as near as where they are printed."""
    path = tmp_path / "one_query.md"
    s, w, z = _one_query_post(path)
    claims, spec, out = check(path, tmp_path)
    scores = [c for c in claims if c["printed"] == "0.7071"]
    assert len(scores) == 1 and close(scores[0]["exact"], s[1]) and scores[0]["verdict"] == "correct"
    for printed, truth in [(f"{float(w[0]):.4f}", w[0]), (f"{float(w[1]):.4f}", w[1]),
                           (f"{float(z[0]):.4f}", z[0]), (f"{float(z[1]):.4f}", z[1])]:
        c = [c for c in claims if c["printed"] == printed]
        assert len(c) == 1 and close(c[0]["exact"], truth) and c[0]["verdict"] == "correct", (printed, c)
    assert any("/ sqrt(2)" in st["expr"] for st in spec["steps"]), spec["steps"]
    again = json.loads(cli("check", "--json", str(out)).stdout)["claims"]
    assert sorted((c["printed"], c["exact"], c["verdict"]) for c in again) == \
        sorted((c["printed"], c["exact"], c["verdict"]) for c in claims)


def test_one_querys_scores_stay_an_input_when_two_derivations_disagree(tmp_path):
    """Beside K, a K' whose second key is 1.00005 reproduces the printed 0.7071 too, as
    1.00005/√2: which keys were meant changes the numbers, so one telling number cannot
    decide it. The scores stay an input, never called wrong."""
    path = tmp_path / "one_query.md"
    _one_query_post(path, extra_keys=[["1", "0"], ["0", "1.00005"]])
    claims, spec, _ = check(path, tmp_path)
    assert not any("/ sqrt(2)" in st["expr"] for st in spec["steps"]), spec["steps"]
    assert not [c for c in claims if c["printed"] == "0.7071"]
    assert not any(c["verdict"] == "wrong" for c in claims)


# -- a block of a few whole numbers is no evidence for a derivation that misses one ---------

def test_a_whole_number_block_is_not_called_wrong_by_a_sum_that_misses_one_entry(tmp_path):
    X = [[F(1), F(0)], [F(0), F(2)], [F(1), F(1)]]
    WK = [[F(1), F(1)], [F(0), F(1)]]                  # not printed: K is the text's own
    K = [[sum(x[k] * WK[k][j] for k in range(2)) for j in range(2)] for x in X]
    tokens = ["please", "study", "man"]
    rows = lambda m: "\n".join(f"{t} → [{int(r[0])}, {int(r[1])}]" for t, r in zip(tokens, m))
    post = tmp_path / "keys.txt"
    post.write_text(f"Embeddings:\n{rows(X)}\nWq = [[1, 0],\n      [0, 1]]\n"
                    f"Query vectors (embedding × Wq):\n{rows(X)}\nKey vectors (embedding × Wk):\n{rows(K)}\n",
                    encoding="utf-8")
    near = [[X[i][j] + [F(0), F(1)][j] for j in range(2)] for i in range(3)]   # X + Wq[1]
    assert sum(near[i][j] != K[i][j] for i in range(3) for j in range(2)) == 1
    r = cli("check", "--json", str(post))
    assert r.returncode in (0, 2), r.stdout + r.stderr
    if r.returncode == 0:
        assert not [c for c in json.loads(r.stdout)["claims"] if c["verdict"] != "correct"]
