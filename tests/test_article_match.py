"""Reading the article: numbers found at their line and column, assigned to the entry
they print, and checked as hand-written claims are.

The corpus test removes every [[claims]] table from copies of examples/, points
`check --article` at the three seed articles and compares with the hand-written corpus
(its records are the truth here: each was typed from the article by hand)."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from symattn.article.source import Line
from symattn.article.tokens import numbers_in
from symattn.article.groups import groups_of

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"
needs_seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason="../shared/seeds is not beside the repo")


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True,
                          text=True, cwd=cwd)


# -- the tokenizer --------------------------------------------------------------------
@pytest.mark.parametrize("text, want", [
    ("= [0.92,\\ 1.24]", [("0.92", "23/25"), ("1.24", "31/25")]),
    ("−0.5 and －０．２５", [("-0.5", "-1/2"), ("-0.25", "-1/4")]),
    ("tensor([[0.4419, 1.0000e+00]])", [("0.4419", "4419/10000"), ("1.0000e+00", "1")]),
    (r"$1.2 \times 10^{-3}$", [("1.2e-3", "3/2500")]),
    ("6.3379e-02", [("6.3379e-02", "63379/1000000")]),
    ("357,911 rows", [("357911", "357911")]),
    ("約59%、21％ずつ", [("59%", "59"), ("21%", "21")]),
    ("e^{0.8188}", [("0.8188", "2047/2500")]),
    ("[1., -0.]", [("1", "1"), ("-0", "0")]),
    ("1×1 + 3-4 = 0", [("1", "1"), ("1", "1"), ("3", "3"), ("4", "4"), ("0", "0")]),
])
def test_numbers_as_printed(text, want):
    got = [(n.printed, n.value) for n in numbers_in(Line(1, text))]
    assert got == [(p, Fraction(v)) for p, v in want]


@pytest.mark.parametrize("text", ["W_1 x2 d_{k} x^2 #245b97", "Step 4: Softmax", "3. なぜ",
                                  "§3.5 Positional Encoding", "第5章", "PyTorch 2.1.0",
                                  "see Figure 3.2 and Eq. (4)"])
def test_not_numbers_of_the_computation(text):
    assert numbers_in(Line(1, text)) == []


def test_columns_are_the_source_columns():
    line = Line(3, "Q = [0.92, −1.24]")
    assert [(n.column, n.line) for n in numbers_in(line)] == [(6, 3), (12, 3)]


BLOG = """# Attention by hand (2024 edition)

We use three tokens, *the*, *cat*, *sat*, with 2-dimensional embeddings:

| token | x1 | x2 |
|-------|----|----|
| the   | 1.0 | 0.0 |
| cat   | 0.0 | 1.0 |
| sat   | 1.0 | 1.0 |

Scale by $1/\\sqrt{d_k}$ with $d_k = 2$: for *sat* the scores are $[0.7071, 0.7071, 1.4142]$.

The output for *sat* is $0.2483 \\cdot [1, 0] + 0.2483 \\cdot [0, 1] + 0.5035 \\cdot [1, 1] = [0.7518, 0.7518]$.
"""

BLOG_SPEC = """
[example]
id = "blog"
source = "post.md"
tokens = ["the", "cat", "sat"]

[inputs]
X = { value = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], rows = "tokens" }

[[steps]]
name = "S"
expr = "X @ X.T / sqrt(2)"

[[steps]]
name = "A"
expr = "softmax(S)"

[[steps]]
name = "Z"
expr = "A @ X"
"""


def test_inputs_dimensions_and_factors_are_not_claims_and_a_carried_row_keeps_its_order(tmp_path):
    # truths: softmax([1, 1, 2] / sqrt 2) = [0.24826, 0.24826, 0.50349]; Z[sat] = 0.75174 each,
    # while the printed weights carried give 0.2483 + 0.5035 = 0.7518
    import mpmath
    e = [mpmath.e ** (mpmath.mpf(k) / mpmath.sqrt(2)) for k in (1, 1, 2)]
    z = (e[0] + e[2]) / sum(e)
    assert mpmath.nstr(z, 4) == "0.7517" and Fraction("0.2483") + Fraction("0.5035") == Fraction("0.7518")
    (tmp_path / "post.md").write_text(BLOG, encoding="utf-8")
    (tmp_path / "post.toml").write_text(BLOG_SPEC, encoding="utf-8")
    out = json.loads(cli("check", "post.toml", "--article", "post.md", "--json", cwd=tmp_path).stdout)
    got = [(c["line"], c["step"], c["at"], c["printed"], c["verdict"]) for c in out["claims"]]
    assert not [g for g in got if g[0] in (3, 7, 8, 9)]          # the dimension, the inputs' table
    assert not [g for g in got if g[0] == 11 and g[3] == "2"]     # d_k = 2
    assert (11, "S", ["sat", "sat"], "1.4142", "correct") in got
    assert [g for g in got if g[0] == 13 and g[1] == "Z"] == [
        (13, "Z", ["sat", "0"], "0.7518", "carried"), (13, "Z", ["sat", "1"], "0.7518", "carried")]
    assert not [g for g in got if g[0] == 13 and g[1] not in ("A", "Z")]   # [1, 0] … are X's rows


def test_approximately_marks_a_rounded_value():
    got = [(n.printed, n.approximate) for n in numbers_in(Line(1, r"≈ 1, 約 [0.5, 2] and = 3, about 0.67"))]
    # the mark before a bracket covers the block; a whole number after it is printed ≈1
    # (its claim is a rounding, not exactly 1)
    assert got == [("≈1", True), ("0.5", True), ("≈2", True), ("3", False), ("0.67", True)]


def test_a_percent_glued_to_its_label_is_read():
    assert [n.printed for n in numbers_in(Line(1, "The19.9% cat40.3% x2"))] == ["19.9%", "40.3%"]


def test_glued_table_text_splits_label_index_and_value():
    got = [n.printed for n in numbers_in(Line(1, "成分1-1.2624成分21.27成分30.626"))]
    assert got == ["-1.2624", "1.27", "0.626"]


def test_groups_rows_of_a_matrix_over_lines():
    lines = [Line(1, r"W = \begin{bmatrix}"), Line(2, r"1.0 & 0.2 \\"), Line(3, r"0.1 & 0.9"),
             Line(4, r"\end{bmatrix}"), Line(5, "tensor([[0.5, 0.25],"), Line(6, "        [1., 2.]])")]
    rows = [[[n.printed for n in r] for r in g.rows] for g in groups_of(lines)]
    assert rows == [[["1.0", "0.2"], ["0.1", "0.9"]], [["0.5", "0.25"], ["1", "2"]]]


# -- matching on a small article ----------------------------------------------------------
SPEC = """
[example]
id = "tiny"
source = "tiny.md"

[inputs]
X = { value = [[1.0, 0.0], [0.5, 2.0]], rows = ["cat", "dog"] }

[[steps]]
name = "S"
expr = "X @ X.T"

[[steps]]
name = "A"
expr = "softmax(S)"
"""

ARTICLE = """# A tiny example (2024)

The inputs are $x_{cat} = [1.0, 0.0]$ and $x_{dog} = [0.5, 2.0]$, so d = 2.

Scores: S = [[1, 0.5], [0.5, 4.25]]

Weights of cat: [0.6225, 0.3775]. Weights of dog: [0.0230, 0.9771].
"""


def test_check_article_finds_verdicts_and_leaves_non_claims(tmp_path):
    # truths: softmax([1, 0.5]) = [1/(1+e^-0.5), ...]; softmax([0.5, 4.25]) from mpmath
    import mpmath
    mpmath.mp.dps = 30
    w = [1 / (1 + mpmath.e ** (-0.5)), 1 / (1 + mpmath.e ** 0.5)]
    v = [1 / (1 + mpmath.e ** 3.75), 1 / (1 + mpmath.e ** -3.75)]
    assert (mpmath.nstr(w[0], 4), mpmath.nstr(v[0], 3), mpmath.nstr(v[1], 4)) == ("0.6225", "0.023", "0.977")
    assert abs(v[1] - mpmath.mpf("0.9770")) < mpmath.mpf("0.00005")
    (tmp_path / "tiny.toml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "tiny.md").write_text(ARTICLE, encoding="utf-8")
    r = cli("check", "tiny.toml", "--article", "tiny.md", "--json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    got = {(c["line"], c["printed"]): (c["step"], c["verdict"]) for c in out["claims"]}
    assert got[(5, "0.5")] == ("S", "correct") and got[(5, "4.25")] == ("S", "correct")
    assert got[(7, "0.6225")] == ("A", "correct") and got[(7, "0.3775")] == ("A", "correct")
    assert got[(7, "0.0230")] == ("A", "correct")
    assert got[(7, "0.9771")] == ("A", "wrong")           # 0.97702…: a near miss in its row
    assert all(c["found"] and c["column"] >= 1 for c in out["claims"])
    assert not any(c["line"] in (1, 3) for c in out["claims"])   # a year, the inputs, d = 2
    assert out["summary"]["wrong"] == 1


def test_hand_written_claim_on_a_line_that_does_not_print_it(tmp_path):
    (tmp_path / "tiny.toml").write_text(SPEC + '\n[[claims]]\nstep = "S"\nat = ["cat", "cat"]\n'
                                        'printed = "1"\nline = 7\n', encoding="utf-8")
    (tmp_path / "tiny.md").write_text(ARTICLE, encoding="utf-8")
    r = cli("check", "tiny.toml", "--article", "tiny.md", cwd=tmp_path)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1
    assert "tiny.toml:" in r.stderr and "line 7" in r.stderr


def test_scan_writes_claims_that_check_reads(tmp_path):
    (tmp_path / "tiny.toml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "tiny.md").write_text(ARTICLE, encoding="utf-8")
    r = cli("scan", "tiny.toml", "--article", "tiny.md", "-o", "out.toml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    again = cli("scan", "tiny.toml", "--article", "tiny.md", "-o", "out.toml", cwd=tmp_path)
    assert again.returncode == 2                               # no overwrite without --force
    a = json.loads(cli("check", "out.toml", "--json", cwd=tmp_path).stdout)
    b = json.loads(cli("check", "tiny.toml", "--article", "tiny.md", "--json", cwd=tmp_path).stdout)
    key = lambda c: (c["line"], c["printed"], c["verdict"], c["exact"])
    assert sorted(map(key, a["claims"])) == sorted(map(key, b["claims"]))


# -- the corpus -----------------------------------------------------------------------------
def _without_claims(src: Path, dst: Path):
    text = src.read_text(encoding="utf-8")
    cut = re.search(r"^\[\[claims\]\]", text, re.M)
    dst.write_text(text[:cut.start()] if cut else text, encoding="utf-8")


@needs_seeds
def test_corpus_found_in_the_articles(tmp_path):
    """Issue 10's measure: the checklist's 972 printed numbers (../shared/seeds/
    printed-numbers.tsv), found at their line with the exact value and verdict of the
    hand-written corpus, by `check --article` on the corpus without its claims."""
    hand = json.loads(cli("check", "--json").stdout)["claims"]
    for p in sorted((ROOT / "examples").glob("*.toml")):
        _without_claims(p, tmp_path / p.name)
    arts = [str(SEEDS / n) for n in sorted({c["source"] for c in hand})]
    r = cli("check", str(tmp_path), *[a for p in arts for a in ("--article", p)], "--json")
    assert r.returncode in (0, 1), r.stderr
    out = json.loads(r.stdout)
    found = out["claims"] + out.get("restated", [])      # a wrong number printed again is found too

    def value(c):
        t = c["printed"].replace("−", "-").replace(",", "").strip("≈~ %％")
        return t if "∞" in t else Fraction(t)

    by_number = {}
    for h in hand:
        by_number.setdefault((h["source"], h["line"], value(h)), []).append(h)
    pool = Counter((c["source"], c["line"], value(c), c["exact"], c["verdict"]) for c in found)
    rows = list(csv.DictReader((SEEDS / "printed-numbers.tsv").open(encoding="utf-8"), delimiter="\t"))
    same = 0
    for row in rows:
        for h in by_number.get((row["article"], int(row["line"]), value(row)), []):
            k = (h["source"], h["line"], value(h), h["exact"], h["verdict"])
            if pool[k] > 0:
                pool[k] -= 1
                same += 1
                break
    assert len(rows) == 972
    print(f"corpus without claims: {same}/972 found with the hand-written verdict")
    assert same >= 953, same                 # 98% of 972; measured 956 when this was written
    # issue 20's measure: the hand-written corpus's 976 records, each found at its line with
    # its verdict, its 14 that are not correct among them (measured 965 and 14)
    records = Counter((c["source"], c["line"], value(c), c["verdict"]) for c in found)
    kept = []
    for h in hand:
        k = (h["source"], h["line"], value(h), h["verdict"])
        if records[k] > 0:
            records[k] -= 1
            kept.append(h)
    assert len(hand) == 976 and len(kept) >= 963, len(kept)
    assert sum(h["verdict"] != "correct" for h in kept) == sum(h["verdict"] != "correct" for h in hand) == 14
    # numbers of the checklist found only on entries of another value than the hand-written
    # corpus's (both round to the print: "1" for an entry 1 where the corpus means 0.99999)
    exacts, checklist = {}, Counter((r["article"], int(r["line"]), value(r)) for r in rows)
    for h in hand:
        exacts.setdefault((h["source"], h["line"], value(h)), set()).add(h["exact"])
    at = {}
    for c in found:
        at.setdefault((c["source"], c["line"], value(c)), []).append(c["exact"])
    other = 0
    for k, n in checklist.items():
        good = sum(e in exacts.get(k, ()) for e in at.get(k, []))
        other += min(max(0, n - good), sum(e not in exacts.get(k, ()) for e in at.get(k, [])))
    assert other <= 4, other                 # measured 4 when this was written
    # no wrong number that the hand-written corpus does not have
    hand_wrong = {(h["source"], h["line"], h["printed"]) for h in hand if h["verdict"] == "wrong"}
    assert {(c["source"], c["line"], c["printed"]) for c in found if c["verdict"] == "wrong"} <= hand_wrong


def test_notebook_outputs_are_claims_and_program_text_is_not(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("Tokens *the*, *cat*, *sat*."),
                nbformat.v4.new_code_cell("X = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])\n"
                                          "A = (X @ X.T / 2**0.5).softmax(-1)\nA")]
    # truths from mpmath: softmax of [1, 1, 2] / sqrt(2) and of [1, 0, 1] / sqrt(2)
    import mpmath
    r = mpmath.sqrt(2)
    sat = [mpmath.e ** (k / r) for k in (1, 1, 2)]
    the = [mpmath.e ** (k / r) for k in (1, 0, 1)]
    shown = [[mpmath.nstr(x / sum(the), 4) for x in the], [mpmath.nstr(x / sum(sat), 4) for x in sat]]
    assert shown == [["0.4011", "0.1978", "0.4011"], ["0.2483", "0.2483", "0.5035"]]
    text = "tensor([[0.4011, 0.1978, 0.4011],\n        [0.2483, 0.2483, 0.5036]])"
    nb.cells[1].outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": text},
                                                  execution_count=1)]
    nbformat.write(nb, str(tmp_path / "nb.ipynb"))
    (tmp_path / "nb.toml").write_text(BLOG_SPEC.replace('"post.md"', '"nb.ipynb"'), encoding="utf-8")
    out = json.loads(cli("check", "nb.toml", "--article", "nb.ipynb", "--json", cwd=tmp_path).stdout)
    got = [(c["line"], c["at"], c["printed"], c["verdict"]) for c in out["claims"]]
    assert all(line > 2500 for line, *_ in got)           # outputs only; cell 2's source is a program
    assert (2502, ["sat", "sat"], "0.5036", "wrong") in got and len(got) == 6


def test_html_text_tables_and_scripts(tmp_path):
    page = ("<html><head><script>var w = [0.4011, 0.1978];</script></head><body>\n"
            "<p>The weights of <em>the</em> are <code>[0.4011, 0.1978, 0.4011]</code>.</p>\n"
            "<table><tr><th>token</th><th>the</th><th>cat</th><th>sat</th></tr>\n"
            "<tr><td>sat</td><td>0.2483</td><td>0.2483</td><td>0.5035</td></tr></table></body></html>\n")
    (tmp_path / "p.html").write_text(page, encoding="utf-8")
    (tmp_path / "p.toml").write_text(BLOG_SPEC.replace('"post.md"', '"p.html"'), encoding="utf-8")
    out = json.loads(cli("check", "p.toml", "--article", "p.html", "--json", cwd=tmp_path).stdout)
    got = sorted((c["line"], c["column"], c["printed"], c["verdict"]) for c in out["claims"])
    assert [g[0] for g in got] == [2, 2, 2, 4, 4, 4]         # nothing from the script
    assert all(g[3] == "correct" for g in got)
    assert page.split("\n")[1][got[0][1] - 1:].startswith("0.4011")    # the source column


def test_a_line_of_a_million_digits_is_one_error_line(tmp_path):
    (tmp_path / "post.md").write_text("intro\n" + "1" * 1_000_000 + "\n", encoding="utf-8")
    (tmp_path / "post.toml").write_text(BLOG_SPEC, encoding="utf-8")
    r = cli("check", "post.toml", "--article", "post.md", cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("symattn: post.md:2: ")


ERR = """# Attention with a mistake

Queries and keys: $q = [1, 0]$, $K = \\\\begin{bmatrix} 1 & 0 \\\\\\\\ 0 & 1 \\\\end{bmatrix}$, $d_k = 2$.

Scores $s = qK^\\\\top = [1, 0]$; scaled: $[0.7071, 0]$.

Weights: $\\\\mathrm{softmax} = [0.7311, 0.2689]$.

The model has 12 heads and 0.7311 of them are shown.
"""

ERR_SPEC = """
[example]
id = "err"
source = "err.md"

[inputs]
q = { value = [[1, 0]] }
K = { value = [[1, 0], [0, 1]] }

[[steps]]
name = "s"
expr = "q @ K.T"

[[steps]]
name = "scaled"
expr = "s / sqrt(2)"

[[steps]]
name = "w"
expr = "softmax(scaled)"
"""


def test_a_row_printed_wrong_throughout_is_flagged_when_a_mistake_reproduces_it(tmp_path):
    # truths: softmax([1, 0]) = [e/(e+1), 1/(e+1)] = [0.7311, 0.2689] (the scaling forgotten);
    # softmax([1/sqrt 2, 0]) = [0.6698, 0.3302]
    import mpmath
    e = mpmath.e
    assert mpmath.nstr(e / (e + 1), 4) == "0.7311" and mpmath.nstr(1 / (e + 1), 4) == "0.2689"
    r2 = mpmath.e ** (1 / mpmath.sqrt(2))
    assert mpmath.nstr(r2 / (r2 + 1), 4) == "0.6698"
    (tmp_path / "err.md").write_text(ERR, encoding="utf-8")
    (tmp_path / "err.toml").write_text(ERR_SPEC, encoding="utf-8")
    r = cli("check", "err.toml", "--article", "err.md", "--json", cwd=tmp_path)
    assert r.returncode == 1
    out = json.loads(r.stdout)
    wrong = [(c["line"], c["at"], c["printed"]) for c in out["claims"] if c["verdict"] == "wrong"]
    assert wrong == [(7, ["0", "0"], "0.7311"), (7, ["0", "1"], "0.2689")]
    assert all("scaling" in " ".join(c["diagnosis"]) for c in out["claims"] if c["verdict"] == "wrong")
    # the lone restatement on line 9 and the 12 heads get no verdict
    assert not [c for c in out["claims"] if c["line"] == 9]


@needs_seeds
def test_specs_of_other_articles_keep_their_hand_written_claims(tmp_path):
    # all bundled specs, one article: the others are checked as they are, no error
    r = cli("check", str(ROOT / "examples"), "--article", str(SEEDS / "002_7b7c9657c1cd8eb2.txt"),
            "--json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    hand = json.loads(cli("check", "--json").stdout)
    other = lambda d: sorted((c["example"], c["line"], c["printed"]) for c in d["claims"]
                             if not c["source"].startswith("002"))
    assert other(out) == other(hand)
    assert all(u["article"] == "002_7b7c9657c1cd8eb2.txt" for u in out["unmatched"])


def test_a_minified_html_line_read_as_several_lines(tmp_path):
    page = ("<html><body><p>Weights of <em>the</em>: [0.4011, 0.1978, 0.4011]</p><table><tr><td>sat</td>"
            "<td>0.2483</td><td>0.2483</td><td>0.5035</td></tr></table></body></html>\n")
    (tmp_path / "p.html").write_text(page, encoding="utf-8")
    spec = BLOG_SPEC.replace('"post.md"', '"p.html"') + (
        '\n[[claims]]\nstep = "A"\nat = "sat"\nprinted = "[0.2483, 0.2483, 0.5035]"\nline = 1\n')
    (tmp_path / "p.toml").write_text(spec, encoding="utf-8")
    r = cli("check", "p.toml", "--article", "p.html", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = sorted((c["at"][0], c["printed"], c.get("found", False)) for c in json.loads(r.stdout)["claims"])
    assert got == [("sat", "0.2483", False), ("sat", "0.2483", False), ("sat", "0.5035", False),
                   ("the", "0.1978", True), ("the", "0.4011", True), ("the", "0.4011", True)]
