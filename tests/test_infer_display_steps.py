"""Worked examples written as a run of display equations, checked with no spec:

- a dot product substituted and summed over separate ``\\[ … \\]`` blocks (``= (0.3)(0.5) +
  …``, a blank, ``= 0.15 + … \\approx 0.47``): its terms and its sum are claims;
- a softmax of that score and a score the text assumes (``assuming a score ≈ 1.1``);
- the output as those weights times value vectors (``0.37 \\cdot [..] + 0.63 \\cdot [..]``),
  its slip flagged;
- products written after their form in symbols (``W_Q * x1 * W_K * x1 = 0.1 * 0.2 * 0.1``)
  in a code block that doubles its backslashes (``\\\\frac``), a wrong softmax flagged;
- a matrix whose rows end in ``\\\\\\`` (Markdown's escaped row end), printed again in a
  product: the second print judged as printed (``1.1920e-01``, not ``1.1920e-1``).

Truths: ``fractions`` and ``mpmath`` at 30 digits, never symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import mpmath

from symattn.spec.latex_import import read_matrices

mpmath.mp.dps = 30


def check(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def verdicts(d):
    return {(c["line"], c["printed"]): c["verdict"] for c in d["claims"]}


def rounds_to(x, printed):
    places = len(printed.partition(".")[2])
    return abs(mpmath.mpf(x) - mpmath.mpf(printed)) <= mpmath.mpf(10) ** -places / 2


DISPLAY = r"""# Attention for one word

- Query: \[ q = [0.3, 0.9, 0.4] \]
- Key: \[ k = [0.5, 0.2, 0.6] \]
- Value (a): \[ v_a = [0.10, 0.80, 0.50] \]
- Value (b): \[ v_b = [0.70, 0.20, 0.30] \]

\[
s = q \cdot k
\]

\[
= (0.3)(0.5) + (0.9)(0.2) + (0.4)(0.6)
\]

\[
= 0.15 + 0.18 + 0.24 \approx 0.57
\]

With a second word (assuming its score ≈ 1.1):

\[
\alpha_a = \frac{e^{0.57}}{e^{0.57} + e^{1.1}} \approx 0.37
\]

\[
\alpha_b = \frac{e^{1.1}}{e^{0.57} + e^{1.1}} \approx 0.63
\]

\[
out = \alpha_a \cdot v_a + \alpha_b \cdot v_b
\]

\[
= 0.37 \cdot [0.10, 0.80, 0.50] + 0.63 \cdot [0.70, 0.20, 0.30]
\]

\[
= [0.48, 0.42, 0.36]
\]
"""


def test_a_run_of_display_equations_is_worked_out(tmp_path):
    got = verdicts(check(tmp_path, "display.md", DISPLAY))
    q, k = [Fraction(x) for x in ("0.3", "0.9", "0.4")], [Fraction(x) for x in ("0.5", "0.2", "0.6")]
    terms = [a * b for a, b in zip(q, k)]
    assert [str(float(t)) for t in terms] == ["0.15", "0.18", "0.24"]
    s = sum(terms)                                   # 0.57 exactly
    w = [mpmath.exp(mpmath.mpf(s.numerator) / s.denominator), mpmath.exp(mpmath.mpf("1.1"))]
    w = [x / (w[0] + w[1]) for x in w]
    assert rounds_to(w[0], "0.37") and rounds_to(w[1], "0.63")
    out = [Fraction("0.37") * a + Fraction("0.63") * b
           for a, b in zip((Fraction("0.10"), Fraction("0.80"), Fraction("0.50")),
                           (Fraction("0.70"), Fraction("0.20"), Fraction("0.30")))]
    assert [round(float(x), 2) for x in out] == [0.48, 0.42, 0.37]     # the article prints 0.36
    lines = {t: n for n, t in enumerate(DISPLAY.splitlines(), start=1)}
    at = {x: next(n for t, n in lines.items() if x in t) for x in ("0.15 +", "e^{1.1}} \\approx 0.63",
                                                                     "e^{0.57} + e^{1.1}} \\approx 0.37",
                                                                     "= [0.48")}
    for printed in ("0.15", "0.18", "0.24", "0.57"):
        assert got.get((at["0.15 +"], printed)) == "correct", printed
    assert got.get((at["e^{0.57} + e^{1.1}} \\approx 0.37"], "0.37")) == "correct"
    assert got.get((at["e^{1.1}} \\approx 0.63"], "0.63")) == "correct"
    for printed in ("0.48", "0.42"):
        assert got.get((at["= [0.48"], printed)) == "correct", printed
    assert got.get((at["= [0.48"], "0.36")) == "wrong"


SUBSTITUTED = r"""# Scores

1. Scores:
   ```latex
   \\text{s}[1, 1] = W\_Q * x1 * W\_K * x1 = 0.2 * 0.5 * 0.1 = 0.01
   \\text{s}[1, 2] = W\_Q * x1 * W\_K * x2 = 0.2 * 0.5 * 0.3 = 0.03
   ```
2. Softmax:
   ```latex
   \\text{p}[1, 1] = \\frac{e^{0.01}}{e^{0.01} + e^{0.03}} = 0.2
   \\text{p}[1, 2] = \\frac{e^{0.03}}{e^{0.01} + e^{0.03}} = 0.505
   ```
"""


def test_products_after_their_symbols_are_givens_and_a_wrong_softmax_is_flagged(tmp_path):
    got = verdicts(check(tmp_path, "substituted.md", SUBSTITUTED))
    assert Fraction("0.2") * Fraction("0.5") * Fraction("0.1") == Fraction("0.01")
    assert Fraction("0.2") * Fraction("0.5") * Fraction("0.3") == Fraction("0.03")
    e1, e3 = mpmath.exp(mpmath.mpf("0.01")), mpmath.exp(mpmath.mpf("0.03"))
    p1, p2 = e1 / (e1 + e3), e3 / (e1 + e3)
    assert not rounds_to(p1, "0.2") and rounds_to(p2, "0.505")
    assert got[(5, "0.01")] == "correct" and got[(6, "0.03")] == "correct"
    assert got[(10, "0.2")] == "wrong"
    assert got[(11, "0.505")] == "correct"


def test_a_row_end_with_its_backslash_escaped():
    m, = read_matrices("Q = \\begin{bmatrix}1 \\\\\\\n2 \\\\\\\n3.5\\end{bmatrix}", None)
    assert m.values == ((Fraction(1),), (Fraction(2),), (Fraction(7, 2),))


MASKED = r"""# Causal mask

$$X = \begin{bmatrix} 0 \\\
1 \end{bmatrix}$$

$$S = \begin{bmatrix} 0 & -\infty \\\
0 & 1 \end{bmatrix}$$

$$\text{Softmax}(S) = \begin{bmatrix}
1.0000e+00 & 0 \\\
2.6894e-01 & 7.3106e-01
\end{bmatrix}$$

Then

$$\text{Softmax}(S) X = \begin{bmatrix}
1.0000e+00 & 0 \\\
2.6894e-01 & 7.3106e-01
\end{bmatrix} * \begin{bmatrix} 0 \\\ 1 \end{bmatrix}$$
"""


def test_a_matrix_printed_again_is_judged_as_printed(tmp_path):
    d = check(tmp_path, "masked.md", MASKED)
    e = mpmath.exp(1)
    assert rounds_to(1 / (1 + e), "0.26894") and rounds_to(e / (1 + e), "0.73106")
    again = {c["printed"]: c["verdict"] for c in d["claims"] if c["line"] == 18}
    assert again.get("2.6894e-01") == "correct" and again.get("7.3106e-01") == "correct"
    assert "2.6894e-1" not in again


WHOLE = r"""# One score

Let $Q = [1, 2, 3]$, $K = [4, 5, 6]$.

$$
QK^T = 1 \cdot 4 + 2 \cdot 5 + 3 \cdot 6 = 32
$$

$$
\frac{QK^T}{\sqrt{d_k}} = \frac{32}{\sqrt{3}} \approx 18.26
$$
"""


def test_whole_numbers_worked_to_a_result_and_that_result_taken_on(tmp_path):
    got = verdicts(check(tmp_path, "whole.md", WHOLE))
    dot = sum(a * b for a, b in zip((1, 2, 3), (4, 5, 6)))
    assert dot == 32
    assert not rounds_to(mpmath.mpf(dot) / mpmath.sqrt(3), "18.26")      # 18.475…
    assert got[(6, "32")] == "correct"
    assert got[(10, "18.26")] == "wrong"


def test_a_wrong_whole_result_carried_into_the_next_step(tmp_path):
    text = WHOLE.replace("= 32", "= 31").replace(r"\frac{32}{\sqrt{3}} \approx 18.26", r"\frac{31}{\sqrt{3}} \approx 17.90")
    got = verdicts(check(tmp_path, "carried.md", text))
    assert rounds_to(mpmath.mpf(31) / mpmath.sqrt(3), "17.90")          # right from the print
    assert not rounds_to(mpmath.mpf(32) / mpmath.sqrt(3), "17.90")      # not from 1·4 + 2·5 + 3·6
    d = check(tmp_path, "carried2.md", text)
    why = {c["printed"]: c.get("diagnosis", "") for c in d["claims"]}
    assert got[(6, "31")] == "wrong"
    assert got[(10, "17.90")] == "wrong" and "follows from the wrong number printed at line 6" in str(why["17.90"])


def test_a_thousands_comma_is_no_result_of_its_own(tmp_path):
    from symattn.infer.written import written

    class Line:
        number, quiet, kind = 1, (), "text"
    Line.text = r"- $e^{10} = 22,026$ is 22,026 times $e^0 = 1$"
    assert [w.result for w in written([Line()]) if w.key == "exp"] == ["1"]    # e^0 = 1, not 22
    Line.text = r"so $e^{0.5} = 1.6487$."
    assert [(w.numbers, w.result) for w in written([Line()])] == [(("0.5",), "1.6487")]
    assert abs(mpmath.exp(mpmath.mpf("0.5")) - mpmath.mpf("1.6487")) < mpmath.mpf("0.00005")


def test_an_inferred_claim_its_line_does_not_print_is_said_and_left_out(tmp_path, capsys):
    from symattn.cli.inferred import _printed_claims
    from symattn.infer import Inferred
    from symattn.spec.load import load
    article = tmp_path / "a.md"
    article.write_text("x = [0.5, 1.5]\n\ny = 22,026 here\n", encoding="utf-8")
    text = "\n".join(['[example]', 'id = "a-ex1"', 'source = "a.md"', '', '[inputs]',
                      'x = { value = [[0.5, 1.5]], line = 1 }', '', '[[steps]]', 'name = "y"',
                      'expr = "x * 2"', '', '[[claims]]', 'step = "y"', 'printed = "22"', 'line = 3',
                      'at = [0, 0]', '', '[[claims]]', 'step = "y"', 'printed = "1.5"', 'line = 1',
                      'at = [0, 0]', ''])
    spec = load(str(tmp_path / "a-ex1.inferred.toml"), text)
    kept = _printed_claims(spec, Inferred("a-ex1", [str(article)], text, str(tmp_path)))
    assert [c.printed for c in kept.claims] == ["1.5"]
    err = capsys.readouterr().err
    assert "a.md:3: example a-ex1 was inferred to claim '22' there, which the line does not print" in err


def test_a_caption_opening_its_line_names_the_list_after_it(tmp_path):
    """``exp():     [0.30, …]`` is the exponentials of ``Logits:    [-1.2, …]`` (not a list
    cut from its caption, which left the sum below judged as a sum of rounded prints)."""
    logits = ["-1.2", "0.3", "4.8", "-0.5"]
    e = [mpmath.exp(mpmath.mpf(x)) for x in logits]
    shown = ["0.30", "1.35", "121.5", "0.61"]
    assert all(rounds_to(x, t) for x, t in zip(e, shown))
    assert rounds_to(mpmath.fsum(e), "123.77") and not rounds_to(sum(map(mpmath.mpf, shown)), "123.77")
    text = "\n".join(["# Exponentials", "", "```", "Logits:    [" + ",  ".join(logits) + "]",
                      "            ↓      ↓      ↓      ↓", "exp():     [" + ", ".join(shown) + "]",
                      "```", "", "```", "Sum = " + " + ".join(shown), "    = 123.77", "```", ""])
    got = verdicts(check(tmp_path, "caption.md", text))
    assert all(got.get((6, t)) == "correct" for t in shown)
    assert got.get((11, "123.77")) == "correct"


def test_a_list_captioned_as_a_call_is_a_block_and_its_slip_flagged(tmp_path):
    logits = ["-1.2", "0.3", "4.8", "-0.5", "1.1", "-2.3"]
    shown = ["0.30", "1.35", "121.5", "0.62", "3.00", "0.10"]
    e = [mpmath.exp(mpmath.mpf(x)) for x in logits]
    right = [rounds_to(x, t) for x, t in zip(e, shown)]
    assert right == [True, True, True, False, True, True]           # e^-0.5 = 0.6065…
    text = "\n".join(["# Exponentials", "", "```", "Logits:    [" + ",  ".join(logits) + "]", "",
                      "exp():     [" + ", ".join(shown) + "]", "```", ""])
    got = verdicts(check(tmp_path, "call.md", text))
    assert [got.get((6, t)) for t in shown] == ["correct" if r else "wrong" for r in right]


def test_a_list_worked_in_symbols_then_given_in_numbers_under_its_name(tmp_path):
    z = [mpmath.mpf(x) for x in ("2.0", "1.0", "0.1")]
    e = [mpmath.exp(x) for x in z]
    p = [x / mpmath.fsum(e) for x in e]
    shown = ["0.66", "0.24", "0.06"]
    right = [rounds_to(x, t) for x, t in zip(p, shown)]
    assert right == [True, True, False]                               # 0.0986…
    den = "e^{2} + e^{1} + e^{0.1}"
    text = "\n".join(["# Softmax", "", "$$", "z = [2.0, 1.0, 0.1]", "$$", "Computing:", "$$",
                      "P = [" + ", ".join(f"\\frac{{e^{{{a}}}}}{{{den}}}" for a in ("2", "1", "0.1")) + "]",
                      "$$", "After calculations:", "$$", "P = [" + ", ".join(shown) + "]", "$$", ""])
    got = verdicts(check(tmp_path, "symbols.md", text))
    assert [got.get((12, t)) for t in shown] == ["correct" if r else "wrong" for r in right]


def test_a_hand_written_claim_its_line_does_not_print_is_still_an_error(tmp_path):
    (tmp_path / "a.md").write_text("x = [0.5, 1.5]\n\ny = 1.0 here\n", encoding="utf-8")
    spec = tmp_path / "a.toml"
    spec.write_text("\n".join(['[example]', 'id = "a"', 'source = "a.md"', '', '[inputs]',
                               'x = { value = [[0.5, 1.5]], line = 1 }', '', '[[steps]]', 'name = "y"',
                               'expr = "x * 2"', '', '[[claims]]', 'step = "y"', 'printed = "3.0"',
                               'line = 3', 'at = [0, 1]', '']), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", str(spec), "--article", str(tmp_path / "a.md")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "the claim says line 3 of a.md prints '3.0', but that line does not" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
