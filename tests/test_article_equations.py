"""Issue 20: what an equation's structure says a printed block is.

Each article here is small and written in the test; each truth is computed with mpmath or
fractions from the inputs, never by symattn."""

from __future__ import annotations

from fractions import Fraction

import mpmath

from test_article_labels import check, at, softmax_row

mpmath.mp.dps = 30


WEIGHTED = """
[example]
id = "wv"
source = "post.md"
tokens = ["a", "b", "c"]
[inputs]
z = { value = [[0, 2], [0, 9], [9, 0]], rows = "tokens" }
v = [[1, 2], [3, 4]]
[[steps]]
name = "p"
expr = "softmax(z)"
[[steps]]
name = "weighted_key1"
expr = "p[:, 0] @ v[0]"
[[steps]]
name = "weighted_key2"
expr = "p[:, 1] @ v[1]"
"""


def test_a_block_of_a_3d_printout_that_follows_from_a_wrong_print_is_claimed(tmp_path):
    """`p` printed rounded "for readability" ([0.0, 1.0] for softmax([0, 2]) = [0.1192,
    0.8808]: both wrong); the 3-D printout of `weighted` below it computes from those
    prints: its first row of zeros and its [3.0000, 4.0000] follow from the wrong prints.
    They are claims on the family's members (wrong, following from line 7), not unverified."""
    p = [softmax_row(r) for r in (["0", "2"], ["0", "9"], ["9", "0"])]
    assert [f"{float(x):.4f}" for x in p[0]] == ["0.1192", "0.8808"]
    key1_a = [p[0][0] * 1, p[0][0] * 2]                     # p[a, 0] · v[0]
    key2_a = [p[0][1] * 3, p[0][1] * 4]                     # p[a, 1] · v[1]
    assert [f"{float(x):.4f}" for x in key1_a] == ["0.1192", "0.2384"]
    assert [f"{float(x):.4f}" for x in key2_a] == ["2.6424", "3.5232"]
    article = ("# Weighted values\n\n```python\np = softmax(z, dim=-1)\n# For readability:\n"
               "p = [\n  [0.0, 1.0],\n  [0.0, 1.0],\n  [1.0, 0.0]\n]\n"
               "weighted = v[:, None] * p.T[:, :, None]\n"
               "# tensor([[[0.0000, 0.0000],\n#          [0.0000, 0.0000],\n#          [1.0000, 2.0000]],\n"
               "#\n#         [[3.0000, 4.0000],\n#          [2.9996, 3.9995],\n#          [0.0004, 0.0005]]])\n```\n")
    out = check(tmp_path, WEIGHTED, article)
    assert at(out, 7) == [("p", ["a", "0"], "0.0", "wrong"), ("p", ["a", "1"], "1.0", "wrong")]
    assert at(out, 12) == [("weighted_key1", ["a", "0"], "0.0000", "wrong"),
                           ("weighted_key1", ["a", "1"], "0.0000", "wrong")]
    assert at(out, 16) == [("weighted_key2", ["a", "0"], "3.0000", "wrong"),
                           ("weighted_key2", ["a", "1"], "4.0000", "wrong")]
    follows = [c for c in out["claims"] if c["line"] in (12, 16)]
    assert all("follows from the wrong number printed at line 7" in c["diagnosis"] for c in follows)
    assert not [u for u in out["unmatched"] if u["line"] in (12, 16)]


STACKED = """
[example]
id = "wv"
source = "post.md"
tokens = ["a", "b"]
[inputs]
s = { value = [[0, 2]], cols = "tokens" }
v = { value = [[3, 5], [3, 4]], rows = "tokens" }
[[steps]]
name = "p"
expr = "softmax(s)"
[[steps]]
name = "weighted"
expr = "p.T * v"
"""


def test_the_results_of_parallel_equations_on_consecutive_lines_are_one_block(tmp_path):
    """`1: 0.0 * [3, 5] = [0.0, 0.0]` over `2: 1.0 * [3, 4] = [3.0, 4.0]`: the results are
    rows 1 and 2 of one block (weighted = p_k · v_k), claimed whole although no entry is
    right (the weights were printed [0.0, 1.0] for softmax([0, 2]) = [0.1192, 0.8808]);
    3.0 and 4.0 are not the input v's 3 and 4, and the ordinals 1, 2 print nothing."""
    p = softmax_row(["0", "2"])
    weighted = [[p[0] * 3, p[0] * 5], [p[1] * 3, p[1] * 4]]
    assert [[f"{float(x):.1f}" for x in r] for r in weighted] == [["0.4", "0.6"], ["2.6", "3.5"]]
    article = ("# Weighted values\n\n```\np = [0.0, 1.0]\n```\n\nEach value times its weight:\n\n"
               "```\n1: 0.0 * [3, 5] = [0.0, 0.0]\n2: 1.0 * [3, 4] = [3.0, 4.0]\n```\n")
    out = check(tmp_path, STACKED, article)
    assert at(out, 10) == [("weighted", ["a", "0"], "0.0", "wrong"), ("weighted", ["a", "1"], "0.0", "wrong")]
    assert at(out, 11) == [("weighted", ["b", "0"], "3.0", "wrong"), ("weighted", ["b", "1"], "4.0", "wrong")]
    assert all(c["diagnosis"] == ["follows from the wrong number printed at line 4"]
               for c in out["claims"] if c["line"] in (10, 11))
    assert not [u for u in out["unmatched"] if u["column"] == 1]          # the ordinals


SUM = """
[example]
id = "sum"
source = "post.md"
[inputs]
w = [[0.126, 0.874]]
v = [[1, 2], [3, 5]]
[[steps]]
name = "output1"
expr = "w @ v"
"""


def test_a_sentence_that_names_the_block_after_it_places_it_and_its_sum_above(tmp_path):
    """"The resulting vector [2.0, 7.0] is Output 1" names the step output1 (= w·v =
    [2.748, 4.622]): both numbers wrong there, as is the same `= [2.0, 7.0]` that ends the
    column sum just above it, not the input v's 2 (nor any entry that happens to be 7)."""
    w = [Fraction("0.126"), Fraction("0.874")]
    out1 = [w[0] * 1 + w[1] * 3, w[0] * 2 + w[1] * 5]
    assert out1 == [Fraction("2.748"), Fraction("4.622")]
    article = ("# Sum\n\nSum them element-wise:\n\n```\n  [0.1, 0.2]\n+ [2.6, 4.4]\n-----------\n"
               "= [2.0, 7.0]\n```\n\nThe resulting vector [2.0, 7.0] (dark green) is Output 1, which is "
               "based on the **query** of input 1.\n")
    out = check(tmp_path, SUM, article)
    assert at(out, 9) == [("output1", ["0", "0"], "2.0", "wrong"), ("output1", ["0", "1"], "7.0", "wrong")]
    assert [(r["line"], r["at"], r["verdict"], r["restates"]) for r in out["restated"]] == \
        [(12, ["0", "0"], "wrong", 9), (12, ["0", "1"], "wrong", 9)]       # the same wrong numbers again


ROWS = """
[example]
id = "rows"
source = "post.md"
[inputs]
s = [[1.4, 0.7, 0.7]]
V = [[0, 2], [1, 1], [2, 0]]
[[steps]]
name = "A"
expr = "softmax(s)"
[[steps]]
name = "T"
expr = "A.T * V"
"""


def test_a_block_before_its_rounded_form_prints_what_that_form_prints(tmp_path):
    """`[0.501, 0.249, 0.249] ≈ [0.50, 0.25, 0.25]`: the second block is A (softmax of
    [√2, √½, √½] = [0.5035, 0.2483, 0.2483]), so the first prints A too, every entry wrong
    (0.503, 0.248): claims there, although no entry rounds to any of them."""
    spec = ROWS.replace("s = [[1.4, 0.7, 0.7]]", "s = [[1.4142135624, 0.7071067812, 0.7071067812]]")
    a = softmax_row(["1.4142135624", "0.7071067812", "0.7071067812"])
    assert [f"{float(x):.3f}" for x in a] == ["0.503", "0.248", "0.248"]
    assert [f"{float(x):.2f}" for x in a] == ["0.50", "0.25", "0.25"]
    article = "# Softmax\n\nFinal result: $[0.501, 0.249, 0.249]$ ≈ $[0.50, 0.25, 0.25]$\n"
    out = check(tmp_path, spec, article)
    assert at(out, 3) == [("A", ["0", "0"], "0.501", "wrong"), ("A", ["0", "1"], "0.249", "wrong"),
                          ("A", ["0", "2"], "0.249", "wrong"), ("A", ["0", "0"], "0.50", "correct"),
                          ("A", ["0", "1"], "0.25", "correct"), ("A", ["0", "2"], "0.25", "correct")]


def test_a_line_that_continues_a_computation_prints_a_steps_row_not_an_input(tmp_path):
    """`0.50 × [0,2] + …` then `= [0,\\;1.0] + [0.25,\\;0.25] + …`: [0, 1.0] is the
    weighted row T[0] = A[0]·V[0] = [0, 1.0034] (a whole row of T), not V[1] = [1, 1]'s
    neighbour nor any input or slice of a step that is exactly [0, 1]."""
    a = softmax_row(["1.4", "0.7", "0.7"])
    t0 = [a[0] * 0, a[0] * 2]
    assert t0[0] == 0 and f"{float(t0[1]):.1f}" == "1.0"
    spec = ROWS.replace('V = [[0, 2], [1, 1], [2, 0]]', 'V = [[0, 2], [1, 1], [2, 0]]\nQ = [[0, 1]]')
    article = ("# Output\n\n$$\n0.50 \\times [0,2] + 0.25 \\times [1,1] + 0.25 \\times [2,0]\n"
               "= [0,\\;1.0] + [0.25,\\;0.25] + [0.50,\\;0]\n$$\n")
    out = check(tmp_path, spec, article)
    assert at(out, 5) == [("T", ["0", "0"], "0", "correct"), ("T", ["0", "1"], "1.0", "correct"),
                          ("T", ["1", "0"], "0.25", "correct"), ("T", ["1", "1"], "0.25", "correct"),
                          ("T", ["2", "0"], "0.50", "correct"), ("T", ["2", "1"], "0", "correct")]


TERMS = """
[example]
id = "terms"
source = "post.md"
[inputs]
A = [[0.25, 0.25, 0.25, 0.25]]
V = [[2], [4], [6], [8]]
[[steps]]
name = "T"
expr = "A.T * V"
[[steps]]
name = "out"
expr = "A @ V"
"""


def test_the_terms_of_a_sum_written_out_between_two_equals_are_one_block(tmp_path):
    """`= 0.25 × 2 + … = 0.5 + 1 + 1.5 + 2 = 5`: the terms are T = Aᵀ·V (0.5, 1, 1.5, 2),
    read together; the whole numbers 1 and 2 print T's entries (not V's 2 or a count)."""
    t = [Fraction(1, 4) * v for v in (2, 4, 6, 8)]
    assert t == [Fraction(1, 2), 1, Fraction(3, 2), 2] and sum(t) == 5
    article = ("# Output\n\n$$\n= 0.25 \\times 2 + 0.25 \\times 4 + 0.25 \\times 6 + 0.25 \\times 8"
               " = 0.5 + 1 + 1.5 + 2 = 5.\n$$\n")
    out = check(tmp_path, TERMS, article)
    got = [x for x in at(out, 4) if x[0] in ("T", "out")]
    assert got == [("T", ["0", "0"], "0.5", "correct"), ("T", ["1", "0"], "1", "correct"),
                   ("T", ["2", "0"], "1.5", "correct"), ("T", ["3", "0"], "2", "correct"),
                   ("out", ["0", "0"], "5", "correct")]


SCALED = """
[example]
id = "scaled"
source = "post.md"
[inputs]
S = [[1, 1, 1, 1]]
K = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
[[steps]]
name = "sqrt_dk"
expr = "sqrt(width(K))"
[[steps]]
name = "scaled"
expr = "S / sqrt_dk"
"""


def test_the_divisor_of_a_printed_division_prints_the_steps_divisor(tmp_path):
    """`\\frac{[1,\\;1,\\;1,\\;1]}{2} = [0.5, …]`: the result is scaled = S / sqrt_dk, so the
    2 it divides by prints sqrt_dk (√4 = 2), a whole number no value alone would claim."""
    assert mpmath.sqrt(4) == 2 and Fraction(1, 2) == Fraction("0.5")
    article = ("# Scale\n\n$$\n\\frac{[1,\\;1,\\;1,\\;1]}{2} = [0.5,\\;0.5,\\;0.5,\\;0.5].\n$$\n")
    out = check(tmp_path, SCALED, article)
    assert ("sqrt_dk", ["0", "0"], "2", "correct") in at(out, 4)
    assert [x for x in at(out, 4) if x[0] == "scaled"] == [
        ("scaled", ["0", str(j)], "0.5", "correct") for j in range(4)]
