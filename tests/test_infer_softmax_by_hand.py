"""A softmax worked by hand, in the forms posts write it, checked with no spec:

- exponentials in an aligned block (``e^{3.0} &= 20.0855``) or with an aside before the
  result (``e^{3.2} (for "mat") ≈ 24.53``), in a list a code block holds;
- their sum written out beside the sum step of the chain (``24.53 + … = 40.04``);
- each probability as a quotient of those prints (``24.53 / 40.04 = 0.61``,
  ``\\frac{20.0855}{36.7497} ≈ 0.5464``), its result in bold (``\\mathbf{0.61}``, ``**0.61**``)
  and again in percent (``0.61 (61%)``);
- a print two results share (``0.61``: e^{-0.5} and p(mat)) taken as the one its siblings'
  pattern says (``o_exp[0, 1] / S`` then ``0.61 / S``), and the loss of the latest.

Then a print below float32's normal range in a PyTorch printout (``1.5414e-44`` for
1.5518e-44) is no slip of the article's. Truths: ``mpmath`` at 30 digits, ``numpy.float32``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath
import numpy as np
import pytest

from symattn.infer.written import written

mpmath.mp.dps = 30


def cli(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True)


def check(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def softmax(z):
    e = [mpmath.exp(mpmath.mpf(x)) for x in z]
    return [x / mpmath.fsum(e) for x in e]


def read(text):
    class Line:
        number, quiet, kind = 1, (), "text"
    Line.text = text
    return [(w.form, w.numbers, w.result) for w in written([Line()])]


@pytest.mark.parametrize("text, want", [
    (r"e^{3.0} &= 20.0855 \\", ("exp({0})", ("3.0",), "20.0855")),
    (r'\(e^{3.2}\) (for "mat") \(\approx 24.53\)', ("exp({0})", ("3.2",), "24.53")),
    (r"p: 24.53 / 40.04 = \(\mathbf{0.61\ (61\%)}\)", ("{0} / {1}", ("24.53", "40.04"), "0.61")),
    (r"Loss: \(-\log(0.61) \approx \mathbf{0.49}\)", ("-log({0})", ("0.61",), "0.49")),
    ("so 2.72 / 40.04 = **0.07**", ("{0} / {1}", ("2.72", "40.04"), "0.07")),
])
def test_the_forms_a_post_writes_are_read(text, want):
    assert read(text) == [want]


TEMPERATURE = r"""Softmax at temperature 1.

| Token  | Logit |
| ------ | ----- |
| Paris  | 3.0   |
| London | 2.5   |
| Berlin | 1.5   |

$$
\begin{aligned}
e^{3.0} &= 20.0855 \\
e^{2.5} &= 12.1825 \\
e^{1.5} &= 4.4817 \\
\end{aligned}
$$

$$
\text{Sum} = 20.0855 + 12.1825 + 4.4817 = 36.7497
$$

$$
\begin{aligned}
P(\text{Paris}) &= \frac{20.0855}{36.7497} ≈ 0.5464 \\
P(\text{London}) &= \frac{12.1825}{36.7497} ≈ 0.3315 \\
P(\text{Berlin}) &= \frac{4.4817}{36.7497} ≈ 0.1220 \\
\end{aligned}
$$
"""


def test_an_aligned_softmax_by_hand_is_checked_and_its_slip_flagged(tmp_path):
    p = softmax(["3.0", "2.5", "1.5"])
    assert [mpmath.nstr(x, 4) for x in p] == ["0.5465", "0.3315", "0.122"]
    quotient = mpmath.mpf("20.0855") / mpmath.mpf("36.7497")
    assert mpmath.nstr(quotient, 4) == "0.5465"          # wrong even from its own prints
    data = check(tmp_path, "temperature.md", TEMPERATURE)
    verdicts = {c["printed"]: c["verdict"] for c in data["claims"]}
    assert verdicts["20.0855"] == verdicts["36.7497"] == verdicts["0.3315"] == "correct"
    assert verdicts["0.5464"] == "wrong" and verdicts["0.1220"] == "correct"
    (paris,) = [c for c in data["claims"] if c["printed"] == "0.5464"]
    assert abs(mpmath.mpf(paris["exact"]) - p[0]) < mpmath.mpf("1e-15")


CROSS_ENTROPY = r"""Our logits, for `[mat, hat, sat, rug]`:
    `o = [3.2, 1.0, -0.5, 2.5]`

\[
p = \frac{\exp(o_i)}{\sum_a \exp(o_a)}
\]

    * **Calculation:**
        * \(e^{3.2}\) (for "mat") \(\approx 24.53\)
        * \(e^{1.0}\) (for "hat") \(\approx 2.72\)
        * \(e^{-0.5}\) (for "sat") \(\approx 0.61\)
        * \(e^{2.5}\) (for "rug") \(\approx 12.18\)
        * **Total Sum:** \(24.53 + 2.72 + 0.61 + 12.18 = 40.04\)
    * **Final Probabilities (p):**
        * \(p(\text{"mat"})\): 24.53 / 40.04 = \(\mathbf{0.61\ (61\%)}\)
        * \(p(\text{"hat"})\): 2.72 / 40.04 = \(0.07\ (7\%)\)
        * \(p(\text{"sat"})\): 0.61 / 40.04 = \(0.01\ (1\%)\)
        * \(p(\text{"rug"})\): 12.18 / 40.04 = \(0.31\ (31\%)\)

The loss: \(-\log(0.61) \approx \mathbf{0.49}\)
"""


def test_probabilities_as_quotients_of_the_prints_and_their_percents(tmp_path):
    p = softmax(["3.2", "1.0", "-0.5", "2.5"])
    assert [mpmath.nstr(x, 2) for x in p] == ["0.61", "0.068", "0.015", "0.3"]
    assert mpmath.nstr(-mpmath.log(p[0]), 2) == "0.49"
    data = check(tmp_path, "ce.md", CROSS_ENTROPY)
    by_line = {}
    for c in data["claims"]:
        by_line.setdefault(c["line"], []).append(c)
    sat = {c["printed"]: c for c in by_line[17]}            # 0.61 / 40.04: e^{-0.5}, not p(mat)
    assert sat["0.01"]["verdict"] == "wrong" and sat["1%"]["verdict"] == "wrong"
    assert abs(mpmath.mpf(sat["0.01"]["exact"]) - p[2]) < mpmath.mpf("1e-15")
    rug = {c["printed"]: c["verdict"] for c in by_line[18]}
    assert rug["0.31"] == rug["31%"] == "wrong"               # 0.3043
    assert rug["12.18"] == rug["40.04"] == "correct"          # its operands, printed again
    mat = {c["printed"]: c["verdict"] for c in by_line[15]}
    assert mat["0.61"] == "correct" and mat["61%"] == "correct"
    (loss,) = [c for c in by_line[20] if c["printed"] == "0.49"]   # -log p(mat), not of e^{-0.5}
    assert loss["verdict"] == "correct"
    assert abs(mpmath.mpf(loss["exact"]) + mpmath.log(p[0])) < mpmath.mpf("1e-15")
    assert data["summary"]["wrong"] == 4


def _torch_style(x: float) -> str:
    return f"{x:.4e}"


def test_a_float32_underflow_in_a_printout_is_no_slip(tmp_path):
    scores = ["47.5504", "-53.3239", "-56.3575"]
    exact = softmax(scores)
    f32 = np.exp(np.array(scores, dtype=np.float32) - np.float32(47.5504)).astype(np.float32)
    f32 = f32 / f32.sum(dtype=np.float32)
    printed = [_torch_style(float(v)) for v in f32]
    assert printed[0] == "1.0000e+00"
    assert printed[1] != mpmath.nstr(exact[1], 5, min_fixed=1, max_fixed=0)   # float32's, not exact
    assert abs(mpmath.mpf(float(f32[2])) - exact[2]) < mpmath.mpf(2) ** -149
    text = ("```python\nimport torch\nimport torch.nn.functional as F\n"
            f"s = torch.tensor([{', '.join(scores)}])\nprint(F.softmax(s, dim=-1))\n```\n\n"
            f"```\ntensor([{', '.join(printed)}])\n```\n")
    data = check(tmp_path, "f32.md", text)
    tiny = [c for c in data["claims"] if c["printed"] in printed[1:]]
    assert tiny and all(c["verdict"] == "consistent" for c in tiny)
    assert all("float32" in " ".join(c.get("diagnosis") or []) for c in tiny)


LISTS = """For position 1, scores = [0.0, 0.00707]

**Softmax:**
1. Find max: max(0.0, 0.00707) = 0.00707
2. Subtract max: [0.0 - 0.00707, 0.00707 - 0.00707] = [-0.00707, 0.0]
3. Exponentiate: [exp(-0.00707), exp(0.0)] ≈ [0.9929, 1.0]
4. Sum: 0.9929 + 1.0 = 1.9929
5. Normalize: [0.9929/1.9929, 1.0/1.9929] ≈ [0.498, 0.502]
"""


def test_the_list_after_exponentials_written_out_prints_their_results(tmp_path):
    """``[exp(-0.00707), exp(0.0)] ≈ [0.9929, 1.0]``: the list is the exponentials' print,
    so the sum and the quotients after it are of the exponentials, judged exactly."""
    e = mpmath.exp(mpmath.mpf("-0.00707"))
    assert mpmath.nstr(e, 4) == "0.993"                       # 0.9929 is a slip: 0.99296
    data = check(tmp_path, "lists.md", LISTS)
    got = {(c["line"], c["printed"]): c for c in data["claims"]}
    assert got[(6, "0.9929")]["verdict"] == "wrong"
    w = got[(8, "0.498")]
    assert w["verdict"] == "correct"
    assert abs(mpmath.mpf(w["exact"]) - e / (e + 1)) < mpmath.mpf("1e-15")   # not 0.9929 / 1.9929


def test_latex_spacing_between_terms_keeps_one_expression():
    """``0.43 \\cdot [1.0,\\ 0.5] \\;+\\; 0.39 \\cdot [0.8,\\ 0.6]``: ``\\;`` is a space."""
    got = read(r"y = 0.43 \cdot [1.0,\ 0.5] \;+\; 0.39 \cdot [0.8,\ 0.6] = [0.74,\ 0.45]")
    assert [(f, n) for f, n, _ in got] == [
        ("{0} * {1} + {2} * {3}", ("0.43", "1.0", "0.39", "0.8")),
        ("{0} * {1} + {2} * {3}", ("0.43", "0.5", "0.39", "0.6"))]
    v = [mpmath.mpf("0.43") * mpmath.mpf(a) + mpmath.mpf("0.39") * mpmath.mpf(b)
         for a, b in [("1.0", "0.8"), ("0.5", "0.6")]]
    assert [mpmath.nstr(x, 2) for x in v] == ["0.74", "0.45"]


NSP = r"""Suppose the true label is $y = 0$ and the model predicts $p = 0.20$:

$$\mathcal{L} = -[0 \times \log(0.20) + 1 \times \log(0.80)] = -\log(0.80) = 0.22$$
"""


def test_the_number_beside_a_written_result_is_no_second_print_of_it(tmp_path):
    assert mpmath.nstr(-mpmath.log(mpmath.mpf("0.80")), 2) == "0.22"
    data = check(tmp_path, "nsp.md", NSP)
    here = [(c["printed"], c["verdict"]) for c in data["claims"] if c["line"] == 3]
    assert here == [("0.22", "correct")]


def test_the_same_result_again_in_percent_beside_it_stays_claimed(tmp_path):
    assert mpmath.nstr(-mpmath.log(mpmath.mpf("0.5")), 2) == "0.69"
    data = check(tmp_path, "pc.md", "The loss.\n\n$$-\\log(0.50) = 0.69 = 69\\%$$\n")
    assert sorted((c["printed"], c["verdict"]) for c in data["claims"]) == [("0.69", "correct"), ("69%", "correct")]


@pytest.mark.parametrize("text, argument, results", [
    (r"first row: $\text{softmax}(0.71, 0, 0.71) \approx (0.39, 0.22, 0.39)$.", ("0.71", "0", "0.71"), ["0.39", "0.22", "0.39"]),
    (r"$\alpha = \text{softmax}([0.707, 0, 0.707]) = \left[\frac{e^{0.707}}{S}, \dots\right] \approx [0.422, 0.156, 0.422]$",
     ("0.707", "0", "0.707"), ["0.422", "0.156", "0.422"]),
    ("Without scaling:  softmax([6, 4]) = [0.8808, 0.1192]   (huge gap)", ("6", "4"), ["0.8808", "0.1192"]),
])
def test_a_softmax_of_a_list_in_its_written_forms(text, argument, results):
    got = read(text)
    assert [r for _, _, r in got] == results and all(n == argument for _, n, _ in got)


def test_softmax_of_tuples_judged_entry_by_entry(tmp_path):
    text = ("Compare:\n\n- $\\mathrm{softmax}(8, 0, 0) = (0.9993, 0.0003, 0.0003)$\n"
            "- $\\mathrm{softmax}(1, 0, 0) = (0.576, 0.212, 0.212)$\n"
            "- $\\text{softmax}(0.71, 0, 0.71) \\approx (0.39, 0.22, 0.39)$\n")
    truth = [softmax(z) for z in (["8", "0", "0"], ["1", "0", "0"], ["0.71", "0", "0.71"])]
    assert [mpmath.nstr(x, 3) for x in truth[2]] == ["0.401", "0.197", "0.401"]     # 0.39, 0.22: wrong
    data = check(tmp_path, "tuples.md", text)
    got = {}
    for c in data["claims"]:
        got.setdefault(c["line"], []).append((c["printed"], c["verdict"]))
    assert sorted(got[3]) == [("0.0003", "correct"), ("0.0003", "correct"), ("0.9993", "correct")]
    assert sorted(got[4]) == [("0.212", "correct"), ("0.212", "correct"), ("0.576", "correct")]
    assert sorted(got[5]) == [("0.22", "wrong"), ("0.39", "wrong"), ("0.39", "wrong")]


PERCENT_WORDS = """Scaled scores: [0.43, 1.105, 0.145]

- $e^{0.43} = 1.537, e^{1.105} = 3.019, e^{0.145} = 1.156$
- Sum = $1.537 + 3.019 + 1.156 = 5.712$
- $\\alpha_1 = 1.537/5.712 = 0.269$ (26.9% attention to "The")
- $\\alpha_2 = 3.019/5.712 = 0.653$ (65.3% attention to "cat")
"""


def test_a_percent_with_words_after_a_result_restates_it(tmp_path):
    """``$= 0.653$ (65.3% attention to "cat")``: the percent is the result again, judged
    with it (3.019/5.712 = 0.5285…, so both are wrong; 1.537/5.712 = 0.2691: both right)."""
    from fractions import Fraction as F
    assert round(F("3.019") / F("5.712"), 3) == F("0.529") and round(F("1.537") / F("5.712"), 3) == F("0.269")
    data = check(tmp_path, "percent.md", PERCENT_WORDS)
    got = {c["printed"]: c["verdict"] for c in data["claims"] if c["line"] in (5, 6)}
    assert got["65.3%"] == got["0.653"] == "wrong"
    assert got["26.9%"] == got["0.269"] == "correct"
