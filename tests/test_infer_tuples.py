"""Values printed as tuples, an earlier vector printed again as an argument, and a short
vector with one wrong entry (`symattn check ARTICLE`, no spec).

Blog posts write vectors in parentheses (``softmax(8, 0, 0) = (0.9993, 0.0003, 0.0003)``),
reuse a vector printed earlier as the argument of a later call, and print one position's
encoding as a column. Truths are computed here with ``mpmath`` at 30 digits, never by symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath

from symattn.infer.vectors import as_lists

mpmath.mp.dps = 30


def cli(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          timeout=300)


def softmax(xs) -> list:
    e = [mpmath.exp(mpmath.mpf(x)) for x in xs]
    return [v / sum(e) for v in e]


def p(x, places: int) -> str:
    """``x`` rounded to ``places`` decimals, as a post prints it."""
    return f"{float(mpmath.nint(x * 10 ** places)) / 10 ** places:.{places}f}"


def run(tmp_path, text: str) -> dict:
    path = tmp_path / "post.md"
    path.write_text(text, encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def by_printed(out: dict) -> dict:
    return {(c["line"], c["printed"]): c["verdict"] for c in out["claims"]}


def test_a_tuple_is_a_vector_only_where_it_is_a_value():
    assert as_lists(r"$\mathrm{softmax}(8, 0, 0) = (0.9993, 0.0003)$") == \
        r"$\mathrm{softmax}[8, 0, 0] = [0.9993, 0.0003]$"
    assert as_lists("RMSNorm(x) ≈ (1.069, -0.535)") == "RMSNorm(x) ≈ [1.069, -0.535]"
    for prose in ("see (1, 2) and (3, 4)", "f(x, y) for (x, y) in pairs", "a point (0.5, 0.25) on it"):
        assert as_lists(prose) == prose
    assert as_lists(r"$(e^0, e^{0.7}) = (1, 2.0138)$").endswith("[1, 2.0138]$")   # no number list left of =


def test_softmax_of_tuples_is_checked_and_a_wrong_entry_flagged(tmp_path):
    sharp, soft = softmax([8, 0, 0]), softmax([1, 0, 0])
    wrong = p(soft[0] + mpmath.mpf("0.02"), 3)           # off by 20 units of its last place
    text = "\n".join([
        "# Why divide by the root",
        "",
        "Compare a sharp and a soft score vector:",
        "",
        f"- $\\mathrm{{softmax}}(8, 0, 0) = ({p(sharp[0], 4)}, {p(sharp[1], 4)}, {p(sharp[2], 4)})$",
        f"- $\\mathrm{{softmax}}(1, 0, 0) = ({wrong}, {p(soft[1], 3)}, {p(soft[2], 3)})$",
        "",
    ])
    got = by_printed(run(tmp_path, text))
    assert got[(5, p(sharp[0], 4))] == "correct" and got[(5, p(sharp[1], 4))] == "correct"
    assert got[(6, p(soft[1], 3))] == "correct"
    assert got[(6, wrong)] == "wrong"


def test_the_argument_printed_earlier_and_again_on_the_line_is_the_operand(tmp_path):
    """``(1, 0, 0)`` is first a row of weights, later the argument of a softmax whose
    result the softmax of the block printed just before also rounds to: the one written on
    the line is the operand, and its own whole numbers are no claims on the result."""
    sharp, soft = softmax([8, 0, 0]), softmax([1, 0, 0])
    assert all(abs(a - b) < mpmath.mpf("0.0005") for a, b in
               zip(softmax([float(p(x, 4)) for x in sharp]), soft))   # the trap: both round alike
    text = "\n".join([
        "# Masked weights",
        "",
        "Row 1 sees only itself: $\\alpha_1 = (1, 0, 0)$.",
        "",
        "Now compare:",
        "",
        f"- $\\mathrm{{softmax}}(8, 0, 0) = ({p(sharp[0], 4)}, {p(sharp[1], 4)}, {p(sharp[2], 4)})$",
        f"- $\\mathrm{{softmax}}(1, 0, 0) = ({p(soft[0], 3)}, {p(soft[1], 3)}, {p(soft[2], 3)})$",
        "",
    ])
    out = run(tmp_path, text)
    steps = [s["expr"] for e in out["inferred"] for s in e["steps"]]
    assert "softmax(alpha_1)" in steps, steps
    claims = [c for c in out["claims"] if c["line"] == 8]
    assert sorted(c["printed"] for c in claims) == sorted([p(soft[0], 3), p(soft[1], 3), p(soft[2], 3)])
    assert {c["verdict"] for c in out["claims"]} == {"correct"}


def test_one_positions_encoding_printed_upright_with_one_wrong_entry(tmp_path):
    """PE(pos = 1) for d = 4 printed as a column, its third entry 100 times too small:
    the sine and cosine that print three digits tell the row, the position is named a
    line above the display, the slip is wrong, and the sum with the embedding follows it."""
    pe = [mpmath.sin(1), mpmath.cos(1), mpmath.sin(mpmath.mpf("0.01")), mpmath.cos(mpmath.mpf("0.01"))]
    emb = ["1.688", "-0.454", "0", "0"]
    shown = [p(pe[0], 3), p(pe[1], 3), "0.0001", p(pe[3], 3)]
    total = [p(mpmath.mpf(e) + mpmath.mpf(s), 3) if k != 2 else "0.0001" for k, (e, s) in enumerate(zip(emb, shown))]
    col = lambda xs: r"\begin{pmatrix} " + r" \\ ".join(xs) + r" \end{pmatrix}"   # noqa: E731
    text = "\n".join([
        "# Positional encoding",
        "",
        "$PE_{(pos, 2i)} = \\sin(pos / 10000^{2i/d_{model}})$ and $PE_{(pos, 2i+1)} = \\cos(pos / 10000^{2i/d_{model}})$.",
        "",
        "For the word king at position 1 ($pos=1$):",
        "",
        "$$",
        f"{col(emb)} +",
        f"{col(shown)} =",
        f"{col(total)}",
        "$$",
        "",
    ])
    assert shown[:2] == ["0.841", "0.540"] and shown[3] == "1.000"
    out = run(tmp_path, text)
    verdicts = [(c["printed"], c["verdict"]) for c in out["claims"]]
    pe_claims = [c for c in out["claims"] if c["printed"] in shown and c["exact"] and
                 abs(mpmath.mpf(c["exact"]) - pe[shown.index(c["printed"])]) < mpmath.mpf("1e-20")]
    assert {c["printed"]: c["verdict"] for c in pe_claims} == \
        {"0.841": "correct", "0.540": "correct", "0.0001": "wrong", "1.000": "correct"}, verdicts
    assert [c["verdict"] in ("wrong", "carried") for c in out["claims"] if c["printed"] == "0.0001"] == \
        [True, True], verdicts                   # the sum's third entry follows from the slip


def test_weights_worked_from_near_equal_exponentials_are_their_quotients(tmp_path):
    """Scores a tenth apart give exponentials near 1 whose own softmax rounds like their
    quotients: softmax(exp) is no step. And keys printed at one decimal ([0.3, 0.0, 0.3])
    computed as X W_K do not make the row of weights [0.329, 0.335, 0.337] a print of theirs. The weights
    are exp / sum(exp), exact against mpmath's softmax of the scaled scores."""
    from fractions import Fraction as F
    Q = [["0.1", "0.3", "0.2"], ["0.5", "0.0", "0.4"], ["0.4", "0.2", "0.1"]]
    X = [["1.0", "0.0", "1.0", "0.0"], ["0.0", "1.0", "0.0", "1.0"], ["1.0", "1.0", "0.0", "0.0"]]
    W_K = [["0.2", "0.0", "0.1"], ["0.0", "0.3", "0.0"], ["0.1", "0.0", "0.2"], ["0.0", "0.1", "0.0"]]
    K = [[f"{float(sum(F(a) * F(W_K[t][j]) for t, a in enumerate(x))):.1f}" for j in range(3)] for x in X]
    assert K == [["0.3", "0.0", "0.3"], ["0.0", "0.4", "0.0"], ["0.2", "0.3", "0.1"]]   # K = X W_K, exact
    S = [[sum(F(a) * F(b) for a, b in zip(q, k)) for k in K] for q in Q]
    scaled = [[mpmath.mpf(x.numerator) / x.denominator / mpmath.sqrt(3) for x in r] for r in S]
    row = [p(x, 3) for x in scaled[0]]
    e = [mpmath.exp(mpmath.mpf(x)) for x in row]            # the text's exps of its printed row
    w = softmax(scaled[0])
    assert [p(x, 3) for x in softmax(e)] == [p(x, 3) for x in w]   # the coincidence the search must not take

    def box(name, m):
        return "\n".join(f"{name} = [{', '.join(r)}]" if k == 0 else f"{' ' * len(name)}   [{', '.join(r)}]"
                         for k, r in enumerate(m))
    text = "\n".join(["# Attention by hand", "", "```", box("X", X), "", box("W_K", W_K), "", box("Q", Q), "",
                      "Keys, K = X W_K:", box("K", K), "",
                      box("S = Q K^T", [[p(x, 2) for x in r] for r in S]), "```", "",
                      "Scale by $\\sqrt{d_k} = \\sqrt{3}$:", "", "```",
                      box("S_scaled", [[p(x, 3) for x in r] for r in scaled]), "", "Row 1: softmax([" + ", ".join(row) + "])",
                      f"  exp: [{', '.join(p(x, 3) for x in e)}]",
                      f"  α_1 = [{', '.join(p(x, 3) for x in w)}]", "```", ""])
    out = run(tmp_path, text)
    steps = [s["expr"] for ex in out["inferred"] for s in ex["steps"]]
    assert not any(s.startswith("softmax(exp") for s in steps), steps
    weights = [c for c in out["claims"] if c["printed"] in [p(x, 3) for x in w] and c["line"] == text.splitlines().index(
        f"  α_1 = [{', '.join(p(x, 3) for x in w)}]") + 1]
    assert len(weights) == 3 and {c["verdict"] for c in weights} == {"correct"}, out["claims"]
