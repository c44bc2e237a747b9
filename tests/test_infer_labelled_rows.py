"""ASCII matrices whose rows carry a label on the left (``Q₁("cat")  [ 2.1  1.3 ]``,
``"cat" →  [ 1.00  0.00 ]``), a note on the right (``"cat" only sees itself``) or a mask
drawn beside them (``[ ✓  · ]    [ 2.1  -∞ ]``), read as matrices and checked with no spec;
and an input printed on the line of the step that works it (``x̃ = (2, 4, 6)``, ``e^2 + e^4 +
e^6 ≈ 7.389 + …``), which prints the input, not that step. Beside them, what such texts
print around their matrices: vectors indexed and named by their token (``q_0 (dog) = […]``)
stacked into the matrix the scores take, the ε a notebook cell's code states for every output
it prints, and the exponentials of a row written on their own line.

Truths: softmax and exponentials from mpmath, rounding by ``decimal``, never by symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction as F

import mpmath

from symattn.article.matrices import find
from symattn.article.source import Line

SCORES = [["2.1", "1.3", "0.8"], ["1.5", "2.4", "1.1"], ["0.9", "1.7", "2.6"]]
TOKENS = ["cat", "sat", "mat"]


def lines(text: str, kind: str = "code") -> list[Line]:
    return [Line(i + 1, t, kind) for i, t in enumerate(text.splitlines())]


def claims_of(path, text: str, *exits: int) -> list:
    """The claims ``check --json`` makes on ``text`` written to ``path``, its exit one of ``exits``."""
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode in exits, r.stdout + r.stderr
    return json.loads(r.stdout)["claims"]


def dec(x, places: int) -> str:
    return str(Decimal(mpmath.nstr(x, 30, strip_zeros=False)).quantize(
        Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def causal_softmax(rows):
    """Row ``i`` softmax over its first ``i + 1`` entries, zeros after (mpmath, 40 digits)."""
    mpmath.mp.dps = 40
    out = []
    for i, r in enumerate(rows):
        e = [mpmath.exp(mpmath.mpf(v)) for v in r[:i + 1]]
        out.append([x / sum(e) for x in e] + [mpmath.mpf(0)] * (len(r) - i - 1))
    return out


def test_rows_labelled_on_the_left_and_noted_on_the_right_are_one_matrix():
    text = ("              K₁(\"cat\")  K₂(\"sat\")\n"
            "  Q₁(\"cat\")  [  2.1        1.3    ]\n"
            "  Q₂(\"sat\")  [  1.5        2.4    ]\n\n"
            "  \"cat\" →    [ 1.00       0.00 ]    \"cat\" only sees itself\n"
            "  \"sat\" →    [ 0.29       0.71 ]    \"sat\" sees cat + sat\n")
    got = [(p.values, p.rows) for p in find(lines(text))]
    assert got == [(((F(21, 10), F(13, 10)), (F(3, 2), F(12, 5))), ("cat", "sat")),
                   (((1, 0), (F(29, 100), F(71, 100))), ("cat", "sat"))]


def test_a_mask_drawn_beside_the_rows_leaves_the_rows():
    text = ("  CAUSAL MASK:        AFTER MASKING:\n"
            "  [  ✓   ·  ]    [  2.1   -∞  ]\n"
            "  [  ✓   ✓  ]    [  1.5   2.4 ]\n")
    (p,) = find(lines(text))
    assert p.texts == (("2.1", "\"-inf\""), ("1.5", "2.4"))
    assert p.values[0][0] == F(21, 10) and p.values[1] == (F(3, 2), F(12, 5))


def test_a_prose_note_with_numbers_after_the_rows_is_no_row():
    text = "  [ 1.00  0.00 ]    cat scores 3 points\n  [ 0.29  0.71 ]    sat scores 4 points\n"
    assert [p for p in find(lines(text)) if p.form == "table"] == []


def test_a_post_of_labelled_ascii_matrices_is_inferred_and_its_slip_flagged(tmp_path):
    weights = causal_softmax(SCORES)
    printed = [[dec(x, 2) for x in r] for r in weights]
    truth = weights[2][2]
    printed[2][2] = dec(truth + mpmath.mpf("0.04"), 2)          # 0.67 for 0.63
    score_rows = "\n".join(f"  Q{i + 1}(\"{t}\")  [  " + "        ".join(r) + "    ]"
                           for i, (t, r) in enumerate(zip(TOKENS, SCORES)))
    masked = "\n".join("  [  " + "   ".join("✓" if j <= i else "·" for j in range(3)) + "  ]    [  "
                       + "   ".join(v if j <= i else "-∞" for j, v in enumerate(r)) + "  ]"
                       for i, r in enumerate(SCORES))
    table = "\n".join(f"  \"{t}\" →    [ " + "       ".join(r) + " ]    \"{t}\" looks back"
                      for t, r in zip(TOKENS, printed))
    post = (f"# Causal attention\n\n```\n  Score matrix:\n\n              K1(\"cat\")  K2(\"sat\")  K3(\"mat\")\n"
            f"{score_rows}\n```\n\n```\n  CAUSAL MASK:        AFTER MASKING:\n{masked}\n```\n\n"
            f"Softmax of each row:\n\n```\n  ATTENTION WEIGHTS (CAUSAL):\n\n{table}\n```\n")
    claims = claims_of(tmp_path / "causal.md", post, 1)
    bad = [(c["printed"], round(Decimal(c["exact"]), 12)) for c in claims if c["verdict"] == "wrong"]
    assert bad == [(printed[2][2], round(Decimal(mpmath.nstr(truth, 30)), 12))]
    right = sorted(c["printed"] for c in claims if c["verdict"] == "correct" and c["line"] >= 20)
    assert right == sorted(x for k, r in enumerate(printed) for j, x in enumerate(r) if (k, j) != (2, 2))


def test_an_input_printed_on_the_line_of_its_exponentials_is_not_their_print(tmp_path):
    mpmath.mp.dps = 40
    x = [2, 4, 6]
    e = [mpmath.exp(v) for v in x]
    s = [v / sum(e) for v in e]
    post = ("# Temperature\n\n$x = (1, 2, 3)$ and $T = 0.5$.\n\n"
            f"$\\tilde{{x}} = (2, 4, 6)$, $D = e^2 + e^4 + e^6 \\approx {dec(e[0], 3)} + {dec(e[1], 3)} + "
            f"{dec(e[2], 3)} = {dec(sum(e), 3)}$.\n\n"
            f"$s \\approx ({dec(s[0], 3)}, {dec(s[1], 3)}, {dec(s[2], 3)})$.\n")
    claims = claims_of(tmp_path / "t.md", post, 0)
    assert all(c["verdict"] == "correct" for c in claims)
    assert {dec(v, 3) for v in e} <= {c["printed"] for c in claims}
    assert not {"2", "4", "6"} & {c["printed"] for c in claims}


def test_vectors_indexed_with_their_token_stack_into_the_matrix_the_scores_take(tmp_path):
    Q = [[F("0.34"), F("1.26")], [F("1.32"), F("0.44")], [F("1.2"), F("1.22")]]
    K = [[F("0.65"), F("1.03")], [F("1.23"), F("1.11")], [F("1.01"), F("0.59")]]
    S = [[sum(q[k] * r[k] for k in range(2)) for r in K] for q in Q]
    printed = [[f"{float(x):.4f}" for x in row] for row in S]      # exact: two decimals times two
    assert all(F(p) == x for row, prow in zip(S, printed) for x, p in zip(row, prow))
    printed[2][1] = f"{float(S[2][1] + F(1, 100)):.4f}"
    words = ["dog", "chased", "cat"]
    vec = lambda name, m: "\n".join(f"  {name}_{i} ({w}) = [{float(r[0]):.3f}, {float(r[1]):.3f}]"
                                    for i, (w, r) in enumerate(zip(words, m)))
    claims = claims_of(tmp_path / "scores.md",
                       f"# Scores\n\n```text\nQ:\n{vec('q', Q)}\n\nK:\n{vec('k', K)}\n```\n\n"
                       "Raw scores S = Q K^T:\n\n```text\n"
                       + "\n".join("  [ " + ",  ".join(r) + " ]" for r in printed) + "\n```\n", 1)
    assert [(c["printed"], Decimal(c["exact"])) for c in claims if c["verdict"] == "wrong"] == \
        [(printed[2][1], Decimal(S[2][1].numerator) / S[2][1].denominator)]
    assert sum(c["verdict"] == "correct" for c in claims) == 8


def test_the_code_of_a_cell_states_the_epsilon_of_every_output_it_prints(tmp_path):
    import nbformat
    mpmath.mp.dps = 40
    x = [mpmath.mpf(1), mpmath.mpf(10), mpmath.mpf(100)]
    mean = sum(x) / 3
    var = sum((v - mean) ** 2 for v in x) / 3
    truth = [(v - mean) / mpmath.sqrt(var + mpmath.mpf("1e-6")) for v in x]
    other = [(v - mean) / mpmath.sqrt(var + mpmath.mpf("1e-5")) for v in x]
    assert abs(truth[0] - other[0]) > mpmath.mpf("1e-10")      # the two ε tell apart in the exact values
    code = ("x = torch.tensor([1.0, 10.0, 100.0])\nprint(x)\n"
            "std = torch.sqrt(x.var(unbiased=False) + 1e-6)\nprint((x - x.mean()) / std)")
    out = "tensor([  1.,  10., 100.])\ntensor([" + ", ".join(dec(v, 4) for v in truth) + "])\n"
    cell = nbformat.v4.new_code_cell(code)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=out)]
    later = nbformat.v4.new_code_cell("ln = nn.LayerNorm(3, eps=1e-5)")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# LayerNorm by hand"), cell, later]
    claims = claims_of(tmp_path / "ln.ipynb", nbformat.writes(nb), 0)
    assert len(claims) == 3
    assert all(abs(mpmath.mpf(c["exact"]) - t) < mpmath.mpf("1e-15") for c, t in zip(claims, truth))


def test_the_exponentials_of_a_row_written_on_their_line_are_derived_from_it(tmp_path):
    """The row [1, 0, 1] of S is written on the exponentials' own line: taking it is no
    choice, so [2.718, 1, 2.718] is exp(S[0]), its prints judged from e, not given."""
    mpmath.mp.dps = 40
    claims = claims_of(tmp_path / "rows.md",
                       "# Scores\n\n```\nS = [[1, 0, 1],\n     [0, 1, 1],\n     [1, 1, 2]]\n```\n\n"
                       "Row 1 has the scores [1, 0, 1], so exp gives [2.718, 1, 2.718].\n", 0)
    exps = [c for c in claims if c["line"] == 9]
    assert [(c["printed"], c["verdict"]) for c in exps] == [("2.718", "correct"), ("1", "correct"),
                                                            ("2.718", "correct")]
    assert abs(mpmath.mpf(exps[0]["exact"]) - mpmath.e) < mpmath.mpf("1e-15")
