"""`symattn check ARTICLE` with no spec: the worked example inferred, then checked exactly.

A new user's Markdown post is written here; its truths are worked out in this file with
``fractions`` (Q, K, V, the scores) and ``mpmath`` at 30 digits (the scaled scores, the
softmax weights, the output), never by symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from fractions import Fraction as F

import mpmath
import pytest

from symattn.infer.blocks import roots, stated

mpmath.mp.dps = 30

X = [[F(1), F(0)], [F(1, 2), F(1)], [F(0), F(1)]]
W_Q = [[F(1), F(1, 2)], [F(0), F(1)]]
W_K = [[F(1, 2), F(0)], [F(1), F(1)]]
W_V = [[F(2), F(0)], [F(0), F(1)]]
TOKENS = ["I", "love", "cats"]


def mm(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def tr(a):
    return [list(r) for r in zip(*a)]


def mp(x: F):
    return mpmath.mpf(x.numerator) / x.denominator


def softmax_rows(s):
    return [[mpmath.exp(x) / mpmath.fsum(mpmath.exp(y) for y in row) for x in row] for row in s]


Q, K, V = mm(X, W_Q), mm(X, W_K), mm(X, W_V)
S = mm(Q, tr(K))
SCALED = [[mp(x) / mpmath.sqrt(2) for x in row] for row in S]
A = softmax_rows(SCALED)
Z = [[mpmath.fsum(A[i][k] * mp(V[k][j]) for k in range(3)) for j in range(2)] for i in range(3)]
A_UNSCALED = softmax_rows([[mp(x) for x in row] for row in S])
Z_UNSCALED = [[mpmath.fsum(A_UNSCALED[i][k] * mp(V[k][j]) for k in range(3)) for j in range(2)] for i in range(3)]


def p4(x) -> str:
    """Four decimals (no truth here is near a tie)."""
    return f"{float(x):.4f}"


def dec(x: F) -> str:
    return str(float(x)).rstrip("0").rstrip(".") if x != int(x) else str(int(x))


def bmatrix(rows) -> str:
    return r"\begin{bmatrix} " + r" \\ ".join(" & ".join(rows[i]) for i in range(len(rows))) + r" \end{bmatrix}"


def printed(m, f) -> list:
    return [[f(x) for x in row] for row in m]


WRONG = (1, 0)                     # A[love, I] printed one digit off
A_PRINTED = printed(A, p4)
A_PRINTED[WRONG[0]][WRONG[1]] = f"{float(A[1][0]) + 0.01:.4f}"


def post(weights, scaled_block: bool = True, outputs=Z) -> str:
    """The post (26 lines): X as a Markdown table, W_Q in LaTeX, W_K and W_V in a code
    block, then Q, K, V, the scores, the scaled scores, the weights and the output."""
    lines = ["# Self-attention by hand", "", "Three tokens, two features each:", "",
             "| token | x1 | x2 |", "|---|---|---|"]
    lines += [f"| {t} | {dec(r[0])} | {dec(r[1])} |" for t, r in zip(TOKENS, X)]
    lines += ["", f"$$W_Q = {bmatrix(printed(W_Q, dec))}$$", "", "```python",
              f"W_K = [[{dec(W_K[0][0])}, {dec(W_K[0][1])}], [{dec(W_K[1][0])}, {dec(W_K[1][1])}]]",
              f"W_V = [[{dec(W_V[0][0])}, {dec(W_V[0][1])}], [{dec(W_V[1][0])}, {dec(W_V[1][1])}]]",
              "```", "",
              f"$$Q = {bmatrix(printed(Q, dec))}, \\quad K = {bmatrix(printed(K, dec))}, "
              f"\\quad V = {bmatrix(printed(V, dec))}$$", "",
              "The scores $QK^\\top$ are", f"$$S = {bmatrix(printed(S, dec))}$$"]
    if scaled_block:
        lines += ["and divided by $\\sqrt{d_k} = \\sqrt{2}$:",
                  f"$$S' = {bmatrix(printed(SCALED, p4))}$$",
                  "Softmax over each row gives the attention weights"]
    else:
        lines += ["We divide by $\\sqrt{d_k} = \\sqrt{2}$ and take the softmax of each row:"]
    lines += [f"$$A = {bmatrix(weights)}$$", "and the output $Z = AV$:",
              f"$$Z = {bmatrix(printed(outputs, p4))}$$"]
    return "\n".join(lines) + "\n"


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def line_of(text: str, start: str) -> int:
    return next(k + 1 for k, l in enumerate(text.splitlines()) if l.startswith(start))


@pytest.fixture
def one_wrong(tmp_path):
    text = post(A_PRINTED)
    path = tmp_path / "post.md"
    path.write_text(text, encoding="utf-8")
    assert 20 <= len(text.splitlines()) <= 30
    return path, text


def verdicts(records) -> list:
    return sorted((c["source"], c["line"], c.get("column") or 0, c["printed"], c["verdict"]) for c in records)


def test_a_new_users_post_has_its_wrong_weight_diagnosed(one_wrong):
    path, text = one_wrong
    r = cli("check", str(path))
    assert r.returncode == 1, r.stderr + r.stdout
    assert "1 wrong" in r.stdout and "A = weights(Q, K)" in r.stdout   # the derivation is shown
    j = cli("check", "--json", str(path))
    assert j.returncode == 1, j.stderr
    d = json.loads(j.stdout)
    wrong = [c for c in d["claims"] if c["verdict"] == "wrong"]
    assert len(wrong) == 1, wrong
    w = wrong[0]
    assert w["line"] == line_of(text, "$$A =") and w["at"] == ["love", "I"]
    assert w["printed"] == A_PRINTED[1][0]
    assert abs(mpmath.mpf(w["exact"]) - A[1][0]) < mpmath.mpf(10) ** -15
    assert w["expected"] == p4(A[1][0])
    # every other printed number of Q, K, V, S, S', A and Z: checked and correct
    assert d["summary"]["claims"] == 6 * 3 + 9 * 3 + 6 and d["summary"]["correct"] == d["summary"]["claims"] - 1
    steps = {s["name"]: s["expr"] for s in d["inferred"][0]["steps"]}
    assert steps["Q"].endswith("@ W_Q") and steps["S"] == "Q @ K.T" and steps["Z"] == "A @ V"
    assert set(d["inferred"][0]["inputs"]) >= {"W_Q", "W_K", "W_V"}
    for c in d["claims"]:                        # the exact values are the truths of this file
        if c["step"] == "A":
            i, j2 = TOKENS.index(c["at"][0]), TOKENS.index(c["at"][1])
            assert abs(mpmath.mpf(c["exact"]) - A[i][j2]) < mpmath.mpf(10) ** -15


def test_the_inferred_spec_written_with_o_checks_with_the_same_verdicts(one_wrong, tmp_path):
    path, _ = one_wrong
    out = tmp_path / "spec.toml"
    first = cli("check", "--json", str(path), "-o", str(out))
    assert first.returncode == 1 and out.is_file(), first.stderr
    spec = tomllib.loads(out.read_text(encoding="utf-8"))
    assert spec["example"]["source"] == "post.md"
    assert {s["name"] for s in spec["steps"]} >= {"Q", "K", "V", "S", "A", "Z"}
    assert all("line" in s for s in spec["steps"]) and spec["inputs"]["W_Q"]["line"] == 11
    again = cli("check", "--json", str(out))
    assert again.returncode == 1, again.stderr
    assert verdicts(json.loads(again.stdout)["claims"]) == verdicts(json.loads(first.stdout)["claims"])
    assert cli("check", str(path), "-o", str(out)).returncode == 2     # never over a file


def test_the_html_report_of_an_article_shows_each_inferred_step(one_wrong, tmp_path):
    path, _ = one_wrong
    out = tmp_path / "report.html"
    r = cli("report", str(path), "-o", str(out))
    assert r.returncode == 1, r.stderr                 # as check: a wrong number
    html = out.read_text(encoding="utf-8")
    assert "<mo>softmax</mo>" in html                 # each step's formula, shown in MathML
    assert all(f"post: step {name}" in html for name in ("Q", "K", "V", "S", "A", "Z"))
    assert "0.1520" in html


def test_a_forgotten_scaling_is_diagnosed_on_the_whole_block(tmp_path):
    path = tmp_path / "noscale.md"
    path.write_text(post(printed(A_UNSCALED, p4), scaled_block=False, outputs=Z_UNSCALED), encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 1, r.stderr
    d = json.loads(r.stdout)
    weights = [c for c in d["claims"] if c["step"] == "A"]
    assert len(weights) == 9 and all(c["verdict"] == "wrong" for c in weights)
    assert all(any("1/√d_k missing" in x for x in c["diagnosis"]) for c in weights)
    for c in weights:                            # checked against the scaled softmax
        i, j = TOKENS.index(c["at"][0]), TOKENS.index(c["at"][1])
        assert abs(mpmath.mpf(c["exact"]) - A[i][j]) < mpmath.mpf(10) ** -15


def test_an_article_with_nothing_derivable_is_a_one_line_error(tmp_path):
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\n$$A = \\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}, \\quad "
                    "B = \\begin{bmatrix} 0.7 & 0.1 \\\\ 0.2 & 0.9 \\end{bmatrix}$$\n", encoding="utf-8")
    r = cli("check", str(path))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "no worked example found" in r.stderr and "Traceback" not in r.stderr
    assert f"{path}:1" in r.stderr


def test_an_article_with_no_numbers_is_a_one_line_error(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("Attention is all you need.\n", encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no block of numbers is printed" in r.stderr


def test_a_wrong_whole_number_of_a_product_is_diagnosed(tmp_path):
    x, w = [[F(1), F(2)], [F(3), F(1)], [F(0), F(2)]], [[F(2), F(1)], [F(1), F(3)]]
    q = mm(x, w)                                  # [[4, 7], [7, 6], [2, 6]]
    shown = printed(q, dec)
    shown[1][1] = dec(q[1][1] + 2)                # 6 printed as 8
    path = tmp_path / "ints.md"
    path.write_text(f"$$X = {bmatrix(printed(x, dec))}, \\quad W = {bmatrix(printed(w, dec))}$$\n\n"
                    f"$$Q = XW = {bmatrix(shown)}$$\n", encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 1, r.stderr
    wrong = [c for c in json.loads(r.stdout)["claims"] if c["verdict"] == "wrong"]
    assert [(c["printed"], c["expected"]) for c in wrong] == [("8", str(q[1][1]))]


def test_a_folder_of_articles_is_each_inferred(tmp_path):
    (tmp_path / "post.md").write_text(post(A_PRINTED), encoding="utf-8")
    (tmp_path / "noscale.md").write_text(post(printed(A_UNSCALED, p4), scaled_block=False,
                                              outputs=Z_UNSCALED), encoding="utf-8")
    (tmp_path / "notes.md").write_text("$$A = \\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}$$\n",
                                       encoding="utf-8")
    r = cli("check", "--json", str(tmp_path))
    assert r.returncode == 1, r.stderr
    d = json.loads(r.stdout)
    assert sorted(x["example"] for x in d["inferred"]) == ["noscale", "post"]
    assert d["summary"]["wrong"] == 1 + 9 + 6           # the wrong weight; the unscaled weights, their outputs
    assert "notes.md:1: no worked example found" in r.stderr and "(not checked)" in r.stderr


def test_the_search_ends_at_the_one_deadline(one_wrong):
    path, _ = one_wrong
    r = cli("check", "--timeout", "0.001", str(path))
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert "--timeout" in r.stderr


def cube(x):
    """x³ elementwise (a toy operation of this test)."""
    return x * x * x


def test_a_new_operation_joins_the_search_by_its_declaration_alone(tmp_path):
    from symattn.infer import infer
    from symattn.ops import OPERATIONS, register
    from symattn.ops.operation import Search, declare
    x = [[F(1, 2), F(3, 2)], [F(6, 5), F(-7, 10)]]
    cubed = [[v ** 3 for v in row] for row in x]          # 0.125, 3.375, 1.728, -0.343
    path = tmp_path / "cube.md"
    path.write_text(f"$$X = {bmatrix(printed(x, dec))}$$\n\n$$Y = {bmatrix(printed(cubed, dec))}$$\n",
                    encoding="utf-8")
    with pytest.raises(Exception, match="no worked example found"):
        infer([str(path)])
    register(declare("cube", cube, search=Search("n d -> n d")))
    try:
        (found,) = infer([str(path)])
    finally:
        OPERATIONS.pop("cube")
    spec = tomllib.loads(found.text)
    assert [(s["name"], s["expr"]) for s in spec["steps"]] == [("Y", "cube(X)")]


def test_parameters_read_from_the_text():
    assert stated(r"we take $\epsilon = 10^{-5}$", ("\\epsilon",)) == ["0.00001"]
    assert stated("eps=1e-6 then ε = 1 \\times 10^{-12}", ("eps", "ε")) == ["0.000000000001", "0.000001"]
    assert stated("a temperature T = 0.5", ("T",)) == ["0.5"]
    assert stated("Tokens = 4", ("T",)) == []                   # a word, not the symbol T
    assert roots(r"divided by $\sqrt{d_k} = \sqrt{2}$") == ["2"]


# ---- the development articles and the seeds (../shared, as beside a clone) -------------

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
# Each article's figures with no spec (benchmarks/infer.py): the key's numbers found with
# the key's verdict, at least; an article where nothing is inferred exits 2 (no example).
FLOORS = {
    "karim_illustrated_self_attention.md": 102,
    "raschka_llms_from_scratch_ch03_attention.ipynb": 244,
    "wangywust_lecture3_transformer.md": 233,
    "yangshiteng_multi_head_calculation.md": 36,
    "rezaei_transformers_math_positional_encoding.part1.ipynb": 65,
    "datawhale_happy_llm_positional_encoding.md": 32,
    "micwill755_layer_normalization.md": 128,      # the deviations a block, the mean alone in the prose (6.5)
    "raschka_llms_from_scratch_ch05_cross_entropy.ipynb": 9,
    "pytorch_forums_layernorm_biased_std.txt": 23,
    "pytorch_forums_cross_entropy_from_logits.txt": 6,
}


def _bench():
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_infer", ROOT / "benchmarks" / "infer.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(not (SHARED / "dev-articles").is_dir(), reason="../shared/dev-articles missing")
@pytest.mark.parametrize("name", sorted(FLOORS))
def test_dev_article_figures_and_the_written_spec(tmp_path, name):
    bench = _bench()
    keys = bench.dev_keys()
    files = next(f for f in keys if f[0].endswith(name))
    n = bench.score(files, keys[files], verbose=False)
    assert n["agree"] >= FLOORS[name] and n["false alarms"] == 0, n
    first = cli("check", "--json", *files, "-o", str(tmp_path / "spec.toml"))
    written = sorted(str(p) for p in tmp_path.glob("spec*.toml"))
    again = cli("check", "--json", *written)
    assert first.returncode == again.returncode, again.stderr
    assert verdicts(json.loads(again.stdout)["claims"]) == verdicts(json.loads(first.stdout)["claims"])


# The seeds' figures with no spec, against the bundled corpus's hand-written claims.
SEED_FLOORS = {"000_a092e4009a0e6c2f.txt": 205, "002_7b7c9657c1cd8eb2.txt": 145,
               "003_de90d9f4095cfd5d.txt": 444}


@pytest.fixture(scope="module")
def seed_keys():
    return _bench().seed_keys()


@pytest.mark.skipif(not (SHARED / "seeds").is_dir(), reason="../shared/seeds missing")
@pytest.mark.parametrize("name", sorted(SEED_FLOORS))
def test_seed_article_figures(seed_keys, name):
    bench = _bench()
    files = next(f for f in seed_keys if f[0].endswith(name))
    n = bench.score(files, seed_keys[files], verbose=False)
    assert n["agree"] >= SEED_FLOORS[name] and n["false alarms"] == 0, n
    assert n["flagged"] == n["incorrect"], n                 # every wrong number the key has
