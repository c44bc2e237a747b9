"""`symattn new --from ARTICLE`: a starting spec that `symattn check` loads.

Truths: the matrices are the decimals the test file (or the seed article) prints, read here
with ``Fraction``; the proposed steps are checked against products worked out by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from fractions import Fraction as F
from pathlib import Path

import nbformat
import pytest

from symattn.spec.load import load

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def new_from(tmp_path, article: str, name: str = "out.toml") -> tuple[Path, dict]:
    out = tmp_path / name
    r = cli("new", "--from", article, "-o", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text(encoding="utf-8")
    return out, tomllib.loads(text, parse_float=F)


def checks(out: Path) -> None:
    """check loads the spec and reads its source: a verdict on what the article prints, or,
    when the article prints no result of a step (or is not beside the spec), the one-line
    error that nothing was checked (exit 0 would say that every printed number is right)."""
    r = cli("check", str(out))
    nothing = ("no printed number was checked", "and the spec has no claims: nothing would be checked")
    assert r.returncode in (0, 1) or (r.returncode == 2 and r.stderr.count("\n") == 1 and
                                      any(n in r.stderr for n in nothing)), r.stderr + r.stdout


def values(entry) -> list:
    value = entry["value"] if isinstance(entry, dict) else entry
    return [[F(str(x)) for x in row] for row in value]


def exact(spec, name):
    return [[F(int(v.p), int(v.q)) for v in row] for row in spec.tensors[name].tolist()]


@pytest.mark.parametrize("seed", sorted(p.name for p in SEEDS.glob("*.txt")) if SEEDS.is_dir() else [])
def test_each_seed_gives_a_spec_that_check_loads(tmp_path, seed):
    out, spec = new_from(tmp_path, str(SEEDS / seed))
    assert spec["inputs"], "the seeds print matrices"
    checks(out)


@pytest.mark.skipif(not (SEEDS / "000_a092e4009a0e6c2f.txt").exists(), reason="seed 000 missing")
def test_seed_000_inputs_and_pipeline(tmp_path):
    out, spec = new_from(tmp_path, str(SEEDS / "000_a092e4009a0e6c2f.txt"))
    inputs = spec["inputs"]
    assert values(inputs["X"]) == [[F("1.0"), F("0.5")], [F("0.8"), F("1.2")], [F("1.5"), F("0.7")], [F("0.6"), F("1.8")]]
    assert inputs["X"]["line"] == 52 and inputs["X"]["rows"] == "tokens"
    assert spec["example"]["tokens"] == ["I", "love", "machine", "learning"]
    assert values(inputs["W_Q"]) == [[F("1.0"), F("0.2")], [F("0.1"), F("0.9")]] and inputs["W_Q"]["line"] == 76
    assert inputs["W_V"]["line"] == 88 and len(values(inputs["W_V"])[0]) == 3
    # inferred: the article prints Q, K and V as blocks (line 140), computed from X and the
    # weights; then the row of love worked in prose vectors: its scores over the keys, those
    # scaled by sqrt(2), their softmax, and that times V
    steps = spec["steps"]
    assert [s["name"] for s in steps[:3]] == ["Q", "K", "V"]
    assert [s["expr"] for s in steps[:3]] == ["X @ W_Q", "X @ W_K", "X @ W_V"]
    scores, scaled, weights, output = steps[3:7]
    assert scores["expr"] == "Q[1] @ K.T" and scaled["expr"] == f"{scores['name']} / sqrt(2)"
    assert weights["expr"] == f"softmax({scaled['name']})" and output["expr"] == f"{weights['name']} @ V"
    loaded = load(str(out))
    # the article's own Q row for love: 0.8*1.0 + 1.2*0.1 = 0.92, 0.8*0.2 + 1.2*0.9 = 1.24
    assert exact(loaded, "Q")[1] == [F("0.92"), F("1.24")]
    x, w_k = values(inputs["X"]), values(inputs["W_K"])
    keys = [[sum(r[k] * w_k[k][j] for k in range(2)) for j in range(2)] for r in x]
    assert exact(loaded, scores["name"]) == [[F("0.92") * k[0] + F("1.24") * k[1] for k in keys]]
    text = out.read_text(encoding="utf-8")
    assert '# name = "S"\n# expr = "Q @ K.T"' in text and '# expr = "softmax(S_scaled)"' in text
    # the multi-head section restates love's output (rounded) as head 1, beside heads 2 and 3
    # as the text gives them; concatenated, then times W_O: a step, not an input
    assert '\nexpr = "concat(' + output["name"] + ', ' in text and '\nexpr = "z_concat @ W_O"' in text
    assert 'z_final = {' not in text
    checks(out)


MARKDOWN = r"""# Attention with LayerNorm

The embeddings:

| token | d1 | d2 |
|---|---|---|
| cat | 1 | 0 |
| sat | 0.5 | -1 |

$$
W_Q = \begin{bmatrix} 1 & 0 \\ 0 & 2 \end{bmatrix}, \quad
W_K = \begin{bmatrix} 0.5 & 0 \\ 0 & 1 \end{bmatrix}, \quad
W_V = \begin{pmatrix} 1 & 1 \\ 0 & 1 \end{pmatrix}
$$

Then we apply layer normalization (LayerNorm) to the residual.
"""


def test_markdown_table_and_matrices(tmp_path):
    article = tmp_path / "post.md"
    article.write_text(MARKDOWN, encoding="utf-8")
    out, spec = new_from(tmp_path, str(article))
    inputs = spec["inputs"]
    assert values(inputs["X"]) == [[F(1), F(0)], [F("0.5"), F(-1)]] and inputs["X"]["line"] == 7
    assert spec["example"]["tokens"] == ["cat", "sat"]
    assert values(inputs["W_K"]) == [[F("0.5"), F(0)], [F(0), F(1)]] and inputs["W_K"]["line"] == 12
    assert inputs["W_V"]["line"] == 13
    loaded = load(str(out))
    assert exact(loaded, "Q") == [[F(1), F(0)], [F("0.5"), F(-2)]]         # X @ [[1,0],[0,2]]
    assert exact(loaded, "S") == [[F("0.5"), F("0.25")], [F("0.25"), F("2.125")]]  # Q @ (X @ W_K).T
    text = out.read_text(encoding="utf-8")
    assert '# expr = "layer_norm(added)"' in text                # words say LayerNorm: proposed
    assert "ffn(" not in text                                    # they do not say FFN
    checks(out)


def test_notebook_code_and_outputs(tmp_path):
    v4 = nbformat.v4
    nb = v4.new_notebook(cells=[
        v4.new_markdown_cell("# Self-attention in PyTorch"),
        v4.new_code_cell("X = torch.tensor([[1.0, 0.5],\n                  [0.8, 1.2]])\n"
                         "W_Q = np.array([[1.0, 0.2], [0.1, 0.9]])\nW_K = [[0.6, 0.1], [-0.3, 1.0]]\n"
                         "W_V = torch.tensor([[1.2, 0.0], [-0.2, 0.8]])\nprint(X @ W_Q)",
                         outputs=[v4.new_output("stream", name="stdout",
                                                text="tensor([[1.0500, 0.6500],\n        [0.9200, 1.2400]])\n")]),
        v4.new_code_cell("Q", outputs=[v4.new_output(     # one digit off: not Q's result
            "execute_result", data={"text/plain": "tensor([[1.0500, 0.6500],\n        [0.9300, 1.2400]])"},
            execution_count=2)]),
    ])
    article = tmp_path / "nb.ipynb"
    article.write_text(nbformat.writes(nb), encoding="utf-8")
    out, spec = new_from(tmp_path, str(article))
    inputs = spec["inputs"]
    assert values(inputs["X"]) == [[F("1.0"), F("0.5")], [F("0.8"), F("1.2")]] and inputs["X"]["line"] == 2001
    assert inputs["W_Q"]["line"] == 2003
    assert set(inputs) == {"X", "W_Q"}             # what the computed printout is computed from
    # the printout of X @ W_Q is that step (1.0*1.0 + 0.5*0.1 = 1.05, ...), not an input; the
    # second printout, one digit off, prints the same step again: no step of its own
    assert [(s["expr"], s["line"]) for s in spec["steps"]] == [("X @ W_Q", 2501)]
    step = spec["steps"][0]["name"]
    assert exact(load(str(out)), step) == [[F("1.05"), F("0.65")], [F("0.92"), F("1.24")]]
    r = cli("check", "--json", str(out))
    assert r.returncode == 1                         # 0.9300 (its second row) is a wrong print of it
    wrong = [c for c in json.loads(r.stdout)["claims"] if c["verdict"] == "wrong"]
    assert [(c["line"], c["printed"]) for c in wrong] == [(3502, "0.9300")]


HTML = """<html><head><title>Attention 9.9</title></head><body>
<h1>Attention</h1>
<table>
<tr><th>token</th><th>x1</th><th>x2</th></tr>
<tr><td>I</td><td>1.0</td><td>0.5</td></tr>
<tr><td>love</td><td>0.8</td><td>1.2</td></tr>
</table>
<p>\\[ W_Q = \\begin{bmatrix} 1.0 &amp; 0.2 \\\\ 0.1 &amp; 0.9 \\end{bmatrix} \\]</p>
<p>\\[ W_K = \\begin{bmatrix} 0.6 &amp; 0.1 \\\\ -0.3 &amp; 1.0 \\end{bmatrix} \\]</p>
<script>var W_V = [[9, 9], [9, 9]];</script>
</body></html>
"""


def test_html_table_and_mathjax(tmp_path):
    article = tmp_path / "page.html"
    article.write_text(HTML, encoding="utf-8")
    out, spec = new_from(tmp_path, str(article))
    inputs = spec["inputs"]
    assert values(inputs["X"]) == [[F("1.0"), F("0.5")], [F("0.8"), F("1.2")]] and inputs["X"]["line"] == 5
    assert values(inputs["W_K"]) == [[F("0.6"), F("0.1")], [F("-0.3"), F("1.0")]] and inputs["W_K"]["line"] == 9
    assert "W_V" not in inputs                                   # a script is not the article
    names = [s["name"] for s in spec["steps"]]
    assert names[:2] == ["Q", "K"] and "V" not in names
    assert next(s for s in spec["steps"] if s["name"] == "Z")["expr"] == "A @ X"   # no W_V: X itself
    assert load(str(out)).tensors["Z"].shape == (2, 2)
    checks(out)


def test_without_matrices_the_spec_still_loads(tmp_path):
    article = tmp_path / "words.txt"
    article.write_text("Attention is a weighted average. 2017.\n", encoding="utf-8")
    out, spec = new_from(tmp_path, str(article))
    assert spec.get("inputs", {}) == {} and "steps" not in spec
    assert "no matrix to start from" in out.read_text(encoding="utf-8")
    checks(out)


def test_no_overwrite_without_force_and_stdout(tmp_path):
    article = tmp_path / "a.md"
    article.write_text(MARKDOWN, encoding="utf-8")
    out = tmp_path / "mine.toml"
    out.write_text("mine", encoding="utf-8")
    r = cli("new", "--from", str(article), "-o", str(out))
    assert r.returncode == 2 and "exists" in r.stderr and r.stderr.count("\n") == 1
    assert out.read_text(encoding="utf-8") == "mine"
    r = cli("new", "--from", str(article), "-o", str(out), "--force")
    assert r.returncode == 0 and "[inputs]" in out.read_text(encoding="utf-8")
    r = cli("new", "--from", str(article))
    assert r.returncode == 0 and r.stdout == out.read_text(encoding="utf-8")


def test_the_docs_example_runs_as_shown(tmp_path):
    import re
    text = (ROOT / "docs" / "articles.md").read_text(encoding="utf-8")
    block = re.search(r"## A starting spec from an article\n+```sh\n(.*?)```", text, re.S).group(1)
    r = subprocess.run(["bash", "-e", "-c", block.replace("symattn ", f"{sys.executable} -m symattn ")],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    spec = tomllib.loads((tmp_path / "post.toml").read_text(encoding="utf-8"), parse_float=F)
    assert values(spec["inputs"]["X"]) == [[F("1.0"), F("0.5")], [F("0.8"), F("1.2")]]


def test_printouts_lists_and_labelled_vectors(tmp_path):
    from symattn.article.matrices import find
    from symattn.article.read import read_article
    article = tmp_path / "forum.txt"
    article.write_text(
        "Out[2]:\n"
        "tensor([[ 0.4419, -0.6515],\n"
        "        [ 1.0000e+00, -0.]])\n"
        "cat = [1, 0]\n"
        "sat = [0.5, −1]\n"
        "\n"
        "token\tQ\tK\n"
        "`I`\t[1.05, 0.65]\t[0.45, 0.60]\n"
        "`love`\t[0.92, 1.24]\t[0.12, 1.28]\n", encoding="utf-8")
    found = {(p.name, p.line): (p.values, p.rows) for p in find(read_article(str(article)))}
    assert found[("", 2)] == (((F("0.4419"), F("-0.6515")), (F(1), F(0))), None)
    assert found[("", 4)] == (((F(1), F(0)), (F("0.5"), F(-1))), ("cat", "sat"))
    assert found[("Q", 8)] == (((F("1.05"), F("0.65")), (F("0.92"), F("1.24"))), ("I", "love"))
    assert found[("K", 8)][0] == ((F("0.45"), F("0.6")), (F("0.12"), F("1.28")))
    assert len(found) == 4


def test_a_table_is_named_by_its_caption(tmp_path):
    from symattn.article.matrices import find
    from symattn.article.read import read_article
    article = tmp_path / "notes.md"
    article.write_text("Embeddings H:\n\n| I | 1 | 2 |\n|---|---|---|\n| love | 3 | 4.5 |\n\n"
                       "重み W_O：\n\n| 0.5 | 0 |\n|---|---|\n| 0 | 0.5 |\n", encoding="utf-8")
    found = [(p.name, p.line, p.values, p.rows) for p in find(read_article(str(article)))]
    assert found == [("H", 3, ((F(1), F(2)), (F(3), F("4.5"))), ("I", "love")),
                     ("W_O", 9, ((F("0.5"), F(0)), (F(0), F("0.5"))), None)]


def test_steps_whose_shapes_do_not_fit_are_comments(tmp_path):
    article = tmp_path / "shapes.md"
    article.write_text("| t | a | b |\n|---|---|---|\n| x | 1 | 0 |\n| y | 0 | 1 |\n\n"
                       "W_Q = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}\n"
                       "W_K = \\begin{bmatrix} 2 & 0 & 1 \\\\ 0 & 1 & 1 \\end{bmatrix}\n", encoding="utf-8")
    out, spec = new_from(tmp_path, str(article))
    assert [s["name"] for s in spec["steps"]] == ["Q", "K"]      # Q·Kᵀ needs 2 = 3: not proposed
    assert "# the shapes do not fit (X 2×2, W_Q 2×2, W_K 2×3)" in out.read_text(encoding="utf-8")
    checks(out)
