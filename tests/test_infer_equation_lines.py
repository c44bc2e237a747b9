"""Arithmetic worked over several lines (``= 0.38×[2, 1] + 0.23×[1, 2]``, then ``= [0.76+0.23,
…]``, then ``= [0.99, …]``), the operands it takes, and the names around it:

* each entry of a vector equation is read with the sides written before it, so a slipped
  result is flagged and a term worked from a rounded weight is carried, each on its own line;
* a number printed as a written result (``0.280``) is that result, not a given printed
  shorter (``0.28``);
* entry ``k`` of a row times a matrix takes column ``k``, not a nearer block's column of the
  same numbers;
* a name the text gives to two numbers (``d_scaled`` of chunk 1 and of chunk 2) names no step.

Truths: ``mpmath`` and ``fractions``, never symattn.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
from conftest import check_post


def _bm(rows) -> str:
    return "\\begin{bmatrix} " + " \\\\ ".join(" & ".join(map(str, r)) for r in rows) + " \\end{bmatrix}"


S = [[1, 0, 1], [0, 1, 1], [1, 1, 2]]
V = [[2, 1, 0, 1], [1, 2, 1, 0], [0, 1, 2, 1]]


def _softmax(row):
    e = [mpmath.exp(x) for x in row]
    return [x / sum(e) for x in e]


def test_a_vector_equation_worked_over_lines_is_judged_entry_by_entry(tmp_path):
    A = [_softmax(r) for r in S]
    shown = [[f"{float(x):.2f}" for x in r] for r in A]
    assert shown[0] == ["0.42", "0.16", "0.42"]
    text = "\n".join([
        "# Mixing values by hand", "", f"$$S = {_bm(S)}$$", "",
        f"$$A = \\mathrm{{softmax}}(S) = {_bm(shown)}$$", "", f"$$V = {_bm(V)}$$", "",
        "The output of the first token:", "", "```",
        "out_1 = 0.42 × V[0] + 0.16 × V[1] + 0.42 × V[2]",                        # line 12
        "      = 0.42×[2,1,0,1] + 0.16×[1,2,1,0] + 0.42×[0,1,2,1]",
        "      = [0.84+0.16+0, 0.42+0.32+0.42, 0+0.16+0.84, 0.42+0+0.42]",         # line 14
        "      = [1.00, 1.61, 1.00, 0.84]", "```", ""])                           # line 15: 1.16 slipped
    out = check_post(tmp_path, text)
    truth = [sum(A[0][j] * V[j][k] for j in range(3)) for k in range(4)]
    last = [c for c in out["claims"] if c["line"] == 15]
    assert [c["printed"] for c in last] == ["1.00", "1.61", "1.00", "0.84"]
    assert all(abs(mpmath.mpf(c["exact"]) - t) < mpmath.mpf("1e-12") for c, t in zip(last, truth))
    assert [c["verdict"] for c in last] == ["correct", "wrong", "correct", "correct"]
    # 0.16 × 2 worked from the rounded weight: 0.32, where 2 A[0][1] = 0.3107
    term = [c for c in out["claims"] if c["line"] == 14 and c["printed"] == "0.32"]
    assert len(term) == 1 and term[0]["verdict"] == "carried"
    assert abs(mpmath.mpf(term[0]["exact"]) - 2 * A[0][1]) < mpmath.mpf("1e-12")


_SCORES = ["# Scores by hand", "", "```", "q = [0.5, 0.2, 0.4]", "k₁ = [0.3, 0.15, 0.249]",
           "k₂ = [0.28, 0.1, 0.2]", "",
           "Score(q, k₁) = 0.5×0.3 + 0.2×0.15 + 0.4×0.249 = 0.280",
           "Score(q, k₂) = 0.5×0.28 + 0.2×0.1 + 0.4×0.2 = 0.240", "", "√3 ≈ 1.732"]


def test_a_number_printed_as_a_written_result_is_that_result_not_a_shorter_given(tmp_path):
    """0.280 is the score printed so (exact 0.2796), not k₂'s 0.28: 0.2796/√3 = 0.1614."""
    s1 = F("0.5") * F("0.3") + F("0.2") * F("0.15") + F("0.4") * F("0.249")
    s2 = F("0.5") * F("0.28") + F("0.2") * F("0.1") + F("0.4") * F("0.2")
    truth = [mpmath.mpf(s1.numerator) / s1.denominator / mpmath.sqrt(3),
             mpmath.mpf(s2.numerator) / s2.denominator / mpmath.sqrt(3)]
    assert [f"{float(t):.3f}" for t in truth] == ["0.161", "0.139"]
    for tail, line in ((["[0.280/1.732, 0.240/1.732] = [0.161, 0.139]"], 12),
                       (["[0.280/1.732, 0.240/1.732]", "= [0.161, 0.139]"], 13)):
        folder = tmp_path / str(line)
        folder.mkdir()
        out = check_post(folder, "\n".join(_SCORES + tail + ["```", ""]))
        got = [c for c in out["claims"] if c["line"] == line and c["printed"] in ("0.161", "0.139")]
        assert [c["printed"] for c in got] == ["0.161", "0.139"], got
        assert all(abs(mpmath.mpf(c["exact"]) - t) < mpmath.mpf("1e-12") for c, t in zip(got, truth))
        assert [c["verdict"] for c in got] == ["correct", "correct"]


def test_entry_k_of_a_row_times_a_matrix_takes_column_k(tmp_path):
    """C's column 2 prints (1, 0, 1) as V's column 3 does; entry 3 of w V is w · V[:, 3]."""
    from symattn.article.read import read_article
    from symattn.infer.blocks import blocks
    from symattn.infer.written import Written
    from symattn.infer.written_operands import _dot
    text = ("# Mix\n\n```\nw = [0.38, 0.23, 0.38]\nV = [[2, 1, 0, 1], [1, 2, 1, 0], [0, 1, 2, 1]]\n"
            "C = [[2, 0, 1], [0, 2, 0], [1, 1, 1]]\n```\n")
    path = tmp_path / "post.md"
    path.write_text(text, encoding="utf-8")
    found = blocks([(str(path), read_article(str(path)))])
    assert [b.name for b in found] == ["w", "V", "C"]
    numbers = ("0.38", "1", "0.23", "0", "0.38", "1")
    w = Written("arithmetic", False, "", "0.76", 9, "0.76", "", "{0} * {1} + {2} * {3} + {4} * {5}",
                numbers, place=3)
    operands, _ = _dot(w, found)
    assert operands == ("w[0, 0]", "V[0, 3]", "w[0, 1]", "V[1, 3]", "w[0, 2]", "V[2, 3]")


def test_a_name_given_to_two_numbers_names_no_step(tmp_path):
    """``d_scaled`` is 0 in chunk 1 and 1.018 in chunk 2: chunk 1's 0 is not judged as the
    step of chunk 2."""
    text = "\n".join(["# Online softmax by hand", "", "```", "scores = [5.0, 9.0]", "```", "",
                      "Chunk 1:", "", "```", "d_scaled = 0 × exp(-∞ - 9) = 0",
                      "d = exp(5.0 - 9.0) + exp(9.0 - 9.0) = 0.018 + 1 = 1.018", "```", "",
                      "Chunk 2:", "", "```", "d_scaled = 1.018 × exp(0) = 1.018", "```", ""])
    out = check_post(tmp_path, text)
    d = mpmath.exp(-4) + 1
    assert f"{float(d):.3f}" == "1.018"
    assert not [c for c in out["claims"] if c["line"] == 10]
    got = [c for c in out["claims"] if c["line"] == 17]
    assert got and all(c["verdict"] == "correct" and abs(mpmath.mpf(c["exact"]) - d) < mpmath.mpf("1e-12")
                       for c in got)


def test_a_weighted_sum_whose_lines_open_with_plus_is_one_equation(tmp_path):
    """``= [0.84, 0.42, 0, 0.42]`` is followed by ``+ [0.16, …]``: a term, not a result of
    0.42×[2,1,0,1] + 0.16×[1,2,1,0] + 0.42×[0,1,2,1]."""
    A = [_softmax(r) for r in S]
    shown = [[f"{float(x):.2f}" for x in r] for r in A]
    text = "\n".join([
        "# Mixing values by hand", "", f"$$S = {_bm(S)}$$", "",
        f"$$A = \\mathrm{{softmax}}(S) = {_bm(shown)}$$", "", f"$$V = {_bm(V)}$$", "", "```",
        "out_1 = 0.42 × [2, 1, 0, 1]",                       # line 10
        "      + 0.16 × [1, 2, 1, 0]",
        "      + 0.42 × [0, 1, 2, 1]",
        "      = [0.84, 0.42, 0, 0.42]",                     # line 13
        "      + [0.16, 0.32, 0.16, 0]",
        "      + [0, 0.42, 0.84, 0.42]",
        "      = [1.00, 1.16, 1.00, 0.84]", "```", ""])       # line 16
    out = check_post(tmp_path, text)
    truth = [sum(A[0][j] * V[j][k] for j in range(3)) for k in range(4)]
    last = [c for c in out["claims"] if c["line"] == 16]
    assert [c["printed"] for c in last] == ["1.00", "1.16", "1.00", "0.84"]
    assert all(abs(mpmath.mpf(c["exact"]) - t) < mpmath.mpf("1e-12") for c, t in zip(last, truth))
    assert [c["verdict"] for c in last] == ["correct"] * 4
    assert not [c for c in out["claims"] if c["line"] in (13, 14, 15) and c["verdict"] == "wrong"]
    term = [c for c in out["claims"] if c["line"] == 14 and c["printed"] == "0.32"]   # 0.16 × 2
    assert len(term) == 1 and term[0]["verdict"] == "carried"
    assert abs(mpmath.mpf(term[0]["exact"]) - 2 * A[0][1]) < mpmath.mpf("1e-12")
