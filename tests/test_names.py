"""Names: any identifier may name an input or a step (an operation is a name followed by
`(`), a `latex` key says how a name is typeset, and `symattn import` names matrices from the
left side of an equation and keeps the numeric ones when one is symbolic."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import pytest

from symattn.errors import SpecError, ParseError
from symattn.render.latex import document
from symattn.spec.latex_import import import_latex, read_matrices
from symattn.spec.load import load

SPEC = r'''
[example]
id = "names"

[inputs]
weights = { value = [[1, 2], [3, 4]], latex = "\\mathbf{W}" }
var = [[1, 3]]
softmax = "1/2"

[[steps]]
name = "sigma2"
expr = "var(var)"
latex = "\\sigma^2"

[[steps]]
name = "logits"
expr = "matmul(var, weights) * softmax + row_sum(var)"

[[claims]]
step = "logits"
printed = "[9, 11]"
line = 1
'''


def test_operation_names_are_free_as_input_and_step_names(tmp_path):
    p = tmp_path / "names.toml"
    p.write_text(SPEC, encoding="utf-8")
    spec = load(str(p))
    # var = [1, 3]: population variance 1; logits = ([1,3]·W)/2 + 4 = [10, 14]/2 + 4
    assert spec.tensors["sigma2"].exact()[0, 0] == 1
    assert list(spec.tensors["logits"].exact()) == [9, 11]
    r = subprocess.run([sys.executable, "-m", "symattn", "check", str(p)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "2 printed numbers: 2 correct" in r.stdout


def test_latex_key_sets_how_a_name_is_typeset(tmp_path):
    p = tmp_path / "names.toml"
    p.write_text(SPEC, encoding="utf-8")
    f = "\n".join(document(str(p)).formulas())
    assert r"{\sigma^2} &= \operatorname{var}" in f
    assert r"{\mathbf{W}}" in f and r"\sigma_{2}" not in f


@pytest.mark.parametrize("latex, problem", [
    (r"\\input{/etc/passwd}", r"\input is not one of the commands"),
    (r"\\sigma^{2", "never closed"),
    ("x$", "not allowed"),
    ("\\\\sigma^", "nothing to raise or lower"),
])
def test_latex_key_is_a_small_safe_vocabulary(tmp_path, latex, problem):
    p = tmp_path / "bad.toml"
    p.write_text(SPEC.replace(r'latex = "\\sigma^2"', f'latex = "{latex}"'), encoding="utf-8")
    with pytest.raises(SpecError) as e:
        load(str(p))
    assert problem in str(e.value) and "bad.toml:10" in str(e.value)


def test_import_names_from_the_left_side_of_a_chain():
    text = (r"$S = QK^\top = \begin{bmatrix} 1 & 2 \end{bmatrix}$" "\n"
            r"$K^{\mathsf T} = \begin{bmatrix} 3 \end{bmatrix}$" "\n"
            r"weights = \begin{bmatrix} 4 \end{bmatrix}" "\n"
            r"the values are: \begin{bmatrix} 5 \end{bmatrix}")
    assert [m.name for m in read_matrices(text)] == ["S", "K_T", "weights", "M4"]


def test_a_caption_stating_its_formula_names_the_left_side(tmp_path):
    """``Q = X W_Q:`` over a table names the table Q, not the W_Q it ends with."""
    text = (r"Q = X W_Q: \begin{bmatrix} 1 & 2 \end{bmatrix}" "\n"
            r"S = Q K^\top: \begin{bmatrix} 3 \end{bmatrix}" "\n"
            r"W_Q: \begin{bmatrix} 4 \end{bmatrix}")
    assert [m.name for m in read_matrices(text)] == ["Q", "S", "W_Q"]
    from symattn.article.source import Line
    from symattn.infer.vectors import prose_lists
    inline = [Line(1, "the input is `x = [1, 2]` and the output `z = [3, 4]`", "text")]
    assert [p.name for p in prose_lists(inline)] == ["x", "z"]      # each code span its own equation
    post = tmp_path / "post.html"
    post.write_text("<p>X:</p><table><tr><td>1</td><td>2</td></tr><tr><td>0</td><td>1</td></tr></table>"
                    "<p>W<sub>Q</sub>:</p><table><tr><td>0.5</td><td>1</td></tr><tr><td>2</td><td>0.25</td></tr></table>"
                    "<p>Q = X W<sub>Q</sub>:</p><table><tr><td>4.5</td><td>1.5</td></tr>"
                    "<tr><td>2</td><td>0.25</td></tr></table>", encoding="utf-8")
    from symattn.article.matrices import find
    from symattn.article.read import read_article
    assert [p.name for p in find(read_article(str(post)))] == ["X", "W_Q", "Q"]


def test_import_keeps_numeric_matrices_and_says_which_it_skipped():
    text = ("W_Q = \\begin{bmatrix} 1 & 2 \\end{bmatrix}\n\n"
            "W = \\begin{bmatrix} w_{11} & w_{12} \\end{bmatrix}\n"
            "b = \\begin{bmatrix} 0.5 \\end{bmatrix}\n")
    snippet = import_latex(text)
    assert "W_Q = { value = [[1, 2]], line = 1 }" in snippet
    assert "b = { value = [[0.5]], line = 4 }" in snippet
    assert "# line 3: W skipped, not all numbers (matrix W, row 1, column 1: 'w_{11}' is not a number)" in snippet
    assert [m.values for m in read_matrices(text)] == [((1, 2),), ((Fraction(1, 2),),)]
    r = subprocess.run([sys.executable, "-m", "symattn", "import", "-"], input=text,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0
    assert r.stderr == "symattn: <stdin>:3: skipped W, not all numbers (matrix W, row 1, column 1: " \
                       "'w_{11}' is not a number)\n"
    with pytest.raises(ParseError, match="is not a number"):      # nothing numeric: an error
        read_matrices("W = \\begin{bmatrix} a \\end{bmatrix}")
