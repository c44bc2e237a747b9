"""Vector arithmetic written out on one line (``[1.000, 1.500] + [0.959, 0.679] = [1.959,
2.179]``, ``0.332×[0.3, 0.4] = [0.100, 0.133]``) is read entry by entry as written
arithmetic, each number the print of the example's entry it is, so a slipped entry is
flagged; a number of it that no block or result prints (a weight rounded in a list before)
makes it no arithmetic to judge as written.

Truths: worked out here with ``fractions``, never by symattn.
"""

from __future__ import annotations

from fractions import Fraction as F

from conftest import check_post

from symattn.infer.written import _elementwise


def test_lists_worked_together_are_read_entry_by_entry():
    assert _elementwise("cat: [1.000, 1.500] + [0.959, 0.679] = [1.959, 2.179]") == [
        ("1.000 + 0.959 = 1.959", True, 0), ("1.500 + 0.679 = 2.179", True, 1)]
    assert _elementwise("≈0.4×[0.3,-0.2] = [0.12, -0.08]") == [("0.4×0.3 = 0.12", True, 0),
                                                             ("0.4×-0.2 = -0.08", True, 1)]
    assert _elementwise("[1, 2] + [3, 4, 5] = [4, 6]") == []          # lists of other lengths


def test_rows_of_two_matrices_side_by_side_are_no_product():
    """A sum of 2×2 matrices drawn in text: the second rows stand side by side, with no
    operator between them (the ``+`` is on the line above); nothing multiplies them."""
    text = ("block1_input = [0.01414, 0.00707] + [0.707, -0.707]\n"
            "               [0.00707, 0.01414]   [-0.707, 0.707]\n\n"
            "              = [0.72114, -0.69993]\n")
    assert _elementwise(text, text.index("= [0.72")) == []
    assert _elementwise("[0.5, 0.2] * [2, 3] = [1.0, 0.6]") == [("0.5 * 2 = 1.0", True, 0),
                                                              ("0.2 * 3 = 0.6", True, 1)]


def bm(rows):
    return "\\begin{bmatrix} " + " \\\\ ".join(" & ".join(r) for r in rows) + " \\end{bmatrix}"


X = [["1.25", "0.50"], ["0.75", "1.10"]]
W = [["0.4", "0.2"], ["0.1", "0.3"]]
Y = [[sum(F(a) * F(b) for a, b in zip(r, c)) for c in zip(*W)] for r in X]   # X W
SHOWN = [[f"{float(y):.3f}" for y in r] for r in Y]


def _post(more: list) -> str:
    assert all(F(s) == y for r, t in zip(SHOWN, Y) for s, y in zip(r, t))    # exact in 3 decimals
    return "\n".join(["# A residual by hand", "", f"$$X = {bm(X)}$$", "", f"$$W = {bm(W)}$$", "",
                      f"$$Y = X W = {bm(SHOWN)}$$", "", "The residual of the first token:", "", "```",
                      *more, "```", ""])


def test_a_slipped_entry_of_lists_added_is_flagged(tmp_path):
    total = [F(X[0][0]) + Y[0][0], F(X[0][1]) + Y[0][1]]                         # the residual of row 0
    printed = [f"{float(total[0]):.3f}", f"{float(total[1] + F('0.01')):.3f}"]  # its second entry slipped
    out = check_post(tmp_path, _post([f"first: [{', '.join(X[0])}] + [{', '.join(SHOWN[0])}] = "
                                      f"[{', '.join(printed)}]"]))
    got = sorted((c for c in out["claims"] if c["line"] == 12 and c["printed"] in printed),
                 key=lambda c: printed.index(c["printed"]))
    assert [F(c["exact"]) for c in got] == total
    assert [c["verdict"] for c in got] == ["correct", "wrong"]


def test_a_weight_rounded_in_a_list_before_is_no_given_of_arithmetic_to_judge(tmp_path):
    out = check_post(tmp_path, _post(["weights ≈ [0.10, 0.45, 0.45]   (rounded)",   # no softmax written:
                                      f"2: 0.45 * [{', '.join(SHOWN[0])}] = [0.248, 0.180]"]))  # an origin
    assert not [c for c in out["claims"] if c["line"] == 13 and c["step"].startswith("written")]


def test_a_weight_a_written_softmax_rounds_is_the_origin_of_arithmetic_on_it(tmp_path):
    """``softmax([2, 4, 4]) = [0.10, 0.45, 0.45]`` (0.06, 0.47, 0.47: wrong) then ``0.45 *
    [...]``: the 0.45 is that softmax's entry, so the product is judged from e⁴/(e²+2e⁴) and
    follows from the wrong weight."""
    import mpmath
    out = check_post(tmp_path, _post(["softmax([2, 4, 4]) = [0.10, 0.45, 0.45]",
                                      f"2: 0.45 * [{', '.join(SHOWN[0])}] = [0.248, 0.180]"]))
    weight = mpmath.exp(4) / (mpmath.exp(2) + 2 * mpmath.exp(4))
    got = {c["printed"]: c for c in out["claims"] if c["line"] == 13}
    assert set(got) >= {"0.248", "0.180"}
    for printed, y in (("0.248", Y[0][0]), ("0.180", Y[0][1])):
        want = weight * mpmath.mpf(y.numerator) / y.denominator
        assert abs(mpmath.mpf(got[printed]["exact"]) - want) < mpmath.mpf("1e-20")
        assert got[printed]["verdict"] in ("wrong", "carried")
    first = [c for c in out["claims"] if c["line"] == 12 and c["printed"] == "0.10"]
    assert len(first) == 1 and first[0]["verdict"] == "wrong"
