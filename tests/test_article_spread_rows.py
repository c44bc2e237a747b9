"""Rows an article's source spreads over several lines, and equations drawn as images.

- An HTML table written one ``<td>`` a line (a pretty-printed page) is read a row at a time:
  each number keeps the line and column it is printed at, so a record names it there and a
  fix writes over it there.
- An equation drawn by a LaTeX service (``![Q](https://latex.codecogs.com/svg.latex?…)``)
  is read as the LaTeX it draws.

Truths: the scores are worked out with ``fractions`` (exact), the softmax with ``mpmath``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from urllib.parse import quote

import mpmath

from symattn.article.html import read as read_html
from symattn.article.markdown import read as read_markdown
from symattn.article.tokens import numbers_in

mpmath.mp.dps = 30


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          cwd=cwd)


_ROW = """      <tr>
        <td>{label}</td>
        <td>{a}</td>
        <td><strong>{b}</strong></td>
      </tr>
"""


def _table(rows) -> str:
    return "<table>\n" + "".join(_ROW.format(label=l, a=a, b=b) for l, a, b in rows) + "</table>\n"


def test_a_row_over_several_lines_is_one_row_each_number_at_its_own_line():
    page = _table([("apple", "2.876", "4.601"), ("pear", "1.5", "0.25")])
    rows = [ln for ln in read_html(page) if numbers_in(ln)]
    assert [ln.text.split("|")[0].strip() for ln in rows] == ["apple", "pear"]
    source = page.split("\n")
    for ln in rows:
        for n in numbers_in(ln):
            line = source[n.line - 1]
            assert line[n.column - 1:n.column - 1 + len(n.text)] == n.text   # where it is printed
    assert [(n.printed, n.line) for n in numbers_in(rows[0])] == [("2.876", 4), ("4.601", 5)]


def test_a_row_on_one_line_reads_as_before():
    page = "<table>\n<tr><td>I</td><td>1.5</td></tr>\n</table>\n"
    (row,) = [ln for ln in read_html(page) if numbers_in(ln)]
    assert row.text == "I | 1.5" and row.lines is None
    assert [(n.line, n.column) for n in numbers_in(row)] == [(2, 19)]


def _scores_page(weights_printed: list[list[str]]) -> str:
    q = [["1.0", "0.0"], ["0.0", "2.0"]]
    k = [["1.0", "1.0"], ["2.0", "0.0"]]
    words = ["cat", "dog"]
    body = ["<h3>Q</h3>", "<table>"] + [_ROW.format(label=w, a=a, b=b).rstrip("\n") for w, (a, b) in zip(words, q)]
    body += ["</table>", "<h3>K</h3>", "<table>"] + [_ROW.format(label=w, a=a, b=b).rstrip("\n") for w, (a, b) in zip(words, k)]
    s = [[sum(Fraction(q[i][t]) * Fraction(k[j][t]) for t in range(2)) for j in range(2)] for i in range(2)]
    body += ["</table>", "<h3>Scores Q K^T</h3>", "<table>"] + [
        _ROW.format(label=w, a=str(float(s[i][0])), b=str(float(s[i][1]))).rstrip("\n") for i, w in enumerate(words)]
    body += ["</table>", "<h3>Weights softmax(Q K^T)</h3>", "<table>"] + [
        _ROW.format(label=w, a=a, b=b).rstrip("\n") for w, (a, b) in zip(words, weights_printed)]
    return "<html><body>\n" + "\n".join(body) + "\n</table>\n</body></html>\n"


def _softmax_rows():
    s = [[1, 2], [2, 0]]                                  # Q K^T of the page, by hand
    out = []
    for row in s:
        e = [mpmath.exp(x) for x in row]
        out.append([x / mpmath.fsum(e) for x in e])
    return out


def test_a_wrong_weight_in_a_spread_table_is_flagged_and_fixed_in_place(tmp_path):
    w = _softmax_rows()
    right = [[mpmath.nstr(x, 4) for x in row] for row in w]
    assert right == [["0.2689", "0.7311"], ["0.8808", "0.1192"]]
    wrong = [row[:] for row in right]
    wrong[1][0] = "0.8809"                                # a slip in the last digit
    page = tmp_path / "walk.html"
    page.write_text(_scores_page(wrong), encoding="utf-8")
    r = cli("check", "--json", str(page))
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    bad = [c for c in data["claims"] if c["verdict"] in ("wrong", "carried")]
    source = page.read_text(encoding="utf-8").split("\n")
    assert [c["printed"] for c in bad] == ["0.8809"]
    (c,) = bad
    assert source[c["line"] - 1][c["column"] - 1:c["column"] + 5] == "0.8809"
    assert abs(mpmath.mpf(c["exact"]) - w[1][0]) < mpmath.mpf("1e-12")
    spec = tmp_path / "walk.toml"
    assert cli("check", str(page), "-o", str(spec), cwd=tmp_path).returncode in (0, 1)
    diff = cli("check", str(spec), "--article", str(page), "--diff", cwd=tmp_path).stdout
    minus = [x for x in diff.splitlines() if x.startswith("-") and not x.startswith("---")]
    plus = [x for x in diff.splitlines() if x.startswith("+") and not x.startswith("+++")]
    assert minus == ["-" + source[c["line"] - 1]] and plus == ["+" + source[c["line"] - 1].replace("0.8809", "0.8808")]


def _drawn(tex: str) -> str:
    return f"![eq](https://latex.codecogs.com/svg.latex?{quote(tex, safe='')})"


def test_an_equation_drawn_by_a_latex_service_is_read_as_its_latex():
    tex = r"\bg_white Q = X \cdot W_q = \begin{bmatrix} 0.57 & -0.81 \\ 1.25 & 1.35 \end{bmatrix}"
    text = "Queries:\n\n" + _drawn(tex) + "\n"
    (line,) = [ln for ln in read_markdown(text) if numbers_in(ln)]
    assert line.kind == "math" and r"\begin{bmatrix} 0.57 & -0.81" in line.text
    source = text.split("\n")[line.number - 1]
    for n in numbers_in(line):                            # each number at its own source column
        assert source[n.column - 1:n.column - 1 + len(n.text)] == n.text
    assert [n.printed for n in numbers_in(line)] == ["0.57", "-0.81", "1.25", "1.35"]


def test_projections_drawn_as_images_are_checked(tmp_path):
    x = [[Fraction("1.8"), Fraction("0.1")], [Fraction("0.3"), Fraction("1.2")]]
    wq = [[Fraction("0.1"), Fraction("0.2")], [Fraction("0.4"), Fraction("0.5")]]
    q = [[sum(x[i][t] * wq[t][j] for t in range(2)) for j in range(2)] for i in range(2)]
    assert q == [[Fraction("0.22"), Fraction("0.41")], [Fraction("0.51"), Fraction("0.66")]]

    def matrix(m):
        return r"\begin{bmatrix}" + r" \\ ".join(" & ".join(f"{float(v):.2f}" for v in row) for row in m) + r"\end{bmatrix}"
    shown = [row[:] for row in q]
    shown[1][1] = Fraction("0.69")                           # the slip the page makes
    text = "\n\n".join([
        "Our input and weights:", _drawn(r"X = " + matrix(x)), _drawn(r"W_q = " + matrix(wq)),
        "**Queries:**", _drawn(r"Q = X \cdot W_q = " + matrix(shown))]) + "\n"
    page = tmp_path / "drawn.md"
    page.write_text(text, encoding="utf-8")
    r = cli("check", "--json", str(page))
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    got = {(c["printed"], c["verdict"]) for c in data["claims"] if c["step"] == "Q"}
    assert got == {("0.22", "correct"), ("0.41", "correct"), ("0.51", "correct"), ("0.69", "wrong")}


def test_a_mark_beside_a_cell_s_number_leaves_the_number(tmp_path):
    """``0.7311 ⭐``: the largest weight of each row marked; the rows are still numbers."""
    w = _softmax_rows()
    cells = [[mpmath.nstr(x, 4) for x in row] for row in w]
    cells[0][1] += " ⭐"
    cells[1][0] += " ⭐"
    text = ("Scores:\n\n| | cat | dog |\n|---|---|---|\n| cat | 1 | 2 |\n| dog | 2 | 0 |\n\n"
            "Weights = softmax(Scores):\n\n| | cat | dog |\n|---|---|---|\n"
            + "".join(f"| {w} | {a} | {b} |\n" for w, (a, b) in zip(["cat", "dog"], cells)))
    page = tmp_path / "marked.md"
    page.write_text(text, encoding="utf-8")
    r = cli("check", "--json", str(page))
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    got = {c["printed"]: c["verdict"] for c in data["claims"]}
    assert got == {"0.2689": "correct", "0.7311": "correct", "0.8808": "correct", "0.1192": "correct"}
    assert [s["expr"] for s in data["inferred"][0]["steps"]] == ["softmax(Scores)"]


def test_a_latex_matrix_written_as_a_table_has_row_labels_and_numbers():
    from symattn.spec.latex_import import read_matrices
    text = ("\\begin{bmatrix}\n- & K_{the} & K_{cat} \\\\\nQ_{the} & 2 & 0 \\\\\nQ_{cat} & 0.5 & 2\n"
            "\\end{bmatrix}")
    (m,) = read_matrices(text, None)
    assert m.rows == ("Q_{the}", "Q_{cat}")
    assert m.values == ((Fraction(2), Fraction(0)), (Fraction(1, 2), Fraction(2)))


def test_scores_printed_as_a_labelled_latex_table_are_checked(tmp_path):
    q = [[Fraction(1), Fraction(0), Fraction(1)], [Fraction(0), Fraction(1), Fraction(1)]]
    k = [[Fraction(1), Fraction(1), Fraction(0)], [Fraction(0), Fraction(1), Fraction(1)],
         [Fraction(1), Fraction(0), Fraction(1)]]
    s = [[sum(a * b for a, b in zip(qi, kj)) for kj in k] for qi in q]
    assert s == [[1, 1, 2], [1, 2, 1]]
    shown = [row[:] for row in s]
    shown[1][2] = Fraction(3)                                 # a slip

    def bmatrix(m):
        return "\\begin{bmatrix} " + " \\\\ ".join(" & ".join(str(int(v)) for v in r) for r in m) + " \\end{bmatrix}"
    table = ("$$\n\\begin{bmatrix}\n- & K_{a} & K_{b} & K_{c} \\\\\n"
             + " \\\\\n".join(f"Q_{{{w}}} & " + " & ".join(str(int(v)) for v in r) for w, r in zip("ab", shown))
             + "\n\\end{bmatrix}\n$$\n")
    text = (f"Queries $Q = {bmatrix(q)}$ and keys $K = {bmatrix(k)}$.\n\n"
            "The scores $Q K^T$ for every pair:\n\n" + table)
    page = tmp_path / "labelled.md"
    page.write_text(text, encoding="utf-8")
    r = cli("check", "--json", str(page))
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    got = sorted((c["printed"], c["verdict"]) for c in data["claims"])
    assert got == sorted([("1", "correct"), ("1", "correct"), ("2", "correct"), ("1", "correct"),
                          ("2", "correct"), ("3", "wrong")])


def test_a_spread_table_ends_at_its_last_source_line_and_its_numbers_are_its_own():
    """The chains after a block look at the numbers printed after it: a row spread over
    lines ends at its last cell's line (the block's own numbers are no later prints; all
    of a large table's were taken for them once, quadratic in its size)."""
    from symattn.infer.blocks import blocks
    from symattn.infer.chain_numbers import printed_numbers
    from symattn.infer.chains import _own
    page = _table([("a", "0.125", "0.875"), ("b", "0.5", "0.25"), ("c", "0.375", "0.625")])
    lines = read_html(page)
    (b,) = blocks([("t.html", lines)])
    source = page.split("\n")
    last_cell = max(k + 1 for k, s in enumerate(source) if "<td>" in s)
    assert b.line == 2 and last_cell <= b.end <= last_cell + 1          # its row's </tr>
    window = printed_numbers(lines)
    assert len(window) == 6 and all(_own(n, b) for n in window)
