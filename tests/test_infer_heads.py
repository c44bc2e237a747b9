"""Multi-head attention and the attention chain at the article's grain (symattn.infer.stated,
.heads, .weighted): weights stated by name in prose, a head derived through its chain with
its unprinted steps, the concatenation ·W_O, a coarser restatement of the weights and the
products computed from it.

The posts are written here; their truths are worked out in this file with ``fractions``
(projections, scores, W_O) and ``mpmath`` at 30 digits (softmax, heads), never by symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction as F

import mpmath
import pytest

from symattn.article.source import Line
from symattn.infer.stated import role, stated, unescaped

mpmath.mp.dps = 30


def mm(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def tr(a):
    return [list(r) for r in zip(*a)]


def softmax_rows(s):
    return [[mpmath.exp(x) / mpmath.fsum(mpmath.exp(y) for y in row) for x in row] for row in s]


def mp(x):
    return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, F) else x


def head(X, W, scale):
    """softmax((XW)(XW)ᵀ / scale) · XW: one head whose three weights are W."""
    q = mm(X, W)
    s = [[mp(x) / scale for x in row] for row in mm(q, tr(q))]
    a = softmax_rows(s)
    return [[mpmath.fsum(a[i][k] * mp(q[k][j]) for k in range(len(q))) for j in range(len(q[0]))]
            for i in range(len(q))]


def p4(x) -> str:
    return f"{float(x):.4f}"


def bmatrix(rows) -> str:
    return r"\begin{bmatrix} " + r" \\ ".join(" & ".join(r) for r in rows) + r" \end{bmatrix}"


def cli(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          timeout=300)


# ---- stated weights -------------------------------------------------------------------------

def test_a_weights_role_and_head_come_from_its_name():
    assert role("W_Q1") == ("q", "1") and role("W^{K}_2") == ("k", "2")
    assert role("w_value") == ("v", "") and role("W^O") == ("o", "") and role("Wq") == ("q", "")
    assert role("W_2^K") == ("k", "2") and role("W_{1}^{V}") == ("v", "1") and role("WQ1") == ("q", "1")
    assert role("W_x") is None and role("X") is None and role("softmax") is None and role("W_1") is None


def test_weights_stated_in_prose_code_and_latex_are_read_exactly():
    lines = [Line(1, r"Let W\_Q2 = W\_K2 = W\_V2 = \[\[0, 1], \[1, 0]] (flipping inputs)", "text"),
             Line(2, "W_Q1 = W_K1 = W_V1 = Identity matrix", "output"),
             Line(3, "    [[1, 0],", "output"), Line(4, "     [0, 1]]", "output"),
             Line(5, r"W^O = \frac{1}{3} \cdot \text{[[1, 2], [0, 1]]}", "math"),
             Line(6, "The scores are [[1, 2], [3, 4]] here.", "text")]     # no weight's name
    got = {p.line: (names, p.values) for names, p in stated(lines)}
    assert got[1] == (("W_Q2", "W_K2", "W_V2"), ((0, 1), (1, 0)))
    assert got[3] == (("W_Q1", "W_K1", "W_V1"), ((1, 0), (0, 1)))
    assert got[5] == (("W^O",), ((F(1, 3), F(2, 3)), (0, F(1, 3))))
    assert all(isinstance(v, (int, F)) for r in got[5][1] for v in r)          # exact, no float
    assert set(got) == {1, 3, 5}
    assert unescaped(r"W\_Q \[1\]") == "W_Q [1]"


# ---- two heads of stated weights, concatenated, times W^O ------------------------------------

X = [[F(1), F(2)], [F(0), F(1)], [F(1), F(1)]]
W1 = [[F(1), F(0)], [F(1), F(1)]]
W2 = [[F(0), F(1)], [F(1), F(0)]]
W_O = [[F(1, 2), F(0), F(1, 2), F(0)], [F(0), F(1, 2), F(0), F(1, 2)]]
ROOT2 = mpmath.sqrt(2)
H1, H2 = head(X, W1, ROOT2), head(X, W2, ROOT2)
CONCAT = [a + b for a, b in zip(H1, H2)]
FINAL = [[mpmath.fsum(r[k] * mp(W_O[j][k]) for k in range(4)) for j in range(2)] for r in CONCAT]
WRONG = (2, 1)                          # Head 2 [2, 1] printed one unit of the 2nd decimal off


def heads_post() -> tuple[str, list]:
    h2 = [[p4(x) for x in r] for r in H2]
    h2[WRONG[0]][WRONG[1]] = f"{float(H2[WRONG[0]][WRONG[1]]) + 0.01:.4f}"
    lines = ["# Two heads by hand", "", "Three tokens, two features:", "",
             f"$$X = {bmatrix([[str(x) for x in r] for r in X])}$$", "",
             r"Head 1 uses W\_Q1 = W\_K1 = W\_V1 = \[\[1, 0], \[1, 1]] and head 2 uses "
             r"W\_Q2 = W\_K2 = W\_V2 = \[\[0, 1], \[1, 0]].", "",
             r"Each head is softmax(Q K^T / \sqrt{2}) V:", "",
             f"$$H_1 = {bmatrix([[p4(x) for x in r] for r in H1])}$$", "",
             r"and for head 2, again divided by \sqrt{2}:", "",
             f"$$H_2 = {bmatrix(h2)}$$", "", "Side by side:", "",
             f"$$C = {bmatrix([[p4(x) for x in r] for r in CONCAT])}$$", "",
             r"$$W^O = \frac{1}{2} \cdot \text{[[1, 0, 1, 0], [0, 1, 0, 1]]}$$", "",
             f"$$Y = {bmatrix([[p4(x) for x in r] for r in FINAL])}$$"]
    return "\n".join(lines) + "\n", h2


def test_two_heads_of_stated_weights_are_derived_through_their_chain(tmp_path):
    text, h2 = heads_post()
    path = tmp_path / "heads.md"
    path.write_text(text, encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 1, r.stderr + r.stdout
    d = json.loads(r.stdout)
    steps = {s["name"]: s["expr"] for s in d["inferred"][0]["steps"]}
    assert steps["Q1"] == "X @ W_Q1" and steps["S1"] == "Q1 @ K1.T" and steps["H_1"] == "A1 @ V1"
    assert steps["A2"] == "softmax(S2 / sqrt(2))" and steps["Y"] == "C @ W_O.T"
    truth = {"H_1": H1, "H_2": H2, "C": CONCAT, "Y": FINAL}
    wrong = [c for c in d["claims"] if c["verdict"] == "wrong"]
    assert [(c["step"], c["at"], c["printed"]) for c in wrong] == [("H_2", ["2", "1"], h2[2][1])]
    checked = [c for c in d["claims"] if c["step"] in truth]
    assert len(checked) == 6 + 6 + 12 + 6
    for c in checked:                       # every exact value is this file's truth
        i, j = int(c["at"][0]), int(c["at"][1])
        assert abs(mpmath.mpf(c["exact"]) - truth[c["step"]][i][j]) < mpmath.mpf(10) ** -15
        assert c["verdict"] == "correct" or c is wrong[0]


def test_the_written_spec_of_the_heads_checks_with_the_same_verdicts(tmp_path):
    text, _ = heads_post()
    path = tmp_path / "heads.md"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "spec.toml"
    first = cli("check", "--json", str(path), "-o", str(out))
    assert first.returncode == 1, first.stderr
    spec = out.read_text(encoding="utf-8")
    assert 'W_O = { value = [["1/2", 0, "1/2", 0], [0, "1/2", 0, "1/2"]]' in spec
    again = cli("check", "--json", str(out))
    key = lambda recs: sorted((c["line"], c["column"], c["printed"], c["verdict"]) for c in recs)
    assert key(json.loads(again.stdout)["claims"]) == key(json.loads(first.stdout)["claims"])


def test_a_head_is_not_derived_by_a_coincidence_of_an_identity_input(tmp_path):
    """X = I: softmax(X) reproduces the head's output, the chain of its stated weights too."""
    eye = [[F(1), F(0)], [F(0), F(1)]]
    h = head(eye, W2, 1)
    text = "\n".join([f"$$X = {bmatrix([['1', '0'], ['0', '1']])}$$", "",
                      r"Let W\_Q = W\_K = W\_V = \[\[0, 1], \[1, 0]].", "",
                      f"$$H = {bmatrix([[p4(x) for x in r] for r in h])}$$", ""])
    path = tmp_path / "eye.md"
    path.write_text(text, encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 0, r.stderr + r.stdout
    steps = {s["name"]: s["expr"] for s in json.loads(r.stdout)["inferred"][0]["steps"]}
    assert steps["H"] == "A1 @ V1" and steps["Q1"] == "X @ W_Q" and "softmax(X)" not in steps.values()


# ---- weights restated coarser, and the output computed from them ------------------------------

SCORES = [[2, 4, 4], [1, 1, 3], [0, 2, 0]]
VALUES = [[1, 2], [2, 8], [2, 6]]
A = softmax_rows([[mpmath.mpf(x) for x in r] for r in SCORES])
ROUGH = [["0.0", "0.5", "0.5"], ["0.1", "0.1", "0.8"], ["0.1", "0.8", "0.1"]]   # [0][0]: 0.06
OUT = [[mpmath.fsum(A[i][k] * VALUES[k][j] for k in range(3)) for j in range(2)] for i in range(3)]
OUT_ROUGH = [[sum(F(ROUGH[i][k]) * VALUES[k][j] for k in range(3)) for j in range(2)] for i in range(3)]


def rough_post(name: str, a_line_each: bool = True) -> str:
    """Scores, values, the softmax printed; it restated at one decimal (``name = [...]``,
    its rows a line each or all on one line); the output computed from the restatement."""
    def rows(m, f):
        return ",\n#         ".join("[" + ", ".join(f(x) for x in r) + "]" for r in m)
    sep, start, end = (",\n  ", "[\n  ", "\n]") if a_line_each else (", ", "[", "]")
    return "\n".join([
        "# Attention in code", "", "```python",
        "attn_scores = [[2, 4, 4], [1, 1, 3], [0, 2, 0]]",
        "values = [[1, 2], [2, 8], [2, 6]]",
        "attn_scores_softmax = softmax(attn_scores, dim=-1)",
        f"# tensor([{rows(A, lambda x: f'{float(x):.4f}')}])", "",
        "# For readability, approximate the above as follows",
        f"{name} = {start}" + sep.join("[" + ", ".join(r) + "]" for r in ROUGH) + end, "",
        f"outputs = {name} @ values",
        f"# tensor([{rows(OUT_ROUGH, lambda x: f'{float(x):.4f}')}])", "```", ""])


def test_products_of_weights_restated_coarser_are_checked_on_the_exact_weights(tmp_path):
    path = tmp_path / "rough.md"
    path.write_text(rough_post("attn_scores_softmax"), encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 1, r.stderr + r.stdout
    d = json.loads(r.stdout)
    steps = {s["name"]: s["expr"] for s in d["inferred"][0]["steps"]}
    assert steps["attn_scores_softmax"] == "softmax(attn_scores)"
    assert steps["outputs"] == "attn_scores_softmax @ values"          # not on the rough copy
    assert d["inferred"][0]["inputs"] == ["attn_scores", "values"]
    weights = [c for c in d["claims"] if c["step"] == "attn_scores_softmax"]
    assert [(c["at"], c["printed"]) for c in weights if c["verdict"] == "wrong"] == [(["0", "0"], "0.0")]
    outs = [c for c in d["claims"] if c["step"] == "outputs"]
    assert len(outs) == 6
    assert all(c["verdict"] == "carried" for c in outs if c["at"][0] != "0")
    assert all(c["verdict"] == "wrong" and "follows from the wrong number" in " ".join(c["diagnosis"])
               for c in outs if c["at"][0] == "0")           # computed from the 0.0
    for c in outs:                              # checked on the exact weights, not the rough ones
        i, j = int(c["at"][0]), int(c["at"][1])
        assert abs(mpmath.mpf(c["exact"]) - OUT[i][j]) < mpmath.mpf(10) ** -15


@pytest.mark.parametrize("name, a_line_each", [("rough", True), ("attn_scores_softmax", False)])
def test_a_rounded_copy_of_its_own_is_an_input(tmp_path, name, a_line_each):
    """``rough = [[0.0, 0.5, …]]`` (another name), or a one-line literal: the author's own
    numbers; the output computed from them is checked on them (and is right)."""
    path = tmp_path / "rough.md"
    path.write_text(rough_post(name, a_line_each), encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 0, r.stderr + r.stdout
    d = json.loads(r.stdout)
    assert {s["name"]: s["expr"] for s in d["inferred"][0]["steps"]}["outputs"] == f"{name} @ values"
    assert name in d["inferred"][0]["inputs"]
    outs = [c for c in d["claims"] if c["step"] == "outputs"]
    assert len(outs) == 6 and all(c["verdict"] == "correct" for c in outs)
    for c in outs:
        i, j = int(c["at"][0]), int(c["at"][1])
        assert F(c["exact"]) == OUT_ROUGH[i][j]


# ---- a query's weighted values listed in the prose ---------------------------------------------

def prose_post(slip: bool, listed: bool = True) -> tuple[str, str]:
    """Scores, the weights and the output as LaTeX blocks; the weighted values of query 1
    (its weight of each key times that key's value) listed in a sentence (``listed``), one
    entry off by 0.01 when ``slip``."""
    rows = [[f"{float(A[1][k] * VALUES[k][j]):.4f}" for j in range(2)] for k in range(3)]
    wrong = f"{float(A[1][2] * VALUES[2][1]) + 0.01:.4f}"
    if slip:
        rows[2][1] = wrong
    text = "\n".join([
        f"$$S = {bmatrix([[str(x) for x in r] for r in SCORES])}, \\quad "
        f"V = {bmatrix([[str(x) for x in r] for r in VALUES])}$$", "",
        "The softmax of each row of the scores:", "",
        f"$$A = {bmatrix([[p4(x) for x in r] for r in A])}$$", "",
        ("For query 2 the weighted values are " + " + ".join(f"[{r[0]}, {r[1]}]" for r in rows) + "."
         if listed else "Each output row is a weighted sum of the values."), "",
        "and the output $AV$ is", "", f"$$O = {bmatrix([[p4(x) for x in r] for r in OUT])}$$", ""])
    return text, wrong


def test_a_querys_weighted_values_listed_in_prose_are_a_step_of_their_own(tmp_path):
    path = tmp_path / "prose.md"
    text, wrong = prose_post(slip=True)
    path.write_text(text, encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 1, r.stderr + r.stdout
    d = json.loads(r.stdout)
    steps = {s["name"]: s["expr"] for s in d["inferred"][0]["steps"]}
    assert steps["O"] == "A @ V" and steps["V_query1"] == "A[1].T * V"
    mine = [c for c in d["claims"] if c["step"] == "V_query1"]
    assert len(mine) == 6
    assert [(c["at"], c["printed"]) for c in mine if c["verdict"] == "wrong"] == [(["2", "1"], wrong)]
    for c in mine:                              # row k: A[1][k] · V[k], this file's truth
        k, j = int(c["at"][0]), int(c["at"][1])
        assert abs(mpmath.mpf(c["exact"]) - A[1][k] * VALUES[k][j]) < mpmath.mpf(10) ** -15


def test_without_such_a_list_no_step_is_added(tmp_path):
    path = tmp_path / "plain.md"
    path.write_text(prose_post(slip=False, listed=False)[0], encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 0, r.stderr + r.stdout
    steps = {s["name"]: s["expr"] for s in json.loads(r.stdout)["inferred"][0]["steps"]}
    assert steps == {"A": "softmax(S)", "O": "A @ V"}


# ---- a head whose Q, K, V and weights are printed as small blocks ------------------------------

XS = [[F(1), F(0), F(1)], [F(0), F(1), F(1)]]
WQ, WK, WV = ([[F(1), F(0)], [F(0), F(1)], [F(1), F(1)]], [[F(0), F(1)], [F(1), F(0)], [F(1), F(1)]],
              [[F(1), F(1)], [F(0), F(1)], [F(1), F(0)]])
QS, KS, VS = mm(XS, WQ), mm(XS, WK), mm(XS, WV)
AS = softmax_rows([[mp(x) / ROOT2 for x in r] for r in mm(QS, tr(KS))])
ZS = [[mpmath.fsum(AS[i][k] * mp(VS[k][j]) for k in range(2)) for j in range(2)] for i in range(2)]


def small_post() -> tuple[str, str]:
    """Weights stated in prose; Q, K, V printed as 2×2 whole blocks; the weights with one
    slip (A[1][1] one unit of the 2nd decimal off); the output."""
    def lst(m):
        return r"\[" + ", ".join(r"\[" + ", ".join(str(x) for x in r) + "]" for r in m) + "]"
    a = [[p4(x) for x in r] for r in AS]
    a[1][1] = f"{float(AS[1][1]) + 0.01:.4f}"
    text = "\n".join([
        f"$$X = {bmatrix([[str(x) for x in r] for r in XS])}$$", "",
        f"We use W\\_Q = {lst(WQ)}, W\\_K = {lst(WK)} and W\\_V = {lst(WV)}.", "",
        f"$$Q = {bmatrix([[str(x) for x in r] for r in QS])}, \\quad K = {bmatrix([[str(x) for x in r] for r in KS])}"
        f", \\quad V = {bmatrix([[str(x) for x in r] for r in VS])}$$", "",
        "The scores divided by √d_k, then the softmax of each row:", "",
        f"$$A = {bmatrix(a)}$$", "", f"$$Z = {bmatrix([[p4(x) for x in r] for r in ZS])}$$", ""])
    return text, a[1][1]


def test_a_heads_printed_steps_are_the_blocks_that_print_them(tmp_path):
    text, slip = small_post()
    path = tmp_path / "small.md"
    path.write_text(text, encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 1, r.stderr + r.stdout
    d = json.loads(r.stdout)
    steps = {s["name"]: (s["expr"], s["line"]) for s in d["inferred"][0]["steps"]}
    assert steps["Q"] == ("X @ W_Q", 5) and steps["V"] == ("X @ W_V", 5) and steps["S1"][1] is None
    assert steps["A"][0] == "softmax(S1 / sqrt(2))" and steps["Z"][0] == "A @ V"
    wrong = [(c["step"], c["at"], c["printed"]) for c in d["claims"] if c["verdict"] == "wrong"]
    assert wrong == [("A", ["1", "1"], slip)]
    truth = {"Q": QS, "K": KS, "V": VS, "A": AS, "Z": ZS}
    claims = [c for c in d["claims"] if c["step"] in truth]
    assert len(claims) == 20
    for c in claims:
        i, j = int(c["at"][0]), int(c["at"][1])
        assert abs(mpmath.mpf(c["exact"]) - mp(truth[c["step"]][i][j])) < mpmath.mpf(10) ** -15
