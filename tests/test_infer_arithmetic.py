"""Arithmetic written out over several lines and several numbers, checked with no spec:
``Score = [0.3, 0.6] · [0.4, 0.7] = (0.3 × 0.4) + (0.6 × 0.7) = 0.12 + 0.42 = 0.54``, then
``0.54 / 1.414 = 0.382``, ``e^0.382 = 1.47``, ``1.47 / 4.02 = 0.37``: each result is a step
of the results it is computed from (not of their rounded prints), so a number worked from
a rounded one is carried or wrong, judged against the exact chain.

Truths: the chain worked out here with ``mpmath`` at 30 digits, never by symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath
import pytest

from symattn.infer.arithmetic import expression

mpmath.mp.dps = 30


@pytest.mark.parametrize("text, template, numbers", [
    ("`1 / 1.732 ", "{0} / {1}", ("1", "1.732")),
    (r"p_3 = \frac{12.182}{16.721} ", "( {0} ) / ( {1} )", ("12.182", "16.721")),
    ("= (0.3 × 0.4) + (0.6 × 0.7) ", "( {0} * {1} ) + ( {2} * {3} )", ("0.3", "0.4", "0.6", "0.7")),
    ("Scale by 1/√2 ", "{0} / sqrt({1})", ("1", "2")),
    (r"$\mu = (1.2 + 0.4 - 0.4)/4 ", "( {0} + {1} - {2} ) / {3}", ("1.2", "0.4", "0.4", "4")),
    ("p1 = 1/(1 + e^-8) ", "{0} / ( {1} + exp({2}) )", ("1", "1", "-8")),     # a signed exponent
    ("q · k = (1.0)(0.2) + (0.5)(0.1) ", "( {0} ) * ( {1} ) + ( {2} ) * ( {3} )", ("1.0", "0.2", "0.5", "0.1")),
    ("x:  0.2181(0.1) + 0.3978(0.8) ", "{0} * ( {1} ) + {2} * ( {3} )", ("0.2181", "0.1", "0.3978", "0.8")),
    ("i=1   → 10000^(2/512)   ", "{0} ** ( {1} / {2} )", ("10000", "2", "512")),     # a power
    ("  dim 2:   sin(2/1.096)  ", "sin( {0} / {1} )", ("2", "1.096")),
])
def test_the_arithmetic_before_an_equals_sign(text, template, numbers):
    form, nums, start = expression(text)
    assert (form, nums) == (template, numbers)
    assert text[start:].lstrip().startswith(numbers[0]) or text[start] in "(\\" or text[start].isalpha()


@pytest.mark.parametrize("text", ["Q[0] · K[0] ", "the weights ", "[0.3, 0.6] · [0.4, 0.7] ", "0.5 ",
                                  "1 / (1 + exp - 8) "])
def test_no_arithmetic_no_expression(text):
    got = expression(text)
    assert got is None or len(got[1]) < 2


Q, K = ["0.3", "0.6"], [["0.8", "0.2"], ["0.4", "0.7"], ["0.9", "0.1"]]


def post() -> tuple[str, dict]:
    """A post worked by hand to three decimals, rounding carried, and the exact values."""
    q = [mpmath.mpf(x) for x in Q]
    scores = [mpmath.fsum(a * mpmath.mpf(b) for a, b in zip(q, k)) for k in K]
    scaled = [s / mpmath.sqrt(2) for s in scores]
    exps = [mpmath.exp(s) for s in scaled]
    weights = [e / mpmath.fsum(exps) for e in exps]
    lines = ["# From scores to weights", "", "```"]
    for k, s in zip(K, scores):
        lines += [f"score = [{', '.join(Q)}] · [{', '.join(k)}]",
                  f"      = ({Q[0]} × {k[0]}) + ({Q[1]} × {k[1]})",
                  f"      = {mpmath.nstr(s, 2)}", ""]
    lines += ["√2 ≈ 1.414", ""]
    shown_scaled = [f"{float(s):.3f}" for s in scaled]
    for s, t in zip(scores, shown_scaled):
        lines.append(f"{mpmath.nstr(s, 2)} / 1.414 = {t}")
    shown_exp = [f"{float(mpmath.exp(mpmath.mpf(t))):.2f}" for t in shown_scaled]   # from the prints
    lines += [""] + [f"e^{t} = {e}" for t, e in zip(shown_scaled, shown_exp)]
    total = f"{sum(float(e) for e in shown_exp):.2f}"
    lines += ["", f"Sum = {' + '.join(shown_exp)} = {total}", ""]
    lines += [f"{e} / {total} = {float(e) / float(total):.2f}" for e in shown_exp] + ["```", ""]
    truth = {"scaled": scaled, "exp": exps, "weights": weights}
    return "\n".join(lines), truth, list(zip(shown_scaled, shown_exp))


def test_each_result_is_judged_against_the_exact_chain(tmp_path):
    text, truth, shown_exp = post()
    path = tmp_path / "post.md"
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    claims = json.loads(r.stdout)["claims"]
    by_line = {}
    for c in claims:
        by_line.setdefault(c["line"], []).append(c)
    lines = text.splitlines()
    for k, (t, e) in enumerate(shown_exp):            # e^0.382 = 1.47: judged on e^(0.54/√2)
        c = next(c for c in by_line[lines.index(f"e^{t} = {e}") + 1] if c["printed"] == e)
        assert abs(mpmath.mpf(c["exact"]) - truth["exp"][k]) < mpmath.mpf("1e-15")
        good = f"{float(truth['exp'][k]):.2f}" == e
        assert (c["verdict"] == "correct") == good
    weights = [c for c in claims if c["line"] > len(lines) - 6 and c["line"] <= len(lines)]
    got = sorted(mpmath.mpf(c["exact"]) for c in weights if "." in c["printed"] and float(c["printed"]) < 1)
    want = sorted(truth["weights"])
    assert len(got) >= 3 and all(any(abs(g - w) < mpmath.mpf("1e-15") for w in want) for g in got)
    assert not [c for c in claims if c["verdict"] == "wrong" and c["line"] < 13]   # no input judged


def test_a_sigmoid_with_a_signed_exponent_is_checked_not_an_error(tmp_path):
    """``p1 = 1/(1 + e^-8) = 0.99966``: e^-8 is exp(-8) (not a name ``exp`` then minus 8),
    and the article is checked (exit 0 or 1), each result against mpmath."""
    from conftest import check_post
    text = ("# Saturation\n\n```\n"
            "p1 = 1/(1 + e^-8) = 0.99966\n"
            "p1 = 1/(1 + e^-1) = 0.731059\n"
            "p1 = 1/(1 + e^-2) = 0.8807\n```\n")
    out = check_post(tmp_path, text)
    got = {c["printed"]: c for c in out["claims"]}
    truth = {"0.99966": -8, "0.731059": -1, "0.8807": -2}
    assert set(got) == set(truth)
    for printed, x in truth.items():
        assert abs(mpmath.mpf(got[printed]["exact"]) - 1 / (1 + mpmath.exp(x))) < mpmath.mpf("1e-12")
    assert got["0.8807"]["verdict"] == "wrong" and got["0.99966"]["verdict"] == "correct"


def test_a_standard_deviation_with_its_epsilon_written_in_is_judged(tmp_path):
    """``\\sqrt{2+0.00001} ≈ 1.414``: the 0.00001 is LayerNorm's epsilon, a constant written
    in (no result printed before it), so the square root is judged like any other; a decimal
    of no origin that is no such constant (``\\sqrt{2+0.37}``) is still no arithmetic to judge."""
    from conftest import check_post
    text = ("# Norm\n\nx = [1, 3]\n\n$$\\sqrt{2+0.00001}\\approx1.414$$\n\n"
            "$$\\sqrt{8+0.0001}\\approx2.829$$\n\n$$\\sqrt{2+0.37}\\approx1.54$$\n")
    out = check_post(tmp_path, text)
    got = {c["printed"]: c for c in out["claims"]}
    assert set(got) == {"1.414", "2.829"}
    assert abs(mpmath.mpf(got["1.414"]["exact"]) - mpmath.sqrt(mpmath.mpf("2.00001"))) < mpmath.mpf("1e-18")
    assert abs(mpmath.mpf(got["2.829"]["exact"]) - mpmath.sqrt(mpmath.mpf("8.0001"))) < mpmath.mpf("1e-18")
    assert got["1.414"]["verdict"] == "correct"
    assert f"{float(mpmath.sqrt(mpmath.mpf('8.0001'))):.3f}" == "2.828"     # a slip of the last digit
    assert got["2.829"]["verdict"] == "wrong"

def test_arithmetic_glued_to_a_word_of_a_script_without_spaces_is_judged(tmp_path):
    """``第1成分は1×2 + 3×4 = 15``: the は before the 1 is a word of Japanese, no name the
    expression is cut from (``x1 + 2`` is one), so the sum is judged: 1·2 + 3·4 = 14, wrong;
    ``第2成分は2×2 + 1×3 = 7`` right."""
    from conftest import check_post
    assert 1 * 2 + 3 * 4 == 14 and 2 * 2 + 1 * 3 == 7
    text = ("# 計算\n\nq = [1, 3]\n\n第1成分は1×2 + 3×4 = 15。第2成分は2×2 + 1×3 = 7です。\n\n"
            "x1 + 2 = 9\n")
    out = check_post(tmp_path, text)
    got = {(c["line"], c["printed"]): c for c in out["claims"]}
    assert got[(5, "15")]["verdict"] == "wrong" and got[(5, "15")]["exact"].startswith("14")
    assert got[(5, "7")]["verdict"] == "correct"
    assert not [c for c in out["claims"] if c["line"] == 7]

def test_a_chain_written_with_products_by_juxtaposition_and_a_sum_below(tmp_path):
    """``q · k_the = (1.0)(0.2) + (0.5)(0.1) = 0.25`` … ``e^0.7425 = 2.1012``, then ``sum =
    5.4712`` under the exps and ``w = 2.1012 / 5.4712 = 0.3840``: each result judged against
    the exact chain (the exp worked from the rounded 0.7425 carried), the sum the sum of the
    exps above it, and no written factor (the 0.6 of ``(1.0)(0.6)``) taken for a result."""
    from conftest import check_post
    q, ks = ["1.0", "0.5"], [["0.2", "0.1"], ["0.9", "0.4"], ["0.6", "0.9"]]
    scores = [sum(mpmath.mpf(a) * mpmath.mpf(b) for a, b in zip(q, k)) for k in ks]
    scaled = [s / mpmath.sqrt(2) for s in scores]
    exps = [mpmath.exp(s) for s in scaled]
    total = mpmath.fsum(exps)
    lines = ["# One query by hand", "", "```", "         k", *[f"{t}     [{', '.join(k)}]" for t, k in
             zip(("the", "cat", "sat"), ks)], "```", "", f"The query is `q = [{', '.join(q)}]`.", "", "```"]
    lines += [f"q · k_{t} = ({q[0]})({k[0]}) + ({q[1]})({k[1]}) = {mpmath.nstr(s, 3, strip_zeros=False)}"
              for t, k, s in zip(("the", "cat", "sat"), ks, scores)]
    lines += ["", "√2 = 1.4142", ""]
    shown = [f"{float(s):.4f}" for s in scaled]
    lines += [f"{mpmath.nstr(s, 3, strip_zeros=False)} / 1.4142 = {t}" for s, t in zip(scores, shown)]
    from_shown = [mpmath.exp(mpmath.mpf(t)) for t in shown]
    shown_exp = [f"{float(e):.4f}" for e in from_shown]
    lines += [""] + [f"e^{t} = {e}" for t, e in zip(shown, shown_exp)]
    lines += [f"sum      = {float(total):.4f}", ""]
    lines += [f"w_{t} = {e} / {float(total):.4f} = {float(x / total):.4f}"
              for t, e, x in zip(("the", "cat", "sat"), shown_exp, exps)] + ["```", ""]
    text = "\n".join(lines)
    assert shown_exp[2] == "2.1012" and f"{float(exps[2]):.4f}" == "2.1011"      # carried
    out = check_post(tmp_path, text)
    at = {ln: k + 1 for k, ln in enumerate(lines)}
    def claim(line, printed):
        got = [c for c in out["claims"] if c["line"] == at[line] and c["printed"] == printed]
        assert len(got) == 1, (line, out["claims"])
        return got[0]
    e3 = claim("e^0.7425 = 2.1012", "2.1012")
    assert e3["verdict"] == "carried" and abs(mpmath.mpf(e3["exact"]) - exps[2]) < mpmath.mpf("1e-12")
    s = claim(f"sum      = {float(total):.4f}", f"{float(total):.4f}")
    assert s["verdict"] == "correct" and abs(mpmath.mpf(s["exact"]) - total) < mpmath.mpf("1e-12")
    assert claim(lines[14], "1.05")["verdict"] == "correct"
    assert not [c for c in out["claims"] if c["line"] == 15 and c["printed"] in ("0.6", "0.9", "1.0")]


def test_powers_and_sines_written_out_are_judged_against_mpmath(tmp_path):
    """``10000^(2/512) = 1.096`` (it is 1.0366: wrong) and ``sin(2/1.096) = 0.900``, judged
    on the exact power (sin(2/1.0366) = 0.936: wrong); ``sin(2/9980) ≈ 0.0002`` claims the
    0.0002, not the argument 2/9980."""
    from conftest import check_post
    text = "\n".join(["PE by hand", "", "i=0   → 10000^(0/512)   = 1", "i=1   → 10000^(2/512)   = 1.096",
                      "i=10  → 10000^(20/512)  = 1.43", "", "PE vector:",
                      "  dim 2:   sin(2/1.096)     = 0.900", "  dim 3:   cos(2/1.096)     = -0.351",
                      "  dim 510: sin(2/9980)      ≈ 0.0002", ""])
    out = check_post(tmp_path, text, "notes.txt")
    got = {(c["line"], c["printed"]): c for c in out["claims"]}
    power = mpmath.mpf(10000) ** (mpmath.mpf(2) / 512)
    truth = {(4, "1.096"): (power, "wrong"), (5, "1.43"): (mpmath.mpf(10000) ** (mpmath.mpf(20) / 512), "correct"),
             (8, "0.900"): (mpmath.sin(2 / power), "wrong"), (9, "-0.351"): (mpmath.cos(2 / power), "correct"),
             (10, "0.0002"): (mpmath.sin(mpmath.mpf(2) / 9980), "correct")}
    for key, (value, verdict) in truth.items():
        assert abs(mpmath.mpf(got[key]["exact"]) - value) < mpmath.mpf("1e-15"), key
        assert got[key]["verdict"] == verdict, key
    assert not [c for c in out["claims"] if "/" in c["printed"]]


def test_a_sum_written_with_an_ellipsis_sums_every_result_above(tmp_path):
    """``sum_exp = 0.097 + 0.210 + ... + 42.521 + ... + 0.086`` then ``= 61.404`` under
    twelve exponentials written one a line (one with a note after it, ``← Largest!``):
    the sum of all twelve, its slip flagged against the exact sum of the exact exponentials,
    and a probability divided by the slipped sum wrong as following from it. Not read when a term
    between the ellipses is not among the results, or the first ones are not theirs."""
    from conftest import check_post
    xs = ["-2.34", "-1.56", "-0.82", "-0.31", "1.23", "0.78", "3.75", "0.41", "0.23", "-0.08",
          "-1.92", "-2.45"]
    exps = [mpmath.exp(mpmath.mpf(x)) for x in xs]
    shown = [mpmath.nstr(e, 5) if e >= 10 else f"{float(e):.3f}" for e in exps]
    assert shown[6] == "42.521" and shown[0] == "0.096"
    total = mpmath.fsum(exps)
    printed_total = f"{float(total) - 0.2:.3f}"               # a slip in the sum
    assert f"{float(total):.3f}" == "53.526" and printed_total == "53.326"
    lines = ["# Softmax by hand", "", "```"]
    lines += [f"exp(logits[{k}]) = exp({x}) = {s}" + ("  ← Largest!" if k == 6 else "")
              for k, (x, s) in enumerate(zip(xs, shown))]
    lines += ["```", "", "**Step 2: Sum them**", "", "```",
              f"sum_exp = {shown[0]} + {shown[1]} + ... + {shown[6]} + ... + {shown[-1]}", f"        = {printed_total}",
              "```", "", "```", f"p[6] = {shown[6]} / {printed_total} = {float(mpmath.mpf(shown[6]) / mpmath.mpf(printed_total)):.4f}",
              "```", ""]
    out = check_post(tmp_path, "\n".join(lines))
    at = {ln: k + 1 for k, ln in enumerate(lines)}
    sums = [c for c in out["claims"] if c["line"] == at[f"        = {printed_total}"]]
    assert len(sums) == 1 and sums[0]["verdict"] == "wrong"
    assert abs(mpmath.mpf(sums[0]["exact"]) - total) < mpmath.mpf("1e-15")
    p = [c for c in out["claims"] if c["line"] == len(lines) - 2]
    exact_p = exps[6] / total
    assert len(p) == 1 and p[0]["verdict"] == "wrong" and abs(mpmath.mpf(p[0]["exact"]) - exact_p) < 1e-15
    assert p[0]["diagnosis"] == [f"follows from the wrong number printed at line {at[f'        = {printed_total}']}"]
    assert f"{float(exact_p):.4f}" != p[0]["printed"]


@pytest.mark.parametrize("terms, read", [("0.096 + 0.210 + ... + 0.734 + ... + 0.086", True),
                                         ("0.096 + 0.210 + ... + 9.999 + ... + 0.086", False),  # no result
                                         ("0.210 + 0.096 + ... + 0.086", False)])       # not the first ones
def test_an_elided_sum_names_the_results_it_sums(terms, read):
    from symattn.infer.written import written
    from symattn.article.source import Line
    results = ["0.096", "0.210", "0.440", "0.734", "0.086"]
    lines = [Line(k + 1, f"exp({x}) = {r}", "text") for k, (x, r) in enumerate(zip(["-2.34", "-1.56", "-0.82", "-0.31",
                                                                                  "-2.45"], results))]
    lines += [Line(6, f"total = {terms} = 1.566", "text")]
    sums = [w for w in written(lines) if w.line == 6]
    assert [w.numbers for w in sums] == ([tuple(results)] if read else [])
