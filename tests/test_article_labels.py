"""Issue 20: a printed block goes where the text's label says, whatever its value.

Each article here is small and written in the test; each truth is computed with mpmath or
fractions from the inputs, never by symattn."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest

from conftest import causal_softmax
from symattn.article.labels import label_text, parse

mpmath.mp.dps = 30


def check(tmp_path, spec: str, article: str, name="post.md") -> dict:
    (tmp_path / "ex.toml").write_text(spec, encoding="utf-8")
    (tmp_path / name).write_text(article, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "ex.toml", "--article", name,
                        "--json"], capture_output=True, text=True, cwd=tmp_path)
    if r.returncode == 2 and "no printed number was checked" in r.stderr:
        return {"claims": [], "unmatched": []}   # no claim and nothing unverified: no all-clear
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def at(out: dict, line: int) -> list:
    return [(c["step"], c["at"], c["printed"], c["verdict"]) for c in out["claims"] if c["line"] == line]


SOFTMAX = """
[example]
id = "tiny"
source = "post.md"
tokens = ["love", "ML"]
[inputs]
S = { value = [[0.5, 0.1], [0.2, 0.9]], rows = "tokens", cols = "tokens" }
[[steps]]
name = "A"
expr = "softmax(S)"
"""


def softmax_row(row):
    e = [mpmath.exp(mpmath.mpf(x)) for x in row]
    return [x / sum(e) for x in e]


def test_an_entry_named_by_its_subscript_is_checked_there(tmp_path):
    """`A_{love,ML} = 0.3736`: the text names A[love, ML] (exact 0.401312...), so the number
    is a claim there (wrong), although it is near no other entry either."""
    a = softmax_row(["0.5", "0.1"])
    assert f"{float(a[1]):.4f}" == "0.4013"
    out = check(tmp_path, SOFTMAX, "# Weights\n\n$A_{love,ML} = 0.3736$\n")
    assert at(out, 3) == [("A", ["love", "ML"], "0.3736", "wrong")]


def test_a_row_named_on_the_left_is_that_row_even_when_another_step_has_its_values(tmp_path):
    """`K_love = [0.92, 1.24]` prints Q's row: the label says K, so it is K's row, wrong."""
    spec = """
[example]
id = "qk"
source = "post.md"
tokens = ["love", "ML"]
[inputs]
X = { value = [[0.8, 1.2], [1.0, 0.0]], rows = "tokens" }
W_Q = [[1.0, 0.2], [0.1, 0.9]]
W_K = [[0.5, 0.0], [0.0, 0.5]]
[[steps]]
name = "Q"
expr = "X @ W_Q"
[[steps]]
name = "K"
expr = "X @ W_K"
"""
    q = [Fraction("0.8") * Fraction("1.0") + Fraction("1.2") * Fraction("0.1"),
         Fraction("0.8") * Fraction("0.2") + Fraction("1.2") * Fraction("0.9")]
    assert q == [Fraction("0.92"), Fraction("1.24")]           # Q's row, not K's ([0.4, 0.6])
    out = check(tmp_path, spec, "Keys:\n\n$K_{love} = [0.92, 1.24]$\n\n$Q_{love} = [0.92, 1.24]$\n")
    assert at(out, 3) == [("K", ["love", "0"], "0.92", "wrong"), ("K", ["love", "1"], "1.24", "wrong")]
    assert at(out, 5) == [("Q", ["love", "0"], "0.92", "correct"), ("Q", ["love", "1"], "1.24", "correct")]


def test_only_the_last_block_of_an_equation_is_its_left_hand_side(tmp_path):
    """`Q_love = [0.8, 1.2]·W_Q = [0.92, 1.24]`: the first block is x, not Q."""
    spec = """
[example]
id = "q"
source = "post.md"
tokens = ["love"]
[inputs]
X = { value = [[0.8, 1.2]], rows = "tokens" }
W_Q = [[1.0, 0.2], [0.1, 0.9]]
[[steps]]
name = "Q"
expr = "X @ W_Q"
"""
    out = check(tmp_path, spec, "$Q_{love} = [0.8, 1.2] \\cdot W_Q = [0.92, 1.24]$\n")
    assert at(out, 1) == [("Q", ["love", "0"], "0.92", "correct"), ("Q", ["love", "1"], "1.24", "correct")]


def test_a_transposed_label_places_the_block_transposed(tmp_path):
    """`S^\\top` printed as a bmatrix: entry (i, j) of the print is S[j, i]."""
    spec = SOFTMAX.replace("S = {", "S0 = {").replace('expr = "softmax(S)"', 'expr = "softmax(S0)"')
    spec += '[[steps]]\nname = "S"\nexpr = "S0 * 2"\n'
    # S = [[1.0, 0.2], [0.4, 1.8]]; its transpose [[1.0, 0.4], [0.2, 1.8]], one entry misprinted
    out = check(tmp_path, spec, "$$S^\\top = \\begin{bmatrix} 1.0 & 0.4 \\\\ 0.2 & 1.7 \\end{bmatrix}$$\n")
    got = sorted((c["at"][0], c["at"][1], c["printed"], c["verdict"]) for c in out["claims"])
    assert got == [("ML", "ML", "1.7", "wrong"), ("ML", "love", "0.4", "correct"),
                   ("love", "ML", "0.2", "correct"), ("love", "love", "1.0", "correct")]


def test_a_table_column_header_names_the_step_and_its_rows_are_the_table_rows(tmp_path):
    """`| pos | $P_i$ |` rows are P's rows in order; a row printed wrong is claimed wrong."""
    spec = """
[example]
id = "pe"
source = "post.md"
[[steps]]
name = "P"
expr = "positional_encoding(2, 4)"
"""
    # P[1] = [sin 1, cos 1, sin(1/100), cos(1/100)] (base 10000, d = 4)
    p1 = [mpmath.sin(1), mpmath.cos(1), mpmath.sin(mpmath.mpf(1) / 100), mpmath.cos(mpmath.mpf(1) / 100)]
    assert [f"{float(x):.3f}" for x in p1] == ["0.841", "0.540", "0.010", "1.000"]
    article = ("| pos | $P_i$ |\n|---|---|\n| 0 | [0.000, 1.000, 0.000, 1.000] |\n"
               "| 1 | [0.841, 0.540, 0.841, 0.540] |\n")
    out = check(tmp_path, spec, article)
    row1 = [(c["at"], c["printed"], c["verdict"]) for c in out["claims"] if c["line"] == 4]
    assert [v for _, _, v in row1] == ["correct", "correct", "wrong", "wrong"]
    assert all(a[0] == "1" for a, _, _ in row1)


def test_a_commented_printout_under_an_assignment_is_that_steps_output(tmp_path):
    """Code that prints into comments (`# tensor([[…`) under `attn = softmax(scores)`."""
    w = [softmax_row(["0.5", "0.1"]), softmax_row(["0.2", "0.9"])]
    want = [[f"{float(x):.4f}" for x in r] for r in w]
    assert want == [["0.5987", "0.4013"], ["0.3318", "0.6682"]]
    article = ("```python\nA = softmax(S, dim=-1)\n# tensor([[0.5987, 0.4013],\n"
               "#         [0.3318, 0.6000]])\n```\n")
    out = check(tmp_path, SOFTMAX, article)
    verdicts = {(c["line"], c["printed"]): c["verdict"] for c in out["claims"]}
    assert verdicts == {(3, "0.5987"): "correct", (3, "0.4013"): "correct", (4, "0.3318"): "correct",
                        (4, "0.6000"): "wrong"}


def test_a_label_that_is_a_prefix_lets_the_values_choose(tmp_path):
    """`$X_i$` over a table of E + P_toy when the spec calls that step X_toy and has an X
    too: the values say X_toy, and no number is blamed on X."""
    spec = """
[example]
id = "x"
source = "post.md"
[inputs]
E = [[0.1, 0.2], [0.3, 0.4]]
T = [[0.01, 0.02], [0.03, 0.04]]
[[steps]]
name = "X_toy"
expr = "E + T"
[[steps]]
name = "X"
expr = "E * 2"
"""
    out = check(tmp_path, spec, "| token | $X_i$ |\n|---|---|\n| a | [0.11, 0.22] |\n| b | [0.33, 0.44] |\n")
    assert {(c["step"], c["verdict"]) for c in out["claims"]} == {("X_toy", "correct")}


@pytest.mark.parametrize("text, start, lhs", [
    ("X_\\text{cat} = [0.5+0.841, 0.4] = [", 37, "X_\\text{cat}"),
    ("K=\\begin{bmatrix}1 & 0\\end{bmatrix},\\quad K^{\\mathsf T}=\\begin{bmatrix}", 72, "K^{\\mathsf T}"),
    ("softmax([2, 4, 4]) = [", 22, "softmax([2, 4, 4])"),
    ("we get [", 8, None),
    ("\\[ Q = \\begin{pmatrix} 1 \\end{pmatrix}, \\quad V = XW_V = \\begin{pmatrix}", 72, "V"),   # \\[ opens no bracket
    ("\\( K = [1, 2], V = [", 20, "V"),
])
def test_the_left_hand_side_of_the_equation_a_block_ends(text, start, lhs):
    assert label_text(text, start) == lhs


def test_a_label_names_its_tensor_row_and_column():
    assert parse("A_{love,ML}") == ("A", ("love", "ML"), False)
    assert parse("X_\\text{cat}") == ("X", ("cat",), False)
    assert parse("K^{\\mathsf T}") == ("K", (), True)
    p = parse("attn_scores.T")
    assert ("_".join((p.name,) + p.sub), p.transposed) == ("attn_scores", True)


def test_a_caption_names_the_step_by_its_operation(tmp_path):
    """"After RMSNorm:" over a printed row: the RMSNorm step's row (one entry wrong), not
    the LayerNorm step's, whatever the steps are called."""
    spec = """
[example]
id = "norms"
source = "post.md"
[inputs]
x = [[1.0, 2.0, 3.0, 4.0]]
[[steps]]
name = "out_a"
expr = "layer_norm(x)"
[[steps]]
name = "out_b"
expr = "rms_norm(x)"
"""
    xs = [mpmath.mpf(v) for v in (1, 2, 3, 4)]
    rms = mpmath.sqrt(sum(v * v for v in xs) / 4 + mpmath.mpf("1e-6"))
    want = [f"{float(v / rms):.4f}" for v in xs]
    assert want == ["0.3651", "0.7303", "1.0954", "1.4606"]
    out = check(tmp_path, spec, "After RMSNorm:\n\n[0.3651, 0.7303, 1.0954, 1.4605]\n")
    got = [(c["step"], c["printed"], c["verdict"]) for c in out["claims"]]
    assert got == [("out_b", "0.3651", "correct"), ("out_b", "0.7303", "correct"),
                   ("out_b", "1.0954", "correct"), ("out_b", "1.4605", "wrong")]



def test_a_caption_that_misses_an_operations_head_word_names_nothing(tmp_path):
    """"Layer 1 output:" over [0.1, 0.2, 100.0, 0.3] is about a network's layer, not the
    example's layer norm of [2, 4, 6, 8] (exact -1.3416…, -0.4472…, …: no entry agrees):
    no claim there. "Layer norm output:" names it, and its slip is flagged."""
    spec = """
[example]
id = "ln"
source = "post.md"
[inputs]
x = [[2.0, 4.0, 6.0, 8.0]]
[[steps]]
name = "y"
expr = "layer_norm(x)"
"""
    xs = [mpmath.mpf(v) for v in (2, 4, 6, 8)]
    sd = mpmath.sqrt(sum((v - 5) ** 2 for v in xs) / 4 + mpmath.mpf("1e-5"))
    assert [f"{float((v - 5) / sd):.2f}" for v in xs] == ["-1.34", "-0.45", "0.45", "1.34"]
    article = ("Layer 1 output:\n\n[0.1, 0.2, 100.0, 0.3]\n\n"
               "Layer norm output:\n\n[-1.34, -0.45, 0.45, 1.43]\n")
    out = check(tmp_path, spec, article)
    assert at(out, 3) == []
    assert [c[3] for c in at(out, 7)] == ["correct", "correct", "correct", "wrong"]

CAUSAL = """
[example]
id = "causal"
source = "post.md"
[inputs]
S = [[0.2, 0.5, 0.1], [0.4, 0.3, 0.9], [0.7, 0.1, 0.6]]
[[steps]]
name = "weights"
expr = "softmax(S + causal_mask(3))"
"""


def causal_weights():
    return causal_softmax([["0.2", "0.5", "0.1"], ["0.4", "0.3", "0.9"], ["0.7", "0.1", "0.6"]])


def test_a_whole_block_with_a_right_row_is_claimed_whole(tmp_path):
    """A printed 3×3 block, no label, its first row right and one entry of another row off
    by a little: every entry is a claim on the step of its shape, the off one wrong."""
    w = causal_weights()
    want = [[f"{float(x):.4f}" for x in r] for r in w]
    assert want[1] == ["0.5250", "0.4750", "0.0000"] and want[2] == ["0.4076", "0.2237", "0.3688"]
    article = ("```\n[[1.0000, 0.0000, 0.0000],\n [0.5250, 0.4750, 0.0000],\n"
               " [0.4076, 0.2300, 0.3688]]\n```\n")
    out = check(tmp_path, CAUSAL, article)
    verdicts = {(c["line"], c["printed"]): c["verdict"] for c in out["claims"]}
    assert verdicts[(4, "0.2300")] == "wrong" and verdicts[(4, "0.4076")] == "correct"
    assert len(out["claims"]) == 9


def test_a_mask_printout_is_no_claim(tmp_path):
    """`torch.tril(torch.ones(3, 3))` printed: 1s and 0s that print no step; none of them
    is a claim on the causal weights (whose first row is [1, 0, 0])."""
    article = "```\ntensor([[1., 0., 0.],\n        [1., 1., 0.],\n        [1., 1., 1.]])\n```\n"
    out = check(tmp_path, CAUSAL, article)
    assert [c for c in out["claims"] if c["verdict"] == "wrong"] == []


ROWS = """
[example]
id = "rows"
source = "post.md"
tokens = ["Hello", ",", "how"]
[inputs]
emb = { value = [[0.1, 0.3, -0.2, 0.8], [0.0, 0.1, 0.4, -0.1], [0.5, -0.3, 0.2, 0.6]], rows = "tokens" }
[[steps]]
name = "tok_mean"
expr = "mean(emb)"
[[steps]]
name = "tok_std"
expr = "sqrt(var(emb, ddof=0))"
"""


def test_lines_that_open_with_a_row_label_print_that_row(tmp_path):
    """`"Hello": mean=0.25, std=0.364` and the lines below: the std of each row named,
    right or wrong (the `,` row's population std is 0.1871, printed 0.208)."""
    rows = [["0.1", "0.3", "-0.2", "0.8"], ["0.0", "0.1", "0.4", "-0.1"], ["0.5", "-0.3", "0.2", "0.6"]]
    stds = []
    for r in rows:
        xs = [Fraction(x) for x in r]
        mu = sum(xs) / 4
        v = sum((x - mu) ** 2 for x in xs) / 4
        stds.append(mpmath.sqrt(mpmath.mpf(v.numerator) / v.denominator))
    assert [f"{float(s):.3f}" for s in stds] == ["0.364", "0.187", "0.350"]
    article = ('```\n"Hello": mean=0.25, std=0.364\n","    : mean=0.10, std=0.208\n'
               '" how" : mean=0.25, std=0.350\n```\n')
    out = check(tmp_path, ROWS, article)
    got = {(c["line"], c["printed"]): (c["step"], c["at"][0], c["verdict"]) for c in out["claims"]}
    assert got[(3, "0.208")] == ("tok_std", ",", "wrong")
    assert got[(3, "0.10")] == ("tok_mean", ",", "correct")
    assert got[(4, "0.350")] == ("tok_std", "how", "correct")


def test_a_row_printed_wrong_throughout_is_claimed_by_its_label(tmp_path):
    """`P = [0.71, 0.23, 0.06]` under `P = softmax(z)`, every entry wrong (the exact row is
    [0.6652, 0.2447, 0.0900]): three wrong claims, not three unmatched numbers."""
    spec = """
[example]
id = "p"
source = "post.md"
[inputs]
z = [[2.0, 1.0, 0.0]]
[[steps]]
name = "P"
expr = "softmax(z)"
"""
    p = softmax_row(["2.0", "1.0", "0.0"])
    assert [f"{float(x):.2f}" for x in p] == ["0.67", "0.24", "0.09"]
    out = check(tmp_path, spec, "The probabilities:\n\n$P = [0.71, 0.23, 0.06]$\n")
    assert [(c["step"], c["printed"], c["verdict"]) for c in out["claims"]] == \
        [("P", "0.71", "wrong"), ("P", "0.23", "wrong"), ("P", "0.06", "wrong")]
    assert out["summary"]["wrong"] == 3


def test_a_number_near_an_entry_the_text_does_not_name_is_unverified(tmp_path):
    """A lone 0.41 in prose, near A[love, ML] = 0.4013 but naming nothing: no verdict, listed
    as unverified with its likely entries, and the summary line says so (no all-clear)."""
    out = check(tmp_path, SOFTMAX, "The weight is about right, 0.41 or so.\n")
    assert out["claims"] == []
    assert [u["text"] for u in out["unmatched"]] == ["0.41"]
    assert out["unmatched"][0]["likely"][0]["step"] == "A"
    assert out["summary"]["unverified"] == 1
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "ex.toml", "--article", "post.md"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert "1 more unverified" in r.stdout and "0.41" in r.stdout


def test_a_spec_may_give_a_step_the_names_the_article_uses(tmp_path):
    """`aliases = ["A", "α"]` on a step named `w`: `A_{love,ML}` and `\\alpha_{love,ML}` name it."""
    spec = SOFTMAX.replace('name = "A"', 'name = "w"\naliases = ["A", "α"]')
    out = check(tmp_path, spec, "$A_{love,ML} = 0.4013$\n\n$\\alpha_{ML,ML} = 0.7$\n")
    assert at(out, 1) == [("w", ["love", "ML"], "0.4013", "correct")]
    a = softmax_row(["0.2", "0.9"])
    assert f"{float(a[1]):.1f}" == "0.7"
    assert at(out, 3) == [("w", ["ML", "ML"], "0.7", "correct")]


def test_aliases_must_be_names(tmp_path):
    (tmp_path / "ex.toml").write_text(SOFTMAX.replace('name = "A"', 'name = "A"\naliases = [3]'),
                                      encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "ex.toml"], capture_output=True,
                       text=True, cwd=tmp_path)
    assert r.returncode == 2 and "aliases" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_the_blocks_of_a_3d_printout_go_one_to_one_to_the_family_its_label_names(tmp_path):
    """`parts = …` over a 3-D printout, the spec's steps parts_x (v/2) and parts_y (2v): the
    first block prints parts_y, the second parts_x (order by values, not by the spec)."""
    spec = """
[example]
id = "parts"
source = "post.md"
[inputs]
v = [[1, 2], [3, 4]]
[[steps]]
name = "parts_x"
expr = "v * 0.5"
[[steps]]
name = "parts_y"
expr = "v * 2"
"""
    article = ("```python\nparts = torch.stack([v * 2, v / 2])\nprint(parts)\n```\n```\n"
               "tensor([[[2.0, 4.0],\n         [6.0, 8.0]],\n\n        [[0.5, 1.0],\n         [1.5, 2.0]]])\n```\n")
    out = check(tmp_path, spec, article)
    steps = {(c["line"], c["printed"]): c["step"] for c in out["claims"]}
    assert {s for (line, _), s in steps.items() if line in (6, 7)} == {"parts_y"}
    assert {s for (line, _), s in steps.items() if line in (9, 10)} == {"parts_x"}
    assert all(c["verdict"] == "correct" for c in out["claims"]) and len(out["claims"]) == 8


def test_a_program_line_that_writes_a_result_into_a_steps_name_is_a_claim(tmp_path):
    """`balanced = [-1.5, -0.5, 0.5, 1.5]` in code, `balanced` a step (x − mean(x)): claims;
    `res = 0.` updated by `res += …` is program state, no claim."""
    spec = """
[example]
id = "code"
source = "post.md"
[inputs]
x = [[5, 6, 7, 8]]
[[steps]]
name = "balanced"
expr = "x - mean(x)"
[[steps]]
name = "res"
expr = "sum(x)"
"""
    xs = [Fraction(v) for v in (5, 6, 7, 8)]
    assert [x - sum(xs) / 4 for x in xs] == [Fraction(-3, 2), Fraction(-1, 2), Fraction(1, 2), Fraction(3, 2)]
    article = ("```python\nbalanced = [-1.5, -0.5, 0.5, 1.4]\nres = 0.\nfor v in x:\n    res += v\n```\n")
    out = check(tmp_path, spec, article)
    assert [(c["step"], c["printed"], c["verdict"]) for c in out["claims"]] == [
        ("balanced", "-1.5", "correct"), ("balanced", "-0.5", "correct"),
        ("balanced", "0.5", "correct"), ("balanced", "1.4", "wrong")]


def test_an_operations_usual_symbol_names_the_step_it_computes(tmp_path):
    """`\\alpha_{love,ML} = 0.40` names the softmax step (called `w` here, no aliases): the
    weights' declared symbols A, α, P; a wrong 0.45 there is wrong, not unmatched."""
    spec = SOFTMAX.replace('name = "A"', 'name = "w"')
    out = check(tmp_path, spec, "$\\alpha_{love,ML} = 0.45$\n")
    assert at(out, 1) == [("w", ["love", "ML"], "0.45", "wrong")]


PE = """
[example]
id = "pe"
source = "post.md"
rounding = "half-up"
tokens = ["The", "cat", "is"]
[inputs]
E = { value = [[0.1, 0.2, 0.3], [0.5, 0.4, 0.3], [0.0, 0.1, 0.0]], rows = "tokens" }
P_toy = { value = [[0.01, 0.02, 0.03], [0.02, 0.01, 0.02], [0.03, 0.03, 0.03]], rows = "tokens" }
[[steps]]
name = "X_toy"
expr = "E + P_toy"
[[steps]]
name = "P"
expr = "positional_encoding(3, 3)"
rows = "tokens"
[[steps]]
name = "X"
expr = "E + P"
"""


def pe(pos: int, k: int, d: int = 3):
    """The sinusoidal encoding, base 10000, computed here with mpmath."""
    angle = pos / mpmath.power(10000, mpmath.mpf(k - k % 2) / d)
    return mpmath.sin(angle) if k % 2 == 0 else mpmath.cos(angle)


def test_a_label_names_the_step_not_an_input_whose_name_it_begins(tmp_path):
    """`$P_i$` heads a table of the sinusoidal P, printed without the frequency decay (every
    column sin(pos), cos(pos)): the label names the step P, so each list is P's row and its
    wrong entries are wrong, although the input P_toy's name also begins with P. The same
    label over the toy table prints P_toy (every value agrees with it): no claim on P."""
    assert f"{float(pe(1, 0)):.3f}" == "0.841" and f"{float(pe(1, 2)):.3f}" == "0.002"
    table = ("| Position | $P_i$ |\n| --- | --- |\n| 0 | [0.0, 1.0, 0.0] |\n"
             "| 1 | [0.841, 0.540, 0.841] |\n| 2 | [0.909, -0.416, 0.909] |\n")
    out = check(tmp_path, PE, "# Encoding\n\n" + table)
    assert at(out, 6) == [("P", ["cat", "0"], "0.841", "correct"), ("P", ["cat", "1"], "0.540", "correct"),
                          ("P", ["cat", "2"], "0.841", "wrong")]
    assert f"{float(pe(2, 2)):.3f}" == "0.004"
    assert [c[3] for c in at(out, 7)] == ["correct", "correct", "wrong"]
    toy = ("| Position | $P_i$ |\n| --- | --- |\n| 0 | [0.01, 0.02, 0.03] |\n"
           "| 1 | [0.02, 0.01, 0.02] |\n| 2 | [0.03, 0.03, 0.03] |\n")
    out = check(tmp_path, PE, "# Toy\n\n" + toy)
    assert not any(c["step"] == "P" for c in out["claims"])


def test_a_wrong_number_printed_again_for_its_entry_is_one_mistake(tmp_path):
    """A results table that repeats a wrong row: the repeat restates the wrong numbers
    (listed apart in the JSON, counted once in the summary), the exit is 1, and `--fix`
    corrects both places."""
    x1 = [mpmath.mpf(e) + pe(1, k) for k, e in enumerate(["0.5", "0.4", "0.3"])]   # E_cat + P_cat
    right = [f"{float(v):.3f}" for v in x1]
    assert right == ["1.341", "0.940", "0.302"]
    art = ("# X\n\n$X_\\text{cat} = [1.341, 0.940, 1.141]$\n\n"
           "| Token | $X_i$ |\n| --- | --- |\n| The | [0.100, 1.200, 0.300] |\n"
           "| cat | [1.341, 0.940, 1.141] |\n")
    out = check(tmp_path, PE, art)
    wrong = [(c["line"], c["at"]) for c in out["claims"] if c["verdict"] == "wrong"]
    assert wrong == [(3, ["cat", "2"])]
    assert [(r["line"], r["at"], r["restates"]) for r in out["restated"]] == [(8, ["cat", "2"], 3)]
    assert out["summary"]["wrong"] == 1 and out["summary"]["restated"] == 1
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "ex.toml", "--article", "post.md"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1 and "1 wrong, 1 restated" in r.stdout, r.stdout
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "ex.toml", "--article", "post.md",
                        "--fix", "-o", "fixed.md"], capture_output=True, text=True, cwd=tmp_path)
    fixed = (tmp_path / "fixed.md").read_text(encoding="utf-8")
    assert fixed.count("1.141") == 0 and fixed.count("0.302") == 2, (r.stdout, r.stderr, fixed)


ROPE = """
[example]
id = "rope"
source = "post.md"
[inputs]
x = [[1.0, 2.0, 3.0, 1.0], [1.0, 2.0, 3.0, 1.0]]
[[steps]]
name = "q_rot"
expr = "rope(x)"
"""


def rope_row(x, pos, base=10000):
    """RoPE of one row (pairs layout) at position ``pos``, with mpmath."""
    out = []
    for i in range(len(x) // 2):
        th = pos / mpmath.power(base, mpmath.mpf(2 * i) / len(x))
        a, b = x[2 * i], x[2 * i + 1]
        out += [a * mpmath.cos(th) - b * mpmath.sin(th), a * mpmath.sin(th) + b * mpmath.cos(th)]
    return out


def test_a_labelled_row_goes_to_the_row_its_values_agree_with_else_it_is_unverified(tmp_path):
    """`q_rot = [...]` names the step, not its row. Whole numbers that agree with no row
    more than another (`[0, 2, 3, 1]`: positions 0 and 1 alike) are unverified, each with
    its column's entries, never scattered over entries of equal value; a row that agrees
    with one row is checked there entry by entry, its wrong entry wrong; with one row
    only, the label places it."""
    r1 = rope_row([1, 2, 3, 1], 1)
    assert [round(float(v)) for v in r1] == [-1, 2, 3, 1]
    out = check(tmp_path, ROPE, "# RoPE\n\nAfter RoPE:\n\nq_rot = [0, 2, 3, 1]\n")
    assert out["claims"] == []
    assert [[e["at"] for e in u["likely"]] for u in out["unmatched"]] == \
        [[["0", str(p)], ["1", str(p)]] for p in range(4)]
    assert f"{float(r1[0]):.2f}" == "-1.14" and f"{float(r1[1]):.2f}" == "1.92"
    out = check(tmp_path, ROPE, "# RoPE\n\nq_rot = [-1.14, 1.92, 2.90, 1.03]\n")
    assert at(out, 3) == [("q_rot", ["1", "0"], "-1.14", "correct"), ("q_rot", ["1", "1"], "1.92", "correct"),
                          ("q_rot", ["1", "2"], "2.90", "wrong"), ("q_rot", ["1", "3"], "1.03", "correct")]
    one = ROPE.replace("[[1.0, 2.0, 3.0, 1.0], [1.0, 2.0, 3.0, 1.0]]", "[[1.0, 2.0, 3.0, 1.0]]") \
        .replace("rope(x)", "rope(x, positions=[1])")
    out = check(tmp_path, one, "# RoPE\n\nq_rot = [0, 2, 3, 1]\n")
    assert [c[3] for c in at(out, 3)] == ["wrong", "correct", "correct", "correct"]


QK = """
[example]
id = "qk"
source = "post.md"
[inputs]
X = [[1, 0], [0, 1], [1, 1], [2, 1]]
W_Q = [[1, 2], [0, 1]]
W_K = [[2, 0], [1, 1]]
[[steps]]
name = "Q"
expr = "X @ W_Q"
[[steps]]
name = "K"
expr = "X @ W_K"
"""


def matmul(a, b):
    return [[sum(Fraction(x) * Fraction(y) for x, y in zip(r, c)) for c in zip(*b)] for r in a]


def test_a_row_the_text_names_by_its_number_and_the_numbers_of_labels(tmp_path):
    """`Q4(token 3) = [2, 2]` and `Q for token 2: [1, 4]` name rows of Q (0- or 1-based, not
    said) that the values agree with in neither reading: unverified among Q's rows, never
    K's rows of equal values; the 3 of `token 3` is no number of the computation. `$K_{3}
    = [3, 1]$` is K's third row read 1-based, the only reading its values agree with."""
    X = [[1, 0], [0, 1], [1, 1], [2, 1]]
    Q, K = matmul(X, [[1, 2], [0, 1]]), matmul(X, [[2, 0], [1, 1]])
    assert Q[2] == [1, 3] and Q[3] == [2, 5] and Q[1] == [0, 1] and K[2] == [3, 1]
    out = check(tmp_path, QK, "# Q\n\nQ4(token 3) = [2, 2]\n\nQ for token 2: [1, 4]\n\n$K_{3} = [3, 1]$\n")
    assert [(c["step"], c["at"], c["verdict"]) for c in out["claims"]] == \
        [("K", ["2", "0"], "correct"), ("K", ["2", "1"], "correct")]
    assert [u["text"] for u in out["unmatched"]] == ["2", "2", "1", "4"]
    assert all(e["step"] == "Q" for u in out["unmatched"] for e in u["likely"])


def test_a_table_is_placed_by_its_row_and_column_labels_in_its_own_order(tmp_path):
    """A table of A whose header and rows list the tokens in the other order than the spec
    (ML before love): each cell is the entry its row and column name, all four right."""
    a = [softmax_row(["0.5", "0.1"]), softmax_row(["0.2", "0.9"])]       # rows love, ML
    ml = [f"{float(a[1][1]):.4f}", f"{float(a[1][0]):.4f}"]
    love = [f"{float(a[0][1]):.4f}", f"{float(a[0][0]):.4f}"]
    table = f"| A | ML | love |\n| --- | --- | --- |\n| ML | {ml[0]} | {ml[1]} |\n| love | {love[0]} | {love[1]} |\n"
    out = check(tmp_path, SOFTMAX, "# Weights\n\n" + table)
    assert [(c["at"], c["verdict"]) for c in out["claims"]] == [
        (["ML", "ML"], "correct"), (["ML", "love"], "correct"),
        (["love", "ML"], "correct"), (["love", "love"], "correct")]


def test_a_block_printed_again_prints_the_same_entries(tmp_path):
    """`P = [0.71, 0.23, 0.06]` (all three wrong: softmax([2, 1, 0.1]) is 0.659, 0.242, 0.099)
    is a claim on P by its label; the same three numbers again in prose and in a printout
    are the same entries again: restated, none unverified, none dropped."""
    p = softmax_row(["2.0", "1.0", "0.1"])
    assert [f"{float(x):.2f}" for x in p] == ["0.66", "0.24", "0.10"]
    spec = ('[example]\nid = "p"\nsource = "post.md"\n[inputs]\nz = [[2.0, 1.0, 0.1]]\n'
            '[[steps]]\nname = "P"\nexpr = "softmax(z)"\n')
    art = ("# Softmax\n\nP = [0.71, 0.23, 0.06]\n\nSo the weights are $[0.71, 0.23, 0.06]$.\n\n"
           "```\nprint(P)\n# [0.71 0.23 0.06]\n```\n")
    out = check(tmp_path, spec, art)
    assert [(c["line"], c["at"], c["verdict"]) for c in out["claims"]] == \
        [(3, ["0", str(k)], "wrong") for k in range(3)]
    assert [(r["line"], r["at"], r["restates"]) for r in out["restated"]] == \
        [(line, ["0", str(k)], 3) for line in (5, 9) for k in range(3)]
    assert out["unmatched"] == []


def test_an_operation_applied_in_the_label_names_its_step(tmp_path):
    """Beamer: `\\mathrm{LN}(x) = \\begin{bmatrix}…` names the LayerNorm step (LN applied to
    the input x, not a row x): every entry is a claim, the two wrong ones wrong."""
    x = [mpmath.mpf(v) for v in ("2.0", "-1.0", "0.5", "3.0")]
    mu = sum(x) / 4
    var = sum((v - mu) ** 2 for v in x) / 4
    ln = [(v - mu) / mpmath.sqrt(var + mpmath.mpf("1e-5")) for v in x]
    assert [f"{float(v):.4f}" for v in ln] == ["0.5773", "-1.4021", "-0.4124", "1.2372"]
    spec = ('[example]\nid = "ln"\nsource = "post.tex"\n[inputs]\nx = [[2.0, -1.0, 0.5, 3.0]]\n'
            '[[steps]]\nname = "ln"\nexpr = "layer_norm(x)"\n')
    art = ("\\begin{frame}{LayerNorm}\n\\[\n\\mathrm{LN}(x) = \\begin{bmatrix} 0.5773 & -1.4018 & "
           "-0.4124 & 1.2373 \\end{bmatrix}\n\\]\n\\end{frame}\n")
    out = check(tmp_path, spec, art, name="post.tex")
    assert [(c["at"], c["verdict"]) for c in out["claims"]] == [
        (["0", "0"], "correct"), (["0", "1"], "wrong"), (["0", "2"], "correct"), (["0", "3"], "wrong")]


CE = """
[example]
id = "ce"
source = "post.html"
[inputs]
z = [[2.0, 1.0, 0.1]]
[[steps]]
name = "loss"
expr = "cross_entropy(z, [0])"
[[steps]]
name = "loss_ls"
expr = "label_smoothing_loss(z, [0], 0.1)"
"""


def test_a_lone_number_the_sentence_names_a_scalar_step_of_is_a_claim_when_a_slip_away(tmp_path):
    """HTML: `With label smoothing 0.1 the loss becomes 0.517` names the label-smoothing loss
    (its operation's words), 0.5137 exactly (mpmath): a wrong claim there, not unverified;
    `after training the loss is 0.45` is another value of the loss (8% off): unverified."""
    p = softmax_row(["2.0", "1.0", "0.1"])
    eps = mpmath.mpf("0.1")
    ls = -sum(q * mpmath.log(x) for q, x in zip([1 - eps + eps / 3, eps / 3, eps / 3], p))
    assert f"{float(ls):.3f}" == "0.514" and f"{float(-mpmath.log(p[0])):.3f}" == "0.417"
    art = ("<html><body><p>The loss is 0.417.</p>\n<p>With label smoothing 0.1 the loss becomes "
           "0.517.</p>\n<p>After training the loss is 0.45.</p></body></html>\n")
    out = check(tmp_path, CE, art, name="post.html")
    assert [(c["step"], c["printed"], c["verdict"]) for c in out["claims"]] == [
        ("loss", "0.417", "correct"), ("loss_ls", "0.517", "wrong")]
    assert [u["text"] for u in out["unmatched"]] == ["0.45"]


def test_a_subscript_the_step_does_not_have_names_another_quantity(tmp_path):
    """`θ_2 = 0.04` for the step theta_2 = sqrt(0.0001) = 0.01 is a claim on it (wrong);
    `θ_{2,4} = 4 × 0.01 = 0.04` is the angle at position 4, another quantity: no claim."""
    spec = ('[example]\nid = "rope"\nsource = "post.md"\n[inputs]\nd = [[0.0001]]\n'
            '[[steps]]\nname = "theta_2"\nexpr = "sqrt(d)"\n')
    assert mpmath.sqrt(mpmath.mpf("0.0001")) == mpmath.mpf("0.01")
    out = check(tmp_path, spec, "- $\\theta_{2,4} = 4 \\times 0.01 = 0.04$ rad\n")
    assert [c for c in out["claims"] if c["printed"] == "0.04"] == []
    out = check(tmp_path, spec, "- $\\theta_2 = 0.04$ rad\n")
    assert [(c["step"], c["printed"], c["verdict"]) for c in out["claims"]] == [("theta_2", "0.04", "wrong")]


def test_the_value_a_text_gives_a_parameter_is_no_claim(tmp_path):
    """`T = 0.5` (a table's row label, inline math), `$\\varepsilon = 0.1$` and `dropout p =
    0.2` give the example its parameters: no claim, not unverified, although 0.5 is
    softmax(z / 2)[0] (0.5017) rounded to one decimal; the distributions are claims."""
    z = ["2.0", "1.0", "0.1"]
    p05 = softmax_row([str(mpmath.mpf(v) / mpmath.mpf("0.5")) for v in z])
    p2 = softmax_row([str(mpmath.mpf(v) / 2) for v in z])
    assert f"{float(p2[0]):.1f}" == "0.5" and f"{float(p05[0]):.3f}" == "0.864"
    spec = ('[example]\nid = "t"\nsource = "post.md"\n[inputs]\nz = [[2.0, 1.0, 0.1]]\n'
            '[[steps]]\nname = "p_05"\nexpr = "softmax(z / 0.5)"\n'
            '[[steps]]\nname = "p_2"\nexpr = "softmax(z / 2)"\n')
    row = ", ".join(f"{float(v):.3f}" for v in p05)
    art = (f"# Temperature\n\n| Temperature | Distribution |\n|---|---|\n| T = 0.5 | [{row}] |\n\n"
           "At $T = 0.5$ the top class gets 0.864; with $\\varepsilon = 0.1$ and dropout p = 0.2.\n")
    out = check(tmp_path, spec, art)
    assert [(c["step"], c["printed"]) for c in out["claims"]] == \
        [("p_05", "0.864"), ("p_05", "0.117"), ("p_05", "0.019"), ("p_05", "0.864")]
    assert out["unmatched"] == []


ATT = """
[example]
id = "att"
source = "post.md"
tokens = ["I", "like", "cats"]
[inputs]
Q = { value = [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0]], rows = "tokens" }
K = { value = [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 0.0, 1.0]], rows = "tokens" }
[[steps]]
name = "scores"
expr = "Q @ K.T / sqrt(4)"
[[steps]]
name = "weights"
expr = "softmax(scores)"
"""


def test_a_caption_above_the_display_math_names_the_whole_block(tmp_path):
    """`Softmax over each row:` then `$$ \\begin{bmatrix}…$$`: the caption (above the `$$`)
    names the softmax step, so the 3×3 block is the weights, each row in its place, the
    third row (computed without 1/√d_k: softmax([2, 0, 1])) wrong, not unverified; the
    rows of equal values are not both given to the first row."""
    Q = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]
    K = [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 1]]
    s = matmul(Q, [list(c) for c in zip(*K)])
    assert s == [[1, 1, 1], [1, 1, 1], [2, 0, 1]]
    unscaled = [f"{float(v):.4f}" for v in softmax_row([str(x) for x in s[2]])]
    scaled = [f"{float(v):.4f}" for v in softmax_row([str(x / 2) for x in s[2]])]
    assert unscaled == ["0.6652", "0.0900", "0.2447"] and scaled == ["0.5065", "0.1863", "0.3072"]
    third = " & ".join(unscaled)
    art = ("# Attention\n\nSoftmax over each row:\n\n$$\n\\begin{bmatrix} 0.3333 & 0.3333 & 0.3333 \\\\ "
           f"0.3333 & 0.3333 & 0.3333 \\\\ {third} \\end{{bmatrix}}\n$$\n")
    out = check(tmp_path, ATT, art)
    assert [(c["at"][0], c["verdict"]) for c in out["claims"]] == \
        [(r, v) for r, v in (("I", "correct"), ("like", "correct"), ("cats", "wrong")) for _ in range(3)]
    assert out["unmatched"] == []


def test_a_block_of_a_steps_shape_printed_wrong_throughout_is_claimed_when_a_mistake_gives_it(tmp_path):
    """A 3×3 block after `apply softmax, and we get`, every entry wrong: softmax of the
    unscaled scores (mpmath), the 1/√d_k forgotten. It has the weights' shape and a known
    mistake reproduces each entry: nine wrong claims on the weights, diagnosed. A block
    of that shape that no mistake gives (a dropout printout: 0 and 2.0) is no claim."""
    S = [[1, 1, 0], [0, 2, 1], [2, 0, 1]]
    printed = [[f"{float(v):.4f}" for v in softmax_row([str(x) for x in r])] for r in S]
    right = [[f"{float(v):.4f}" for v in softmax_row([str(mpmath.mpf(x) / 2) for x in r])] for r in S]
    assert printed[0] == ["0.4223", "0.4223", "0.1554"] and right[0] == ["0.3837", "0.3837", "0.2327"]
    spec = ('[example]\nid = "w"\nsource = "post.md"\n[inputs]\nS = [[1, 1, 0], [0, 2, 1], [2, 0, 1]]\n'
            '[[steps]]\nname = "scaled"\nexpr = "S / sqrt(4)"\n[[steps]]\nname = "weights"\n'
            'expr = "softmax(scaled)"\n')
    rows = " \\\\ ".join(" & ".join(r) for r in printed)
    art = f"# W\n\nWe divide by 2 and apply softmax, and we get\n\n$$\n\\begin{{bmatrix}} {rows} \\end{{bmatrix}}\n$$\n"
    out = check(tmp_path, spec, art)
    assert [(c["step"], c["verdict"]) for c in out["claims"]] == [("weights", "wrong")] * 9
    assert all(any("sqrt(4) missing" in d for d in c["diagnosis"]) for c in out["claims"])
    drop = " \\\\ ".join(" & ".join(r) for r in (["2.0000", "0.0000", "0.0000"], ["0.0000", "2.0000", "0.0000"],
                                                  ["0.0000", "0.0000", "2.0000"]))
    out = check(tmp_path, spec, f"# W\n\nAfter dropout:\n\n$$\n\\begin{{bmatrix}} {drop} \\end{{bmatrix}}\n$$\n")
    assert not any(c["verdict"] == "wrong" for c in out["claims"])


def test_a_full_width_label_names_its_step(tmp_path):
    """Japanese: `「猫」のクエリ：Ｑ_猫 = [0.70, 0.75]` (full-width Ｑ) is Q's row 猫, 0.80 and 0.65
    exactly (fractions): both wrong, although K's row 猫 is [0.70, 0.75]."""
    X, WQ, WK = [["1.0", "0.5"], ["0.2", "0.8"]], [["0.6", "0.2"], ["0.4", "0.9"]], [["0.3", "0.7"], ["0.8", "0.1"]]
    assert matmul(X, WQ)[0] == [Fraction("0.8"), Fraction("0.65")]
    assert matmul(X, WK)[0] == [Fraction("0.7"), Fraction("0.75")]
    spec = ('[example]\nid = "ja"\nsource = "post.md"\ntokens = ["猫", "犬"]\n[inputs]\n'
            'X = { value = [[1.0, 0.5], [0.2, 0.8]], rows = "tokens" }\nW_Q = [[0.6, 0.2], [0.4, 0.9]]\n'
            'W_K = [[0.3, 0.7], [0.8, 0.1]]\n[[steps]]\nname = "Q"\nexpr = "X @ W_Q"\n'
            '[[steps]]\nname = "K"\nexpr = "X @ W_K"\n')
    out = check(tmp_path, spec, "# 自己注意\n\n「猫」のクエリ：Ｑ_猫 = [0.70, 0.75]\n")
    assert at(out, 3) == [("Q", ["猫", "0"], "0.70", "wrong"), ("Q", ["猫", "1"], "0.75", "wrong")]


def test_a_sentence_naming_two_steps_gives_each_number_the_one_it_is_a_slip_of(tmp_path):
    """`instead of maximizing the average log-probability … maximizing -10.7722 …, we would
    minimize 10.7722` names the average and its negative: -10.7722 is a slip of the first
    (−10.794, mpmath), 10.7722 of the second; both wrong claims, one each."""
    p = [mpmath.mpf("0.0001"), mpmath.mpf("0.00003")]
    avg = sum(mpmath.log(x) for x in p) / 2
    assert f"{float(avg):.4f}" == "-9.8123"
    spec = ('[example]\nid = "ce"\nsource = "post.md"\n[inputs]\np = [[0.0001, 0.00003]]\n'
            '[[steps]]\nname = "avg_log_probas"\nexpr = "mean(log(p))"\n'
            '[[steps]]\nname = "neg_avg_log_probas"\nexpr = "avg_log_probas * -1"\n')
    art = ("# Loss\n\n- Instead of maximizing the average log-probability, we minimize the negative "
           "average log-probability; instead of maximizing -9.8001 so that it approaches 0, we "
           "would minimize 9.8001 so that it approaches 0.\n")
    out = check(tmp_path, spec, art)
    assert [(c["step"], c["printed"], c["verdict"]) for c in out["claims"]] == [
        ("avg_log_probas", "-9.8001", "wrong"), ("neg_avg_log_probas", "9.8001", "wrong")]


def test_an_html_table_column_prints_a_vector_and_a_named_variance_wrong_by_a_mistake(tmp_path):
    """An HTML page: a table `i | x_i | normalised` (thead and tbody) prints the LayerNorm
    vector a table row each, its header naming the step; the author used the unbiased
    variance (mpmath), so three entries are wrong and diagnosed, the 0 right, the row
    numbers and the input column no claims. `variance σ² = 4.6667` names the step var (3.5
    exactly): far from it, yet a known mistake gives it, so it is a wrong claim."""
    x = [mpmath.mpf(v) for v in (1, 2, 3, 6)]
    mu = sum(x) / 4
    var = sum((v - mu) ** 2 for v in x) / 4
    assert var == mpmath.mpf("3.5") and f"{float(var * 4 / 3):.4f}" == "4.6667"
    unbiased = [f"{float((v - mu) / mpmath.sqrt(var * 4 / 3)):.4f}" for v in x]
    assert unbiased == ["-0.9258", "-0.4629", "0.0000", "1.3887"]
    spec = ('[example]\nid = "ln"\nsource = "post.html"\n[inputs]\nx = [[1.0, 2.0, 3.0, 6.0]]\n'
            '[[steps]]\nname = "mu"\nexpr = "mean(x)"\n[[steps]]\nname = "var"\nexpr = "var(x, ddof=0)"\n'
            '[[steps]]\nname = "normalised"\nexpr = "layer_norm(x)"\n')
    rows = "".join(f"<tr><td>{k + 1}</td><td>{float(x[k]):.1f}</td><td>{u}</td></tr>\n" for k, u in enumerate(unbiased))
    art = ("<html><body><p>Mean &mu; = 3.0, variance &sigma;<sup>2</sup> = 4.6667.</p>\n<table>"
           "<thead><tr><th>i</th><th>x<sub>i</sub></th><th>normalised</th></tr></thead>\n<tbody>\n"
           f"{rows}</tbody></table></body></html>\n")
    out = check(tmp_path, spec, art, name="post.html")
    got = [(c["step"], c["at"][1], c["verdict"]) for c in out["claims"]]
    assert got == [("mu", "0", "correct"), ("var", "0", "wrong"), ("normalised", "0", "wrong"),
                   ("normalised", "1", "wrong"), ("normalised", "2", "correct"), ("normalised", "3", "wrong")]
    assert all(any("unbiased" in d for d in c["diagnosis"]) for c in out["claims"] if c["verdict"] == "wrong")


def test_three_results_in_one_display_go_to_their_own_names(tmp_path):
    X = [[1, 0], [0, 2]]
    WQ, WV = [[Fraction(1, 2), 1], [0, 1]], [[1, 1], [0, 1]]
    Q = [[sum(X[i][k] * WQ[k][j] for k in range(2)) for j in range(2)] for i in range(2)]
    V = [[sum(X[i][k] * WV[k][j] for k in range(2)) for j in range(2)] for i in range(2)]

    def pm(m):
        return "\\begin{pmatrix} " + " \\\\ ".join(" & ".join(str(float(x)) for x in r) for r in m) + " \\end{pmatrix}"
    spec = f"""
[example]
id = "display"
source = "notes.tex"
[inputs]
X = {X}
W_Q = [[0.5, 1], [0, 1]]
W_V = {WV}
[[steps]]
name = "Q"
expr = "X @ W_Q"
[[steps]]
name = "V"
expr = "X @ W_V"
"""
    article = f"Projections:\n\\[ Q = XW_Q = {pm(Q)}, \\quad V = XW_V = {pm(V)} \\]\n"
    out = check(tmp_path, spec, article, name="notes.tex")
    got = {(c["step"], tuple(c["at"]), c["printed"], c["verdict"]) for c in out["claims"]}
    want = {(n, (str(i), str(j)), str(float(m[i][j])), "correct") for n, m in (("Q", Q), ("V", V))
            for i in range(2) for j in range(2)}
    assert got == want, sorted(got)
