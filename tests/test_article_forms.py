"""Every printed form a reader reads, and the numbers that print nothing (issue 20).

Truths are typed here: the value a form prints (a Fraction or Decimal written by hand), the
index of a number in a printout, the verdict a claim must get from values worked out with
fractions and mpmath (never from symattn's own evaluation).
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction

import mpmath
import nbformat
import pytest

from symattn.article import html, latex, markdown, notebook, text
from symattn.article.code import program as _program
from symattn.article.groups import groups_of
from symattn.article.source import Line
from symattn.article.tokens import numbers_in
from symattn.claims.printed import parse_number, parse_printed


def printed(lines) -> list[tuple[str, Fraction]]:
    return [(n.printed, n.value) for ln in lines for n in numbers_in(ln)]


def rows(lines) -> list:
    return [[[None if n is None else n.value for n in r] for r in g.rows] for g in groups_of(lines)]


# -- scientific notation --------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "lr = 2.56e-4", "lr = 2.56·10⁻⁴", "lr = 2.56⋅10⁻⁴", "lr = 2.56 x 10^-4", "lr = 2.56 × 10^{-4}",
    r"lr = $2.56\times10^{-4}$", "lr = 2.56 * 10 ** -4", "lr = 2.56×10^{−4}",
])
def test_scientific_notation_in_every_form(line):
    got = numbers_in(Line(1, line))
    assert [n.value for n in got] == [Fraction(Decimal("0.000256"))]
    assert parse_number(got[0].printed).digits == 3 and got[0].printed == "2.56e-4"


def test_scientific_notation_in_html_keeps_the_sup():
    page = ("<p>the rate is 2.56&times;10<sup>&minus;4</sup> here</p>\n"
            "<p>and 3.1&times;10<sup>2</sup>, with d<sub>k</sub> = 2</p>\n")
    lines = html.read(page)
    assert printed(lines) == [("2.56e-4", Fraction(256, 10 ** 6)), ("3.1e2", Fraction(310)),
                              ("2", Fraction(2))]
    (n,) = [n for n in numbers_in(lines[0])]
    assert n.column == page.index("2.56") + 1


@pytest.mark.parametrize("line, value", [
    ("ε = 10^{-5}", Fraction(1, 10 ** 5)), ("ε = 10⁻⁵", Fraction(1, 10 ** 5)),
    ("ε = 10^-12", Fraction(1, 10 ** 12)),
])
def test_a_power_of_ten_alone_is_its_value(line, value):
    assert [n.value for n in numbers_in(Line(1, line))] == [value]


# -- fractions ----------------------------------------------------------------------
@pytest.mark.parametrize("line, value", [
    (r"w = \frac{1}{3}", Fraction(1, 3)), (r"w = \tfrac{1}{2}", Fraction(1, 2)),
    (r"w = \dfrac{2}{3}", Fraction(2, 3)), (r"w = \tfrac12", Fraction(1, 2)),
    ("each weight is 1/3", Fraction(1, 3)), (r"w = -\frac{1}{4}", Fraction(-1, 4)),
    ("each weight is 1/2.", Fraction(1, 2)),
])
def test_a_fraction_is_one_exact_number(line, value):
    got = numbers_in(Line(1, line))
    assert [n.value for n in got] == [value]
    p = parse_number(got[0].printed)
    assert p.fraction and p.value == value and not p.integer


def test_fraction_entries_of_a_vector_are_its_entries():
    lines = [Line(1, r"A = [\tfrac{1}{2}, \tfrac{1}{2}, 0]")]
    assert rows(lines) == [[[Fraction(1, 2), Fraction(1, 2), Fraction(0)]]]


@pytest.mark.parametrize("line", ["Step 1/3: the scores", "on 12/25/2024", r"10000^{2/4}",
                                  r"\frac{2.034}{5.068}", "1/2.5 and 2.5/3"])
def test_what_is_not_a_fraction(line):
    assert not any(n.fraction for n in numbers_in(Line(1, line)))


# -- ≈ before a block, percentages ------------------------------------------------------
def test_approximately_covers_the_block_after_it():
    got = numbers_in(Line(1, r"A ≈ [1, 0] and \approx \begin{bmatrix} 1 & 0 \end{bmatrix}, B = [1, 0]"))
    assert [(n.printed, n.approximate) for n in got] == [
        ("≈1", True), ("≈0", True), ("≈1", True), ("≈0", True), ("1", False), ("0", False)]
    p = parse_printed("[≈1, ≈0]")
    assert all(e.approximate and e.integer for e in p.entries)
    assert all(e.approximate for e in parse_printed("≈ [1, 0]").entries)
    assert not any(e.approximate for e in parse_printed("[1, 0]").entries)


def test_a_percentage_is_its_hundredth_at_the_printed_decimals():
    (n,) = numbers_in(Line(1, "the cat gets 58.7% of the attention"))
    p = parse_number(n.printed)
    assert (n.printed, p.value, p.percent, p.decimals) == ("58.7%", Fraction(587, 10), True, 1)


# -- verdicts of these prints (hand-written claims) ------------------------------------
SPEC = """
[example]
id = "forms"

[inputs]
S = [[1, 1, 1], [8, 0, 0]]
N = [[1000000], [1000001], [587], [5876]]

[[steps]]
name = "A"
expr = "softmax(S)"

[[steps]]
name = "third"
expr = "N / 3000000"

[[steps]]
name = "share"
expr = "N / 1000"

[[steps]]
name = "half"
expr = "N / 2000000"
"""


def claim(step, at, text, line):
    return f'\n[[claims]]\nstep = "{step}"\nat = {json.dumps(at)}\nprinted = "{text}"\nline = {line}\n'


def verdicts(tmp_path, claims: str) -> list:
    (tmp_path / "s.toml").write_text(SPEC + claims, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", "s.toml"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    return [(c["line"], c["printed"], c["verdict"]) for c in json.loads(r.stdout)["claims"]]


def test_fraction_claims_are_exact(tmp_path):
    # truths: softmax of equal scores is 1/3 exactly; 1000000/3000000 = 1/3 exactly;
    # 1000001/3000000 = 0.33333366… is not 1/3 (though it rounds to 0.333334 ≈ 1/3)
    assert Fraction(1000000, 3000000) == Fraction(1, 3) != Fraction(1000001, 3000000)
    got = verdicts(tmp_path, claim("A", 0, "[1/3, 1/3, 1/3]", 1) + claim("third", [0, 0], "1/3", 2)
                   + claim("third", [1, 0], "1/3", 3) + claim("half", [0, 0], "1/2", 4)
                   + claim("half", [1, 0], "1/2", 5))
    assert got == [(1, "1/3", "correct")] * 3 + [(2, "1/3", "correct"), (3, "1/3", "wrong"),
                                                 (4, "1/2", "correct"), (5, "1/2", "wrong")]


def test_approximately_one_is_a_rounding_not_exactly_one(tmp_path):
    # truth (mpmath): the weights of [8, 0, 0] are 0.99933… and 0.000335…: 1 and 0 at
    # 0 decimals, yet not exactly 1 and 0
    mpmath.mp.dps = 30
    w = [mpmath.exp(8) / (mpmath.exp(8) + 2), 1 / (mpmath.exp(8) + 2)]
    assert round(float(w[0])) == 1 and round(float(w[1])) == 0 and w[0] != 1
    got = verdicts(tmp_path, claim("A", 1, "≈ [1, 0, 0]", 1) + claim("A", 1, "[≈1, ≈0, ≈0]", 2)
                   + claim("A", 1, "[1, 0, 0]", 3))
    assert [v for line, _, v in got if line in (1, 2)] == ["correct"] * 6
    assert [v for line, _, v in got if line == 3] == ["wrong"] * 3


def test_percent_claims(tmp_path):
    # truths: 587/1000 = 58.7%; 5876/1000 … as a share 5.876 = 587.6% (not 58.7%)
    got = verdicts(tmp_path, claim("share", [2, 0], "58.7%", 1) + claim("share", [3, 0], "587.6%", 2)
                   + claim("share", [3, 0], "587.5%", 3))
    assert [v for _, _, v in got] == ["correct", "correct", "wrong"]


# -- inline code, inline math, code blocks with emphasis -----------------------------------
def test_inline_code_and_inline_math_are_read():
    lines = markdown.read("The output is `o = [0.1, 0.2]` and $x = [1.0, 2.0]$ here.\n")
    assert rows(lines) == [[[Fraction(1, 10), Fraction(2, 10)]], [[Fraction(1), Fraction(2)]]]
    page = html.read("<p>The output is <code>o = [0.1, 0.2]</code>.</p>\n<pre>x = 5</pre>\n")
    assert [(ln.kind, ln.text) for ln in page] == [("text", "The output is o = [0.1, 0.2]."),
                                                  ("code", "x = 5")]
    assert not any(_program(ln) for ln in page if "0.1" in ln.text)


@pytest.mark.parametrize("source", ["```\n**Total:** 40.04\n```\n", "Sums:\n\n    **Total:** 40.04\n"])
def test_bold_in_a_code_block_is_emphasis(source):
    (line,) = [ln for ln in markdown.read(source) if "40.04" in ln.text]
    assert line.kind == "code" and not _program(line)
    assert [(n.value, n.column) for n in numbers_in(line)] == [
        (Fraction(4004, 100), source.split("\n")[line.number - 1].index("40.04") + 1)]
    (power,) = [ln for ln in markdown.read("```\ny = x**2 + 0.5\n```\n") if "0.5" in ln.text]
    assert "x**2" in power.text and _program(power)


# -- 3-D printouts ---------------------------------------------------------------------
def test_each_block_of_a_3d_printout_keeps_its_rows_and_index():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(z)", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text=(
            "tensor([[[0.1000, 0.2000],\n         [0.3000, 0.4000]],\n\n"
            "        [[0.5000, 0.6000],\n         [0.7000, 0.8000]]])\n"))])])
    lines = notebook.read(nbformat.writes(nb))
    groups = [g for g in groups_of(lines) if len(g.rows) > 1]
    tenth = [[Fraction(k, 10) for k in r] for r in ([1, 2], [3, 4], [5, 6], [7, 8])]
    assert [[[n.value for n in r] for r in g.rows] for g in groups] == [tenth[:2], tenth[2:]]
    index = [n.index for g in groups for n in g.numbers]
    assert index == [(b, i, j) for b in (0, 1) for i in (0, 1) for j in (0, 1)]


# -- numbers that print nothing ----------------------------------------------------------
TIKZ = r"""\begin{frame}{Weights}
The weight of cat is 0.42.
\begin{tikzpicture}[scale=0.8, line width=0.4pt]
\draw[->] (0.35, 1.00) -- (2.5, 1.5);
\node[draw, minimum width=1.2cm] at (1,2) {0.73};
\begin{axis}[xmin=0, xmax=1,
    ytick={0,0.5,1}]
\addplot coordinates {(0,1) (1,0.25)};
\addplot[domain=0:1] {0.5*x};
\end{axis}
\foreach \x in {0,1,2} \fill (\x, 0) circle (2pt);
\end{tikzpicture}
\end{frame}
"""


def test_a_rows_numbered_label_prints_nothing():
    """``2：猫`` opens a table row (its position and token), ``3: sleeps`` too: no claim;
    a number after the colon, or a list marker's entry, still is."""
    got = printed([Line(1, "2：猫\t$\\begin{bmatrix}0.5 & 1\\end{bmatrix}$"), Line(2, "3: sleeps 0.25"),
                   Line(3, "4: 0.75")])
    assert got == [("0.5", Fraction(1, 2)), ("1", Fraction(1)), ("0.25", Fraction(1, 4)),
                   ("4", Fraction(4)), ("0.75", Fraction(3, 4))]


def test_tikz_coordinates_and_options_print_nothing():
    assert printed(latex.read(TIKZ)) == [("0.42", Fraction(42, 100)), ("0.73", Fraction(73, 100))]
    assert printed(markdown.read("Scores:\n\n$$\n" + TIKZ + "$$\n")) == [
        ("0.42", Fraction(42, 100)), ("0.73", Fraction(73, 100))]


def test_plotting_code_prints_nothing():
    src = "```python\nplt.plot(x, y, alpha=0.5,\n         linewidth=2.5)\nax.set_xlim(0, 1)\n" \
          "sns.heatmap(w, vmin=0, vmax=1)\nprint(0.25)\n```\n"
    assert printed(markdown.read(src)) == [("0.25", Fraction(1, 4))]
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("fig.suptitle('w', y=1.05)\nplt.imshow(w, vmin=0.1)\nw[0, 1] + 0.5")])
    assert printed(notebook.read(nbformat.writes(nb))) == [("0", Fraction(0)), ("1", Fraction(1)),
                                                          ("0.5", Fraction(1, 2))]
    assert printed(text.read("plt.plot([0.1, 0.2])\n")) == [("0.1", Fraction(1, 10)), ("0.2", Fraction(1, 5))]


def test_a_references_address_prints_nothing():
    """A URL, an arXiv identifier, a DOI: no number of the computation (``arXiv:1910.07467``
    is no 1910.07467)."""
    src = ("2. Zhang & Sennrich (2019). Root Mean Square Layer Normalization. arXiv:1910.07467\n\n"
           "See https://example.com/2023/10/attention-0.5 or doi:10.1000/182; the loss is 0.25.\n")
    assert printed(markdown.read(src)) == [("0.25", Fraction(1, 4))]
    assert printed(text.read(src)) == [("0.25", Fraction(1, 4))]


# -- the whole flow: check --article on an article of these forms ------------------------
POST = r"""# Weights

The even weights are $A = [\tfrac{1}{2}, \tfrac{1}{2}]$.

The sharp weights are W ≈ [1, 0].

The small weight is 3.35·10⁻⁴ and in code:

```
**Total:** 0.99966
```

\begin{tikzpicture}
\draw (0.35, 1.00) -- (0.5, 0.5);
\end{tikzpicture}
"""

POST_SPEC = """
[example]
id = "forms"
source = "post.md"

[inputs]
S = [[0, 0]]
T = [[8, 0]]

[[steps]]
name = "A"
expr = "softmax(S)"

[[steps]]
name = "W"
expr = "softmax(T)"
"""


def test_an_article_of_these_forms_is_checked(tmp_path):
    # truths (mpmath): softmax([0, 0]) = [1/2, 1/2]; softmax([8, 0]) = [0.99966…, 0.000335…]
    mpmath.mp.dps = 30
    small = 1 / (1 + mpmath.exp(8))
    assert mpmath.nstr(small, 3) == "0.000335" and mpmath.nstr(1 - small, 5) == "0.99966"
    (tmp_path / "post.md").write_text(POST, encoding="utf-8")
    (tmp_path / "post.toml").write_text(POST_SPEC, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", "post.toml", "--article",
                        "post.md"], capture_output=True, text=True, cwd=tmp_path)
    out = json.loads(r.stdout)
    got = [(c["line"], c["step"], c["at"][1], c["printed"], c["verdict"]) for c in out["claims"]]
    assert got == [(3, "A", "0", "1/2", "correct"), (3, "A", "1", "1/2", "correct"),
                   (5, "W", "0", "≈1", "correct"), (5, "W", "1", "≈0", "correct"),
                   (7, "W", "1", "3.35e-4", "correct"), (10, "W", "0", "0.99966", "correct")]
    assert out.get("unmatched", []) == []             # nothing from the TikZ coordinates


@pytest.mark.parametrize("name", ["symattn.article.tokens", "symattn.article.quiet",
                                  "symattn.article.nesting", "symattn.article.groups",
                                  "symattn.article.latex", "symattn.claims.printed"])
def test_the_reading_layer_docstring_examples(name):
    import doctest
    import importlib
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


# -- printouts written as comments in code, torch's -inf -------------------------------------
def test_a_printout_in_comments_is_output():
    src = ("```python\nw = softmax(s)\n# tensor([[0.0634, 0.4683],  # Query 1\n"
           "#         [0.9820, 0.0180]]) # Query 2\n# the weights 0.5\n```\n")
    lines = markdown.read(src)
    got = [(ln.number, ln.kind) for ln in lines if ln.kind == "output"]
    assert got == [(3, "output"), (4, "output")]
    found = [(n.value, n.line, n.column) for ln in lines for n in numbers_in(ln)]
    source = src.split("\n")
    assert found == [(Fraction(v), line, source[line - 1].index(v) + 1) for v, line in [
        ("0.0634", 3), ("0.4683", 3), ("0.9820", 4), ("0.0180", 4), ("0.5", 5)]]
    assert [ln.kind for ln in lines if ln.number == 5] == ["code"]      # a comment, not a printout
    assert rows([ln for ln in lines if ln.kind == "output"]) == [
        [[Fraction("0.0634"), Fraction("0.4683")], [Fraction("0.9820"), Fraction("0.0180")]]]


def test_torch_prints_minus_inf():
    got = numbers_in(Line(1, "tensor([[0.2899,   -inf,   -inf]])  non-infinite", "output"))
    assert [(n.neg_inf, n.index) for n in got] == [(False, (0, 0)), (True, (0, 1)), (True, (0, 2))]
    assert numbers_in(Line(1, "the masked scores become -inf")) == []     # a word in prose
    assert [n.neg_inf for n in numbers_in(Line(1, r"S = [0.5, -\infty]"))] == [False, True]


def test_approximately_before_a_block_on_the_lines_below():
    src = ("\\[\nA \\approx\n\\begin{bmatrix}\n1 & 0 \\\\\n0.5 & 1\n\\end{bmatrix}, \\quad "
           "B = \\begin{bmatrix} 1 & 0 \\end{bmatrix}\n\\]\nThen W ≈ [1,\n0] and V = [1, 0].\n")
    got = [(n.line, n.printed, n.approximate) for ln in latex.read(src) for n in numbers_in(ln)]
    assert got == [(4, "≈1", True), (4, "≈0", True), (5, "0.5", True), (5, "≈1", True),
                   (6, "1", False), (6, "0", False),
                   (8, "≈1", True), (9, "≈0", True), (9, "1", False), (9, "0", False)]


def test_a_numpy_row_prints_its_short_entries_at_the_rows_precision():
    """NumPy's default print (floatmode 'maxprec') drops trailing zeros and pads with
    spaces: in `[0.0114 0.7952 0.2   ]` the 0.2 is 0.2000 to four decimals, `1.    ` is
    1.0000 (0.99999 prints so too); one dropped zero is read as printed; a Python list
    (commas) is not padded."""
    import numpy as np
    with np.printoptions(precision=4):
        row = str(np.array([0.0114, 0.7952, 0.2, 0.99999, 0.1235, 0.123]))
    assert row == "[0.0114 0.7952 0.2    1.     0.1235 0.123 ]"
    got = [n.printed for n in numbers_in(Line(1, row, kind="output"))]
    assert got == ["0.0114", "0.7952", "0.2000", "1.0000", "0.1235", "0.123"]
    assert [n.printed for n in numbers_in(Line(1, "[0.0114, 0.2   ]"))] == ["0.0114", "0.2"]


def test_a_numpy_printout_with_padded_whole_floats_is_checked(tmp_path):
    """`[[0.3543 0.6457]` over `[1.     0.    ]]` (NumPy's print): the padded `1.` and `0.`
    of a row with decimals are 1.0000 and 0.0000; a row of whole floats alone keeps its
    `1.` (exactly 1); all right (mpmath), read without an error."""
    e = [mpmath.exp(mpmath.mpf("0.2")), mpmath.exp(mpmath.mpf("0.8"))]
    assert [f"{float(x / sum(e)):.4f}" for x in e] == ["0.3543", "0.6457"]
    (tmp_path / "w.toml").write_text(
        '[example]\nid = "w"\nsource = "post.md"\n[inputs]\nS = [[0.5, 0.1], [0.2, 0.8]]\n'
        '[[steps]]\nname = "w"\nexpr = "softmax(S + causal_mask(2))"\n', encoding="utf-8")
    (tmp_path / "post.md").write_text("# W\n\n```\n[[1.     0.    ]\n [0.3543 0.6457]]\n```\n\n"
                                      "```\n[0.3543 1.     0.    ]\n```\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", "w.toml", "--article",
                        "post.md"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = [(c["printed"], c["verdict"]) for c in json.loads(r.stdout)["claims"]]
    assert got[:4] == [("1.", "correct"), ("0.", "correct"), ("0.3543", "correct"), ("0.6457", "correct")]
    assert ("1.0000", "correct") in got[4:] and ("0.0000", "correct") in got[4:]


@pytest.mark.parametrize("line, values", [
    ("**3. Normalize the vector:**", []),                 # a bold list item's number
    ("## 2. Scale", []),                                  # a heading's
    ("__4.__ Then", []),
    ("**1.5** is the mean", [Fraction("1.5")]),                  # a bold value is a value
    ("**0.5 and 0.25**", [Fraction("0.5"), Fraction("0.25")]),
])
def test_a_list_number_after_emphasis_or_a_heading_mark_is_no_claim(line, values):
    assert [n.value for n in numbers_in(Line(1, line))] == values


def test_latex_thousands_separator_and_an_approximate_round_thousand():
    """``39{,}000`` is one number, and after ``≈`` its three zeros only place the 39: it
    rounds 197² = 38809 to two significant digits; printed without ≈, or as ``120``, every
    digit counts."""
    from symattn.claims.printed import last_place, rounding_interval
    got = [(n.printed, n.value) for n in numbers_in(Line(1, r"$197^2 \approx 39{,}000$ entries"))]
    assert got == [("197", 197), ("≈39000", 39000)]
    exact = Fraction(197) ** 2
    lo, hi = rounding_interval(parse_number("≈39000"), "half-up")
    assert (lo, hi) == (38500, 39500) and lo <= exact <= hi
    assert last_place(parse_number("39000")) == 1
    assert last_place(parse_number("≈120")) == 1
    assert last_place(parse_number("≈39000.0")) == Fraction(1, 10)
