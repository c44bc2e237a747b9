"""A weight matrix the text writes as a fraction of a matrix (``W_1=\\frac12\\begin{bmatrix}
1 & -1 …``) is that fraction's products, exact, and a block the text labels with the
weight's name (``\\tilde Z W_1 =``) takes it as an operand however far back it is printed.

Truths come from ``fractions``, never from symattn.
"""

from __future__ import annotations

from fractions import Fraction as F

from conftest import check_post


def bmatrix(rows) -> str:
    return r"\begin{bmatrix}" + r"\\".join("&".join(str(x) for x in r) for r in rows) + r"\end{bmatrix}"


W1 = [[1, -1, 0, 1], [0, 1, 1, -1], [1, 0, -1, 0]]          # times 1/2
Z = [[F("1.5"), F("-0.5"), F("0.25")], [F("-1"), F("2"), F("0.75")]]
FILLER = [[F(k, 10), F(k + 1, 10)] for k in range(1, 40, 2)]   # unrelated blocks between


def product():
    return [[sum(z * F(w[j]) / 2 for z, w in zip(row, W1)) for j in range(4)] for row in Z]


def post(wrong: bool) -> str:
    zw = [[f"{float(x):.4f}" for x in r] for r in product()]
    if wrong:
        zw[1][2] = f"{float(product()[1][2]) + 0.01:.4f}"
    lines = ["# FFN by hand", "", "$$", r"W_1=\frac12" + bmatrix(W1), "$$", ""]
    for k, m in enumerate(FILLER):
        lines += [f"Aside {k}:", "", "$$", f"A_{k} = " + bmatrix([[str(x) for x in m]]), "$$", ""]
    lines += ["$$", r"\tilde Z=" + bmatrix([[str(x) for x in r] for r in Z]), "$$", "",
              "Expand:", "", "$$", r"\tilde Z W_1=" + bmatrix(zw), "$$", ""]
    return "\n".join(lines)


def test_a_fraction_of_a_matrix_is_a_given_and_a_named_weight_an_operand(tmp_path):
    d = check_post(tmp_path, post(wrong=False), "ffn.md")
    claims = [c for c in d["claims"] if c["line"] == 4 + 6 * len(FILLER) + 10]
    assert len(claims) == 8 and all(c["verdict"] == "correct" for c in claims)
    truth = product()
    for c in claims:
        i, j = (int(x) for x in c["at"])
        assert abs(F(c["exact"]) - truth[i][j]) < F(1, 10 ** 15)


def test_a_wrong_entry_of_the_product_is_flagged(tmp_path):
    d = check_post(tmp_path, post(wrong=True), "ffn.md")
    wrong = [c for c in d["claims"] if c["verdict"] == "wrong"]
    assert [(c["at"], F(c["exact"])) for c in wrong] == [(["1", "2"], product()[1][2])]
