"""`symattn check ARTICLE` on a LayerNorm worked number by number (symattn/infer/chains.py).

The posts are written here; every truth is computed in this file with ``fractions`` (the
mean, the deviations, their squares, the variance) and ``mpmath`` at 30 digits (the root
and the quotients), never by symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from fractions import Fraction as F

import mpmath

mpmath.mp.dps = 30

X = [F("0.2"), F("0.6"), F("-0.4"), F("1.0")]
MEAN = sum(X) / len(X)
DEV = [x - MEAN for x in X]
SQ = [d * d for d in DEV]
VAR = sum(SQ) / len(X)                                   # the biased variance, as LayerNorm
STD = mpmath.sqrt(mpmath.mpf(VAR.numerator) / VAR.denominator)
NORM = [mpmath.mpf(d.numerator) / d.denominator / STD for d in DEV]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          timeout=300)


def p(x, k: int) -> str:
    """``k`` decimals (no truth here is near a tie)."""
    return f"{float(x):.{k}f}"


def hand_post(sq_printed=None) -> str:
    """A LayerNorm of one vector by hand (20 lines); ``sq_printed``: the squares as printed."""
    sq = sq_printed or [p(s, 4) for s in SQ]
    return "\n".join([
        "# LayerNorm by hand", "", "One token, four features:", "", "```python",
        "x = [" + ", ".join(str(float(v)) for v in X) + "]", "```", "",
        f"The sum is {p(sum(X), 1)}, so the mean is {p(MEAN, 2)}.", "",
        "Differences from the mean: " + ", ".join(p(d, 2) for d in DEV) + ".", "",
        "Their squares: " + ", ".join(sq) + ".", "",
        f"The variance is their average, {p(VAR, 4)}, and the standard deviation "
        f"is {p(STD, 3)}.", "",
        "Normalised: " + ", ".join(p(v, 3) for v in NORM) + ".", ""])


def claims(path) -> list:
    r = cli("check", "--json", str(path))
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["claims"]


def test_a_hand_layernorm_is_inferred_step_by_step(tmp_path):
    post = tmp_path / "post.md"
    post.write_text(hand_post(), encoding="utf-8")
    got = {(c["printed"], c["verdict"]) for c in claims(post)}
    want = [p(MEAN, 2), p(VAR, 4), p(STD, 3)] + [p(d, 2) for d in DEV] + [p(s, 4) for s in SQ] + \
        [p(v, 3) for v in NORM]
    assert all((w, "correct") in got for w in want), sorted(got)
    r = cli("check", str(post), "-o", str(tmp_path / "spec.toml"))
    spec = tomllib.loads((tmp_path / "spec.toml").read_text(encoding="utf-8"))
    exprs = [s["expr"] for s in spec["steps"]]
    assert "var(x, ddof=0)" in exprs and any(e.startswith("sqrt(") for e in exprs), exprs
    again = cli("check", "--json", str(tmp_path / "spec.toml"))
    assert again.returncode == r.returncode


def test_a_wrong_square_is_flagged(tmp_path):
    sq = [p(s, 4) for s in SQ]
    right = sq[2]
    sq[2] = right[:-2] + right[-1] + right[-2]              # two digits swapped
    assert sq[2] != right
    post = tmp_path / "post.md"
    post.write_text(hand_post(sq), encoding="utf-8")
    wrong = [c for c in claims(post) if c["verdict"] == "wrong"]
    assert [c["printed"] for c in wrong] == [sq[2]], wrong
    assert F(wrong[0]["exact"]) == SQ[2]


ROWS = [[F("0.1"), F("0.5"), F("-0.3")], [F("0.4"), F("0.0"), F("0.2")], [F("0.6"), F("-0.3"), F("0.3")]]


def _rows_post(stds) -> str:
    """Three rows, their mean and std (``stds``: mpf, printed at 4 decimals) in prose, then
    the rows divided by those printed stds (as by hand)."""
    out = ["# Normalising three tokens", "", "```python", "emb = ["]
    out += ["    [" + ", ".join(str(float(v)) for v in r) + "]," for r in ROWS] + ["]", ""]
    for r, s in zip(ROWS, stds):
        out.append(f"# mean={p(sum(r) / 3, 3)}, std={p(s, 4)}")
    out += ["```", "", "```python", "normed = ["]
    for r, s in zip(ROWS, stds):
        m = sum(r) / 3
        out.append("    [" + ", ".join(p((v - m) / F(p(s, 4)), 3) for v in r) + "],")
    return "\n".join(out + ["]", "```", ""])


def _std(r) -> mpmath.mpf:
    m = sum(r) / len(r)
    v = sum((x - m) ** 2 for x in r) / len(r)
    return mpmath.sqrt(mpmath.mpf(v.numerator) / v.denominator)


def test_rows_divided_by_a_wrong_printed_std_are_flagged(tmp_path):
    stds = [_std(r) for r in ROWS]
    for r, sd in zip(ROWS, stds):               # by hand or exactly: the same prints (no tie)
        m = sum(r) / 3
        assert [p((v - m) / F(p(sd, 4)), 3) for v in r] == [p(mpmath.mpf((v - m).numerator) /
                                                            (v - m).denominator / sd, 3) for v in r]
    stds[1] += mpmath.mpf("0.05")                           # the second row's std off
    post = tmp_path / "post.md"
    post.write_text(_rows_post(stds), encoding="utf-8")
    got = claims(post)
    flagged = {(c["line"], c["printed"]) for c in got if c["verdict"] in ("wrong", "carried")}
    text = post.read_text(encoding="utf-8").splitlines()
    second = next(k + 1 for k, ln in enumerate(text) if ln.startswith("normed")) + 2
    assert flagged and all(line == second for line, _ in flagged), (flagged, second)
    assert not any(c["verdict"] == "wrong" and c["line"] != second for c in got)


def test_a_lone_statistic_makes_no_chain(tmp_path):
    post = tmp_path / "post.md"
    post.write_text("\n".join(["# A vector", "", "x = [0.2, 0.6, -0.4, 1.0]", "",
                               f"Its mean is {p(MEAN, 2)} and its variance {p(VAR, 4)}.", ""]),
                    encoding="utf-8")
    r = cli("check", str(post))
    assert r.returncode == 2 and "no worked example found" in r.stderr


def test_statistics_of_rows_alone_make_no_chain(tmp_path):
    """Each row's mean and std printed, nothing worked entry by entry: too little evidence
    (such numbers coincide with the many of a long article)."""
    text = _rows_post([_std(r) for r in ROWS])
    post = tmp_path / "post.md"
    post.write_text(text.split("```python\nnormed")[0], encoding="utf-8")
    r = cli("check", str(post))
    assert r.returncode == 2 and "no worked example found" in r.stderr


P = [F("0.7"), F("0.2"), F("0.1"), F("0.5"), F("0.4")]      # probabilities at the targets
NEG_LOG = [-mpmath.log(mpmath.mpf(x.numerator) / x.denominator) for x in P]
LOSS = mpmath.fsum(NEG_LOG) / len(P)
PERPLEXITY = mpmath.exp(LOSS)


def _loss_post(neg_log_printed) -> str:
    return "\n".join(["# Cross-entropy by hand", "", "The model's probabilities of the five targets:",
                      "", "p = [" + ", ".join(str(float(x)) for x in P) + "]", "",
                      "Their negative logs: " + ", ".join(neg_log_printed) + ".", "",
                      f"The loss is their mean, {p(LOSS, 4)}; the perplexity is "
                      f"exp({p(LOSS, 4)}) = {p(PERPLEXITY, 4)}.", ""])


def test_a_cross_entropy_by_hand_is_inferred_and_a_wrong_log_flagged(tmp_path):
    printed = [p(v, 4) for v in NEG_LOG]
    right = printed[1]
    printed[1] = right[:-1] + str((int(right[-1]) + 3) % 10)      # one log off in its last digit
    post = tmp_path / "post.md"
    post.write_text(_loss_post(printed), encoding="utf-8")
    got = claims(post)
    verdicts = {(c["printed"], c["verdict"]) for c in got}
    assert (p(LOSS, 4), "correct") in verdicts and (p(PERPLEXITY, 4), "correct") in verdicts, verdicts
    assert all((x, "correct") in verdicts for k, x in enumerate(printed) if k != 1), verdicts
    wrong = [c for c in got if c["verdict"] == "wrong"]
    assert [c["printed"] for c in wrong] == [printed[1]], wrong
    assert abs(mpmath.mpf(wrong[0]["exact"]) - NEG_LOG[1]) < mpmath.mpf("1e-12")


Z = [F("2.0"), F("1.0"), F("0.1"), F("-0.5")]                    # logits


def test_a_softmax_by_hand_is_inferred_step_by_step(tmp_path):
    e = [mpmath.exp(mpmath.mpf(z.numerator) / z.denominator) for z in Z]
    total = mpmath.fsum(e)
    probs = [x / total for x in e]
    post = tmp_path / "post.md"
    post.write_text("\n".join([
        "# Softmax by hand", "", "z = [" + ", ".join(str(float(z)) for z in Z) + "]", "",
        "Exponentials: " + ", ".join(p(x, 4) for x in e) + ".", "",
        f"Their sum: {p(total, 4)}.", "",
        "Divided by the sum: " + ", ".join(p(x, 4) for x in probs) + ".", ""]), encoding="utf-8")
    verdicts = {(c["printed"], c["verdict"]) for c in claims(post)}
    want = [p(x, 4) for x in e] + [p(total, 4)] + [p(x, 4) for x in probs]
    assert all((w, "correct") in verdicts for w in want), verdicts


def test_a_scientific_printout_is_a_rounding(tmp_path):
    """``tensor([1.0337e-05, 4.7559e-06])``: four decimals of each mantissa, as PyTorch
    prints computed numbers (their rounding carries into the loss); hand numbers are not."""
    from symattn.article.read import read_article
    from symattn.infer.blocks import blocks
    post = tmp_path / "post.md"
    post.write_text("# Probabilities\n\n```\ntensor([1.0337e-05, 5.6776e-05, 4.7559e-06])\n```\n\n"
                    "x = [0.1, 0.3, -0.2]\n", encoding="utf-8")
    found = blocks([(str(post), read_article(str(post)))])
    assert [b.rounded for b in found] == [True, False], [(b.name, b.printed.texts) for b in found]


ZZ = [[F("1.0"), F("0.5"), F("-0.5")], [F("0.2"), F("0.0"), F("0.8")]]


def test_a_softmax_worked_row_by_row_with_a_wrong_weight(tmp_path):
    """Each row through every step (exponentials, their sum, the quotients), then the next
    row; one weight of the second row misprinted (two digits swapped): that number alone
    is wrong."""
    lines = ["# Softmax of two rows", "", "```python", "z = [[1.0, 0.5, -0.5],", "     [0.2, 0.0, 0.8]]",
             "```", ""]
    wrong = None
    for k, row in enumerate(ZZ):
        e = [mpmath.exp(mpmath.mpf(z.numerator) / z.denominator) for z in row]
        total = mpmath.fsum(e)
        weights = [p(x / total, 4) for x in e]
        if k == 1:
            right = weights[2]
            weights[2] = wrong = right[:-2] + right[-1] + right[-2]
            assert wrong != right
        lines += [f"Row {k + 1}: the exponentials are " + ", ".join(p(x, 4) for x in e) +
                  f"; their sum is {p(total, 4)}; the weights are " + ", ".join(weights) + ".", ""]
    post = tmp_path / "post.md"
    post.write_text("\n".join(lines), encoding="utf-8")
    got = claims(post)
    bad = [c["printed"] for c in got if c["verdict"] == "wrong"]
    assert bad == [wrong], got
    assert sum(c["verdict"] == "correct" for c in got) == 13, got     # 6 exponentials, 2 sums, 5 weights


def test_the_epsilon_the_text_adds_under_the_root_is_in_the_standard_deviation(tmp_path):
    eps = F("0.00001")
    var_eps = VAR + eps
    std = mpmath.sqrt(mpmath.mpf(var_eps.numerator) / var_eps.denominator)
    normalised = [mpmath.mpf(d.numerator) / d.denominator / std for d in DEV]
    lines = hand_post().splitlines()
    k = next(i for i, t in enumerate(lines) if t.startswith("The variance"))
    lines.insert(k + 1, f"We add 0.00001 before the root: $\\sqrt{{{p(VAR, 4)} + 0.00001}} \\approx {p(std, 3)}$.")
    post = tmp_path / "post.md"
    post.write_text("\n".join(lines), encoding="utf-8")
    got = [c for c in claims(post) if c["printed"] in {p(v, 3) for v in NORM} and c["line"] > k + 2]
    assert len(got) == len(NORM) and all(c["verdict"] == "correct" for c in got), got
    for c, want, plain in zip(sorted(got, key=lambda c: c["at"]), normalised, NORM):
        assert abs(mpmath.mpf(c["exact"]) - want) < mpmath.mpf("1e-15"), (c, want)
        assert abs(mpmath.mpf(c["exact"]) - plain) > mpmath.mpf("1e-9")      # not the plain root's
    plain_post = tmp_path / "plain.md"                    # no ε stated: the plain root
    plain_post.write_text(hand_post(), encoding="utf-8")
    got = [c for c in claims(plain_post) if c["printed"] in {p(v, 3) for v in NORM} and c["step"].endswith("normalised")]
    assert got and all(abs(mpmath.mpf(c["exact"]) - w) < mpmath.mpf("1e-15")
                       for c, w in zip(sorted(got, key=lambda c: c["at"]), NORM)), got


# A forum answer in plain text: the deviations printed as a block of their own, the variance
# mistyped, the standard deviation rounded to two decimals and the one row divided by that.
R = [F("1.2"), F("2.4"), F("-0.1"), F("3.1")]
R_MEAN = sum(R) / 4
R_DEV = [r - R_MEAN for r in R]
R_VAR = sum(d * d for d in R_DEV) / 4                   # 1.4825 exactly
R_STD = mpmath.sqrt(mpmath.mpf(R_VAR.numerator) / R_VAR.denominator + mpmath.mpf("1e-5"))


def _forum_post(var_printed: str) -> str:
    rounded = F(p(R_STD, 2))                             # what the author divided by
    return "\n".join([
        "Re: manual LayerNorm", "", "    r = [" + ", ".join(p(v, 1) for v in R) + "]", "",
        "LayerNorm, biased variance, eps = 1e-5:", "",
        f"    mean = ({' + '.join(p(v, 1) for v in R)}) / 4 = {p(R_MEAN, 3)}".replace("+ -", "- "),
        "    deviations = [" + ", ".join(p(d, 3) for d in R_DEV) + "]",
        f"    var  = (sum of squared deviations) / 4 = {var_printed}",
        f"    std  = sqrt(var + eps) = {p(R_STD, 2)}   (two decimals are enough)", "",
        "Normalised, each deviation divided by the std:", "",
        "    n = [" + ", ".join(p(d / rounded, 4) for d in R_DEV) + "]", ""])


def test_a_row_divided_by_the_rounded_std_is_carried_and_a_mistyped_variance_wrong(tmp_path):
    right = p(R_VAR, 4)
    typo = right[:-2] + right[-1] + right[-2]               # two digits swapped
    assert typo != right
    post = tmp_path / "post.txt"
    post.write_text(_forum_post(typo), encoding="utf-8")
    got = claims(post)
    by_line = {}
    for c in got:
        by_line.setdefault(c["line"], []).append(c)
    var = [c for c in by_line[9] if c["printed"] == typo]
    assert var and var[0]["verdict"] == "wrong", by_line.get(9)
    assert abs(mpmath.mpf(var[0]["exact"]) - mpmath.mpf(R_VAR.numerator) / R_VAR.denominator) < 1e-9
    std = [c for c in by_line[10] if c["printed"] == p(R_STD, 2)]
    assert std and std[0]["verdict"] == "correct", by_line.get(10)
    normed = [c for c in by_line[14]]
    want = [d / R_STD for d in (mpmath.mpf(x.numerator) / x.denominator for x in R_DEV)]
    assert len(normed) == 4 and all(c["verdict"] == "carried" for c in normed), normed
    assert all(abs(mpmath.mpf(c["exact"]) - w) < 1e-9 for c, w in zip(normed, want))
    assert {c["printed"] for c in by_line[8]} == {p(d, 3) for d in R_DEV}
    assert all(c["verdict"] == "correct" for c in by_line[8])


def test_a_list_of_rows_in_plain_text_is_one_matrix(tmp_path):
    from symattn.article.matrices import find
    from symattn.article.read import read_article
    post = tmp_path / "post.txt"
    post.write_text("FFN weights:\n\n    W1 = [[ 0.5, -1.0,  0.2],\n          [ 1.0,  0.0, -0.5]]"
                    "        b1 = [0.1, 0.0, -0.1]\n\n    n @ W1 + b1 = [1.2, 0.8, -1.3]\n"
                    "    h = ReLU(.) = [1.2, 0.8, 0.0]\n", encoding="utf-8")
    found = find(read_article(str(post)))
    w1 = [m for m in found if m.name == "W1"]
    assert len(w1) == 1 and w1[0].shape == (2, 3) and w1[0].texts[1] == ("1.0", "0.0", "-0.5")
    from symattn.infer.blocks import blocks
    names = [(b.name, b.shape) for b in blocks([(str(post), read_article(str(post)))])]
    assert ("W1", (2, 3)) in names and ("b1", (1, 3)) in names and ("h", (1, 3)) in names, names
    assert not any(n == "b1_2" for n, _ in names), names      # a sum's last term names no result
    assert sum(1 for _, s in names if s == (1, 3)) == 3, names  # W1's rows are no vectors of their own


def test_the_mean_written_again_in_each_difference_is_no_near_miss(tmp_path):
    z = [F("3.16"), F("0.61"), F("1.87")]
    mean = sum(z) / 3
    assert mean == F("1.88")
    dev = [x - mean for x in z]
    var = sum(d * d for d in dev) / 3
    diffs = " + ".join(f"({x}-{mean_s})^2" for x, mean_s in zip(("3.16", "0.61", "1.87"), ["1.88"] * 3))
    post = tmp_path / "post.md"
    post.write_text("\n".join([
        "# Add & Norm by hand", "", "`input = [1.8, -0.3, 0.8]`", "",
        "`attention_output = [1.36, 0.91, 1.07]`", "", "The residual connection adds them:", "",
        "Let's normalize `z = [3.16, 0.61, 1.87]`.", "",
        f"$\\mu = (3.16 + 0.61 + 1.87) / 3 = 5.64 / 3 = {p(mean, 2)}$", "",
        f"$\\sigma^2 = ({diffs}) / 3$",
        "$\\sigma^2 = (" + " + ".join(f"({p(d, 2)})^2" for d in dev) + ") / 3 = ("
        + " + ".join(p(d * d, 4) for d in dev) + f") / 3 = {p(var, 2)}$", ""]), encoding="utf-8")
    got = claims(post)
    assert not [c for c in got if c["verdict"] in ("wrong", "carried")], got
    assert [F(c["exact"]) for c in got if c["line"] == 9] == z        # the residual: a step
    on_diffs = [c for c in got if c["line"] == 13 and c["printed"] == "1.88"]
    assert on_diffs and all(F(c["exact"]) == mean for c in on_diffs), on_diffs
