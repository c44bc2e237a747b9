"""`symattn latex` from Python: the chains of each step, with the numbers the articles print."""

from __future__ import annotations

from pathlib import Path

import pytest

import symattn as sa
from symattn.errors import LimitError, SpecError
from symattn.render.latex import document, latex, LatexConfig
from symattn.spec.load import load

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"


def formulas(name, **opts) -> str:
    return "\n".join(document(EX / f"{name}.toml", **opts).formulas())


# -- the projection of the article: formula, numbers, sum of products, result ----------

def test_matmul_row_as_the_article_prints_it():
    f = formulas("000-self-attention", steps=["Q"])
    chain = (r"Q_{\text{love}} &= X_{\text{love}} W_{Q} \\" "\n"
             r"&= \left[0.8,\ 1.2\right] \begin{bmatrix} 1.0 & 0.2 \\ 0.1 & 0.9 \end{bmatrix} \\" "\n"
             r"&= \left[0.8 \cdot 1.0 + 1.2 \cdot 0.1,\ 0.8 \cdot 0.2 + 1.2 \cdot 0.9\right] \\" "\n"
             r"&= \left[0.92,\ 1.24\right]")
    assert chain in f
    assert r"Q &= X W_{Q}" in f
    assert r"\begin{bmatrix} 1.05 & 0.65 \\ 0.92 & 1.24 \\ 1.57 & 0.93 \\ 0.78 & 1.74 \end{bmatrix}" in f


def test_negative_factors_are_parenthesised():
    f = formulas("000-self-attention", steps=["K"])
    assert r"0.8 \cdot 0.6 + 1.2 \cdot \left(-0.3\right)" in f
    assert r"\left[-0.18,\ 1.86\right]" in f


def test_scaling_and_claimed_precision():
    f = formulas("000-self-attention", steps=["S", "S_scaled"])
    assert r"\frac{1.1580}{\sqrt{2}}" in f
    assert r"&\approx \left[0.8188,\ 1.2004,\ 1.1942,\ 1.5138\right]" in f


def test_weighted_sum_of_value_rows():
    f = formulas("000-self-attention", steps=["z"])
    assert r"&= 0.1688 \cdot \left[1.10,\ 0.40,\ 0.65\right] \\" in f
    assert r"&\quad + 0.3382 \cdot \left[0.36,\ 1.44,\ 0.84\right] \\" in f
    assert r"&\approx \left[0.8933,\ 0.9295,\ 0.8176\right]" in f


def test_article_grain_softmax_exponentials_sum_quotients():
    f = formulas("000-self-attention", steps=["E", "total", "A"])
    assert r"\left[e^{0.8188},\ e^{1.2004},\ e^{1.1942},\ e^{1.5138}\right]" in f
    assert r"&= 2.2678 + 3.3214 + 3.3008 + 4.5438 \\" in f
    assert r"\frac{2.2678}{13.4339}" in f
    assert r"&\approx \left[0.1688,\ 0.2472,\ 0.2457,\ 0.3382\right]" in f


def test_softmax_inside_attention_call():
    f = formulas("000-multi-head", steps=["z1"])
    assert r"\operatorname{softmax}\left(\frac{Q_{1,\text{love}} K_{1}^{\top}}{\sqrt{d_k}}\right) V_{1}" in f
    assert r"d_k &= 2" in f
    assert r"\exp\left(s_{\text{love}}\right) &= \left[e^{0.819},\ e^{1.200},\ e^{1.194},\ e^{1.514}\right]" in f
    assert r"\sum_{j} e^{s_{\text{love},j}} &= 2.268 + 3.321 + 3.301 + 4.544" in f
    assert r"A_{\text{love}} &= \left[\frac{2.268}{13.434}," in f
    assert r"&\approx \left[0.893,\ 0.930,\ 0.818\right]" in f


# -- masks: −∞ and weight 0 -------------------------------------------------------------

def test_masked_entries_are_minus_infinity_with_weight_zero():
    f = formulas("002-causal-mask", steps=["M", "Sm", "Em", "Am"], rows="all")
    assert r"\begin{bmatrix} 0 & -\infty & -\infty \\ 0 & 0 & -\infty \\ 0 & 0 & 0 \end{bmatrix}" in f
    assert r"&= \left[1 + 0,\ 0 + \left(-\infty\right),\ 1 + \left(-\infty\right)\right] \\" in f
    assert r"&= \left[1,\ -\infty,\ -\infty\right]" in f
    assert r"&= \left[e^{0},\ e^{1},\ e^{-\infty}\right] \\" in f
    assert r"&\approx \left[1,\ 2.718,\ 0\right]" in f          # the article's [1, 2.718, 0]
    assert r"\frac{0}{3.718}" in f
    assert r"&\approx \left[0.269,\ 0.731,\ 0\right]" in f
    assert r"&= \left[1,\ 0,\ 0\right]" in f                   # e/e is exactly 1


def test_masked_attention_in_the_decoder():
    f = formulas("003-ch6-decoder-attention", steps=["masked", "E", "A"])
    assert r"1.0607 + \left(-\infty\right)" in f
    assert r"e^{-\infty}" in f
    assert r"\text{開始} & 1 & 0 & 0" in f                      # the weight table


# -- LayerNorm, FFN/ReLU, concatenation, logits table --------------------------------

def test_layer_norm_mean_deviations_variance_root():
    f = formulas("003-ch7-multihead-layer", steps=["H"], rows="all")
    assert r"\mu_{\text{眠る}} &= \frac{1.3302 + 3.3302 + 0.6698 + 1.9907}{4} \\" in f
    assert r"&\approx 1.8302" in f
    assert r"1.3302 - 1.8302" in f
    assert r"{\left(-0.5000\right)}^{2} + {1.5000}^{2}" in f
    assert r"\sqrt{\sigma^{2}_{\text{眠る}} + \varepsilon} &= \sqrt{0.9681 + 0.00001} \\" in f
    assert r"&\approx 0.9839" in f
    assert r"&\approx \left[-0.5082,\ 1.5245,\ -1.1794,\ 0.1631\right]" in f
    assert r"\gamma \odot \frac{\mathrm{add}_{1} - \mu}{\sqrt{\sigma^{2} + \varepsilon}} + \beta" in f


def test_relu_step():
    f = formulas("003-ch7-multihead-layer", steps=["R"], rows="all")
    assert r"\max\left(0,\ -0.3451\right),\ \max\left(0,\ 0.6713\right)" in f
    assert r"&\approx \left[0,\ 0.6713,\ 1.6876,\ 0,\ 0,\ 0\right]" in f


def test_linear_with_bias_written_out():
    f = formulas("003-ch7-multihead-layer", steps=["F_pre"], rows="first")
    assert r"\left(-1.5136\right) \cdot 0 + \left(-0.2893\right) \cdot 1 + 0" in f


def test_concat_shows_which_columns_came_from_which_head():
    f = formulas("003-ch4-concat-wo", steps=["c"])
    assert r"\underbrace{\begin{matrix} 1 & 2 \end{matrix}}_{z_{1}}" in f
    assert r"\underbrace{\begin{matrix} 3 & 4 \end{matrix}}_{z_{2}}" in f
    assert r"z_{1}\colon\ \text{columns }1\text{ to }2" in f
    assert r"&= \left[1,\ 2,\ 3,\ 4\right]" in f


def test_logits_and_probability_table_with_token_labels():
    f = formulas("003-ch8-vocab-softmax", steps=["logit", "P"])
    head = r"& \text{猫} & \text{は} & \text{眠る} & \text{。} & \text{終了} \\ \hline"
    assert head in f
    assert r"\text{は} & -1 & 1 & 2 & 1 & -2" in f
    assert r"\text{は} & 0.0276 & 0.2039 & 0.5544 & 0.2039 & 0.0102" in f


def test_scalar_steps():
    f = formulas("002-counts")
    assert r"\mathrm{rows}_{\mathrm{3chars}} &= {n_{\mathrm{chars}}}^{3}" in f
    assert r"&= {71}^{3}" in f and "357911" in f
    assert r"3 \cdot d \cdot d" in f and r"3 \cdot 2 \cdot 2" in f
    assert formulas("003-ch8-vocab-softmax", steps=["loss"]).endswith(
        "&= -\\log\\left(0.5544\\right) \\\\\n&\\approx 0.5899\n\\end{aligned}")


# -- precision and rounding -------------------------------------------------------------

def test_unclaimed_step_uses_digits_claimed_step_keeps_its_precision():
    f = formulas("000-self-attention", steps=["E", "A"], digits=6)
    assert r"2.267844,\ 3.321394" in f                 # E: no claim, --digits 6
    assert r"\left[0.1688,\ 0.2472,\ 0.2457,\ 0.3382\right]" in f   # A: printed at 4


SPEC = """
[example]
id = "t"
rounding = "{mode}"
[inputs]
x = [[0.285, 2]]
[[steps]]
name = "y"
expr = "x / 3 * 3"
[[steps]]
name = "z"
expr = "x * 1"
[[claims]]
step = "z"
printed = "[0.29, 2.00]"
line = 1
"""


@pytest.mark.parametrize("mode, expected", [("half-up", "0.29"), ("half-even", "0.28"),
                                            ("truncate", "0.28")])
def test_printed_rounding_mode_is_certified_not_float_formatting(tmp_path, mode, expected):
    # 0.285 as a binary float is 0.28499999…; half-up of the exact decimal is 0.29
    spec = load(str(tmp_path / "t.toml"), text=SPEC.replace("{mode}", mode))
    f = "\n".join(document(spec, steps=["z"]).formulas())
    assert rf"&\approx \left[{expected},\ 2\right]" in f        # 2 is exact: printed as 2


def test_exact_values_are_printed_exactly_when_they_end():
    f = "\n".join(document(load("x.toml", text=SPEC.replace("{mode}", "half-up")),
                           steps=["y"]).formulas())
    assert r"&= \frac{\left[0.285,\ 2.000\right]}{3} \cdot 3 \\" in f   # the input, exactly
    assert f.endswith("&= \\left[0.285,\\ 2.000\\right]\n\\end{aligned}")   # x/3*3 is exact


# -- corrections --------------------------------------------------------------------------

def test_corrections_strike_the_printed_number_and_show_the_right_one():
    doc = document(EX / "000-self-attention.toml", corrections=True, steps=["A"])
    f = "\n".join(doc.formulas())
    assert r"\textcolor{red}{\cancel{0.3383}}\ \mathbf{0.3382}" in f
    assert [(r.line, r.printed, r.expected) for r in doc.wrong][0] == (174, "0.3383", "0.3382")
    md = doc.markdown()
    assert "line 174: A\\[love, learning\\] printed 0.3383, correct 0.3382" in md
    assert r"\cancel" not in "\n".join(document(EX / "000-self-attention.toml", steps=["A"]).formulas())


# -- exact closed forms -----------------------------------------------------------------

def test_exact_closed_forms():
    f = formulas("003-ch4-single-head", steps=["A"], exact=True)
    assert r"\frac{e^{\frac{\sqrt{2}}{2}}}{1 + e^{\frac{\sqrt{2}}{2}}}" in f
    assert r"&\approx \begin{bmatrix} 0.33 & 0.67 \\ 0.59 & 0.41 \end{bmatrix}" in f


def test_exact_falls_back_to_decimals_for_a_large_closed_form_with_a_note():
    doc = document(EX / "003-ch7-multihead-layer.toml", exact=True)
    blocks = {b.name: b for b in doc.blocks}
    assert blocks["F_pre"].remarks and "closed form" in blocks["F_pre"].remarks[0]
    f = "\n".join(blocks["F_pre"].displays)
    assert r"&\approx \left[-0.3451,\ 0.6713,\ 1.6876,\ -1.3614,\ -0.6876,\ -0.6549\right]" in f
    assert "Note: Shown in certified decimals: its closed form would be too large" in doc.markdown()
    small = {b.name: b for b in document(EX / "003-ch4-single-head.toml", exact=True).blocks}
    assert not any(b.remarks for b in small.values())       # small closed forms stay exact


# -- labels, API, Jupyter -----------------------------------------------------------------

def test_token_labels_as_text():
    f = formulas("000-cross-attention", steps=["Q"])
    assert r"Q_{\text{私は}} &= x_{\text{私は}} W_{Q} \\" in f     # as the article: Q_私は = x_私は W_Q
    assert r"&= \left[0.8,\ 1.5\right] \begin{bmatrix} 0.9 & 0.2 \\ 0.3 & 0.8 \end{bmatrix}" in f


def test_api_text_formats_and_unknown_step():
    md = latex(EX / "003-ch4-concat-wo.toml")
    assert md.startswith("# ") and "\n$$\n\\begin{aligned}\n" in md
    tex = latex(EX / "003-ch4-concat-wo.toml", format="tex")
    assert tex.startswith(r"\documentclass") and r"\usepackage{luatexja}" in tex
    assert tex.rstrip().endswith(r"\end{document}")
    with pytest.raises(SpecError) as e:
        latex(EX / "003-ch4-concat-wo.toml", steps=["nope"])
    assert "no step named 'nope'" in str(e.value) and "n_concat" in str(e.value)
    with pytest.raises(sa.InputError):
        LatexConfig(format="html")


def test_repr_latex_of_tensors():
    t = sa.matrix([["0.8", "1.2"]]) @ sa.matrix([["1.0", "0.2"], ["0.1", "0.9"]])
    assert t._repr_latex_() == r"$$\left[0.92,\ 1.24\right]$$"
    w = sa.softmax(sa.matrix([["0", "1"]], rows=["猫"], cols=["a", "b"]))
    # the digits the HTML table shows (6 significant): 1/(1+e) = 0.2689414..., e/(1+e) = 0.7310585...
    assert w._repr_latex_() == (r"$$\begin{array}{l|rr} & \text{a} & \text{b} \\ \hline "
                                r"\text{猫} & 0.268941 & 0.731059 \end{array}$$")
    m = sa.causal_mask(2)
    assert r"-\infty" in m._repr_latex_()


def test_steps_latex_for_engine_steps():
    from symattn.render.latex import steps_latex
    X = sa.matrix([["1", "0"], ["0", "1"]])
    st = sa.attention_steps(X, X, X, mask=sa.causal_mask(2))
    text = steps_latex(st)
    assert text.startswith("$$\\begin{aligned}") and r"-\infty" in text
    assert r"\mathrm{weights} &= \begin{bmatrix} 1 & 0 \\ 0.3302 & 0.6698 \end{bmatrix}" in text


def test_document_shows_in_jupyter_as_markdown():
    doc = document(EX / "002-counts.toml")
    assert doc._repr_markdown_() == doc.markdown()


# -- every operation of the expression language renders -----------------------------------

ALL_OPS = """[example]
id = "all-ops"
title = "Every operation: 猫 & co. (100% of them)"
tokens = ["猫", "は", "<pad>"]

[inputs]
X = { value = [[1, 0], [0, 1], [1, 1]], rows = "tokens" }
W = [[0.5, -1], ["1/3", 2]]
b = [0.1, -0.2]
W1 = [[1, -1, 0], [0, 1, 1]]
b1 = [0, 0.5, -1]
W2 = [[1, 0], [0, 1], [1, 1]]
b2 = [0, 0]
V = { value = [[1, 2], [3, 4], [5, 6]], rows = "tokens" }
E_tab = { value = [[1, 0], [0, 1], [0.5, 0.5]], rows = ["a", "b_c", "d%e"] }
t = { symbol = "t" }
g = [2, 1]

[[steps]]
name = "lin"
expr = "linear(X, W, b)"
[[steps]]
name = "sm_T"
expr = "softmax(X @ W, T=2)"
[[steps]]
name = "sm_col"
expr = "softmax(X @ W, axis=0)"
[[steps]]
name = "sc"
expr = "scores(X, X)"
[[steps]]
name = "sc1"
expr = "scores(X, X, scale=1)"
[[steps]]
name = "wts"
expr = "weights(X, X, mask=causal_mask(3))"
[[steps]]
name = "att"
expr = "attention(X, X, V, mask=padding_mask([1, 1, 0], 3))"
[[steps]]
name = "att_s"
expr = "attention(X, X, V, scale=0.5)"
[[steps]]
name = "ln"
expr = "layer_norm(X @ W)"
[[steps]]
name = "ln_g"
expr = "layer_norm(X @ W, eps=0, gamma=g, beta=b)"
[[steps]]
name = "ln_v"
expr = "layer_norm(X @ W, variance='unbiased')"
[[steps]]
name = "f"
expr = "ffn(X, W1, b1, W2, b2)"
[[steps]]
name = "res"
expr = "residual(X, lin)"
[[steps]]
name = "lg"
expr = "logits(X, W)"
[[steps]]
name = "pr"
expr = "probabilities(lg, T=0.5)"
[[steps]]
name = "ce"
expr = "cross_entropy(lg, [0, 1, 1])"
[[steps]]
name = "ls"
expr = "label_smoothing_loss(lg, [0, 1, 1], 0.1)"
[[steps]]
name = "emb"
expr = "embed(E_tab, [0, 2])"
[[steps]]
name = "pe"
expr = "positional_encoding(3, 4)"
[[steps]]
name = "st"
expr = "stack(X, V)"
[[steps]]
name = "cc"
expr = "concat(X, V)"
[[steps]]
name = "v"
expr = "var(X)"
[[steps]]
name = "am"
expr = "argmax(lg[0])"
[[steps]]
name = "ab"
expr = "abs(X @ W) ** 2 - sqrt(X + 1) + log(X + 1) * sin(X) / cos(X)"
[[steps]]
name = "mx"
expr = "max(X @ W) + mean(X) - sum(V)"
[[steps]]
name = "neg"
expr = "-(X @ W).T"
[[steps]]
name = "lit"
expr = '[[1, 2], [3, 4]] @ X.T[:, "猫"]'
[[steps]]
name = "sym"
expr = "t * X"
[[steps]]
name = "km"
expr = "keep_mask(causal_mask(3))"
[[steps]]
name = "wd"
expr = "width(X) + 1"
"""


def all_ops_spec(tmp_path):
    return load(str(tmp_path / "all-ops.toml"), text=ALL_OPS)


@pytest.mark.parametrize("opts", [{}, {"rows": "all"}, {"exact": True}, {"format": "tex"}])
def test_every_operation_renders(tmp_path, opts):
    doc = document(all_ops_spec(tmp_path), **opts)
    assert len(doc.blocks) == 1 + ALL_OPS.count("[[steps]]")
    text = doc.text()
    assert r"\text{\textless{}pad\textgreater{}}" in text or "exact" in str(opts)   # no HTML tag
    for f in doc.formulas():
        assert f.count("{") == f.count("}"), f
        assert f.count(r"\left") == f.count(r"\right"), f


def test_softmax_over_columns_is_not_written_as_rows(tmp_path):
    f = "\n".join(document(all_ops_spec(tmp_path), steps=["sm_col"]).formulas())
    assert r"\sum_{j}" not in f                   # no row-wise quotients for axis=0
    assert r"\begin{bmatrix} 0.3084 & 0.0351" in f


def test_padding_mask_weight_is_zero_and_symbols_stay_symbolic(tmp_path):
    f = "\n".join(document(all_ops_spec(tmp_path), steps=["att", "sym"]).formulas())
    assert r"&\approx \left[0.6698,\ 0.3302,\ 0\right] \\" in f
    assert r"+ 0 \cdot \left[5,\ 6\right]" in f
    assert r"\begin{bmatrix} t & 0 \\ 0 & t \\ t & t \end{bmatrix}" in f
