"""`symattn import`: the matrices of a LaTeX fragment as exact spec inputs."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from symattn.errors import ParseError
from symattn.spec.latex_import import read_matrices, import_latex, cell_value, latex_name
from symattn.spec.load import load
from symattn.tensor import NEG_INF

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"

FRAGMENT = r"""
W_Q =
\begin{bmatrix}
1.0 & 0.2 \\
0.1 & 0.9
\end{bmatrix}

$M = \begin{pmatrix} 0 & -\infty \\ \frac{1}{3} & −0.5 \end{pmatrix}$
\[ \mathbf{W}^{O} = \begin{array}{c|c} \tfrac12 & 1.2 \times 10^{-3} \\ \hline {7} & \,.25 \end{array} \]
x_{\text{love}} = \begin{bmatrix} 0.8 & 1.2 \end{bmatrix}
"""


def test_reads_names_values_and_lines():
    ms = read_matrices(FRAGMENT, "frag.tex")
    assert [m.name for m in ms] == ["W_Q", "M", "W_O", "x_love"]
    assert [m.line for m in ms] == [3, 8, 9, 10]
    assert ms[0].values == ((Fraction(1), Fraction(1, 5)), (Fraction(1, 10), Fraction(9, 10)))
    assert ms[1].values == ((Fraction(0), NEG_INF), (Fraction(1, 3), Fraction(-1, 2)))
    assert ms[2].values == ((Fraction(1, 2), Fraction(3, 2500)), (Fraction(7), Fraction(1, 4)))
    assert ms[3].shape == (1, 2)


def test_snippet_is_exact_toml_that_a_spec_loads(tmp_path):
    snippet = import_latex(FRAGMENT, "frag.tex")
    assert "W_Q = { value = [[1.0, 0.2], [0.1, 0.9]], line = 3 }" in snippet
    assert 'M = { value = [[0, "-inf"], ["1/3", -0.5]], line = 8 }' in snippet
    assert 'W_O = { value = [["1/2", 1.2e-3], [7, 0.25]], line = 9 }' in snippet
    spec = load(str(tmp_path / "s.toml"), text='[example]\nid = "i"\n' + snippet)
    assert spec.inputs["W_Q"].params["entries"][1][0] == Fraction(1, 10)
    assert spec.inputs["M"].params["entries"][0][1] is NEG_INF
    assert spec.inputs["W_O"].params["entries"][0][1] == Fraction(3, 2500)


@pytest.mark.parametrize("cell, value", [
    ("-0.3", Fraction(-3, 10)), ("−0.3", Fraction(-3, 10)), (r"\frac{1}{3}", Fraction(1, 3)),
    (r"-\frac{1}{2}", Fraction(-1, 2)), (r"\frac{-1}{2}", Fraction(-1, 2)), (r"\dfrac{0.5}{2}", Fraction(1, 4)),
    ("1/3", Fraction(1, 3)), (r"\mathbf{-0.25}", Fraction(-1, 4)), (r"\textcolor{red}{0.3}", Fraction(3, 10)),
    ("1{,}000", Fraction(1000)), ("2.", Fraction(2)), ("1e-2", Fraction(1, 100)),
])
def test_cells(cell, value):
    assert cell_value(cell)[0] == value


def test_names():
    assert latex_name(r"W_{Q}") == "W_Q"
    assert latex_name(r"\mathbf{X}") == "X"
    assert latex_name(r"\gamma") == "gamma"
    assert latex_name(r"W^{O}") == "W_O"


@pytest.mark.parametrize("text, message", [
    (r"A = \begin{bmatrix} 1 & 2 \\ 3 \end{bmatrix}",
     "<fragment>:1: matrix A, row 2, column 2: row 2 has 1 entry but row 1 has 2 entries"),
    (r"A = \begin{bmatrix} 1 & 2 \\ 3 & x \end{bmatrix}",
     "<fragment>:1: matrix A, row 2, column 2: 'x' is not a number"),
    ("A = \\begin{bmatrix} 1 & 2 \\\\\n 3 & \\alpha \\end{bmatrix}",
     "<fragment>:2: matrix A, row 2, column 2: '\\alpha' is not a number"),
    (r"\begin{bmatrix} 1 & \end{bmatrix}", "matrix M1, row 1, column 2: an empty cell"),
    (r"\begin{bmatrix} 1 & 2", "<fragment>:1:1: \\begin{bmatrix} is never closed"),
    (r"1 & 2 \end{pmatrix}", "<fragment>:1:7: \\end{pmatrix} without a \\begin{pmatrix}"),
    (r"\begin{bmatrix} 1 \end{pmatrix}",
     "\\end{pmatrix} closes \\begin{bmatrix} (opened at line 1, column 1)"),
    (r"\begin{bmatrix} __import__('os') \end{bmatrix}", "is not a number"),
    (r"\begin{bmatrix} +\infty \end{bmatrix}", "+∞ cannot be an input"),
    ("no matrices here", "no bmatrix, pmatrix or array environment"),
])
def test_bad_input_is_one_parse_error(text, message):
    with pytest.raises(ParseError) as e:
        read_matrices(text)
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_repeated_matrices_are_not_new_inputs():
    text = (r"W = \begin{bmatrix} 1 & 2 \end{bmatrix} \quad [1, 1] \begin{bmatrix} 1 & 2 \end{bmatrix}"
            "\n" r"W = \begin{bmatrix} 3 & 4 \end{bmatrix}")
    snippet = import_latex(text)
    assert "# line 1: the numbers of W again" in snippet
    assert "W = { value = [[1, 2]], line = 1 }" in snippet
    assert "W_2 = { value = [[3, 4]], line = 2 }" in snippet


@pytest.mark.skipif(not (SEEDS / "000_a092e4009a0e6c2f.txt").exists(), reason="shared/seeds not present")
def test_the_articles_projection_matrices():
    ms = read_matrices((SEEDS / "000_a092e4009a0e6c2f.txt").read_text(encoding="utf-8"))
    first = {m.name: m for m in ms}
    assert first["W_Q"].line == 76 and first["W_V"].values[1] == (Fraction(-1, 5), Fraction(4, 5), Fraction(3, 10))
    assert first["W_O"].shape == (9, 3)


def test_cli_stdin_file_and_errors(tmp_path):
    def run(*args, stdin=None):
        return subprocess.run([sys.executable, "-m", "symattn", "import", *args], input=stdin,
                              capture_output=True, text=True, timeout=300)
    r = run("-", stdin=FRAGMENT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("# from <stdin>: 4 matrices\n[inputs]\n")
    src = tmp_path / "a.tex"
    src.write_text(FRAGMENT, encoding="utf-8")
    out = tmp_path / "inputs.toml"
    r = run(str(src), "-o", str(out))
    assert r.returncode == 0 and "W_Q = " in out.read_text(encoding="utf-8")
    assert run(str(src), "-o", str(out)).returncode == 2          # exists: needs --force
    r = run("-", stdin=r"A = \begin{bmatrix} 1 & 2 \\ 3 \end{bmatrix}")
    assert r.returncode == 2
    assert r.stderr.strip() == ("symattn: <stdin>:1: matrix A, row 2, column 2: row 2 has 1 entry "
                                "but row 1 has 2 entries; every row needs the same number of & columns")
    r = run(str(tmp_path / "missing.tex"))
    assert r.returncode == 2 and "no such file" in r.stderr
