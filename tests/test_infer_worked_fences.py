"""Hand arithmetic in a plain code fence is read as the prose is: a line that works a list
out (``softmax([1.5, 2.4, -∞]) = [0.29, 0.71, 0.0]``) is judged entry by entry, the
row of a masked score included; a list a caption gives only an operation's name
(``→ softmax: [0.999, 0.0001, 0.0001]`` of a side remark) is no claim on the example's
step of that operation when none of its entries is that step's; a lesson kept under a
suffix no reader has (``.ts``) is read as an article, not refused as a spec.

Truths: mpmath at 30 digits and ``decimal`` half-up rounding, never symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal

import mpmath
from conftest import check_post

mpmath.mp.dps = 30


def softmax(row):
    """The softmax of decimal strings, ``-inf`` entries weighing nothing."""
    e = [mpmath.mpf(0) if v == "-inf" else mpmath.exp(mpmath.mpf(v)) for v in row]
    return [x / sum(e) for x in e]


def rounds_to(x, printed: str) -> bool:
    places = len(printed.split(".")[1]) if "." in printed else 0
    d = Decimal(mpmath.nstr(x, 25)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    return d == Decimal(printed)


ROWS = [(["2.1", "-inf", "-inf"], ["1.0", "0.0", "0.0"]),
        (["1.5", "2.4", "-inf"], ["0.29", "0.71", "0.0"]),
        (["0.9", "1.7", "2.6"], ["0.10", "0.23", "0.67"])]


def test_a_plain_fence_that_works_masked_softmaxes_out_is_judged(tmp_path):
    body = []
    for k, (row, printed) in enumerate(ROWS):
        written = ", ".join("-∞" if v == "-inf" else v for v in row)
        body += [f"  Row {k + 1}:", f"  softmax([{written}]) = [{', '.join(printed)}]", ""]
    out = check_post(tmp_path, "\n".join(["# Causal softmax", "", "```", *body, "```", ""]))
    for k, (row, printed) in enumerate(ROWS):
        line = 5 + 3 * k
        got = [c for c in out["claims"] if c["line"] == line]
        assert sorted(c["printed"] for c in got) == sorted(printed)
        truth = softmax(row)
        for c in got:                        # each print judged against its own entry
            j = next(j for j, (x, p) in enumerate(zip(truth, printed))
                     if p == c["printed"] and abs(mpmath.mpf(c["exact"]) - x) < mpmath.mpf("1e-18"))
            assert (c["verdict"] == "correct") == rounds_to(truth[j], printed[j])
    assert not rounds_to(softmax(ROWS[2][0])[0], "0.10")       # the one slip of the text is
    assert any(c["line"] == 11 and c["printed"] == "0.10" and c["verdict"] == "wrong" for c in out["claims"])


def test_an_operation_caption_of_other_numbers_is_no_claim_on_the_step(tmp_path):
    scores = ["1.2", "3.5", "0.8"]
    weights = [mpmath.nstr(x, 2) for x in softmax(scores)]
    post = "\n".join([
        "# Attention", "", "```", f"  scores:  [{', '.join(scores)}]", "            ↓ softmax",
        f"  weights: [{', '.join(weights)}]", "```", "", "## Why scale?", "",
        "```", "Without scaling:", "  Pizza: 150.0    Salad: 2.0    Pasta: 3.0",
        "  → softmax: [0.999, 0.0001, 0.0001]", "```", ""])
    out = check_post(tmp_path, post)
    truth = softmax(scores)
    got = [c for c in out["claims"] if c["line"] == 6]
    assert len(got) == 3 and all(c["verdict"] == "correct" for c in got)
    assert all(abs(mpmath.mpf(c["exact"]) - truth[int(c["at"][-1])]) < mpmath.mpf("1e-18") for c in got)
    assert not any(abs(mpmath.mpf(c["exact"]) - softmax(["150.0", "2.0", "3.0"])[0]) > 1 for c in got)
    assert not [c for c in out["claims"] if c["line"] == 14 and c["verdict"] == "wrong"]


def test_a_lesson_under_an_unknown_suffix_is_an_article(tmp_path):
    scores = ["0.5", "1.0", "2.0"]
    truth = softmax(scores)
    shown = [str(Decimal(mpmath.nstr(x, 25)).quantize(Decimal("0.001"), ROUND_HALF_UP)) for x in truth]
    lesson = tmp_path / "lesson.ts"
    lesson.write_text("export const lesson = `\n<p>Scores [" + ", ".join(scores) + "]</p>\n"
                      "<p>softmax([" + ", ".join(scores) + "]) = [" + ", ".join(shown) + "]</p>\n`;\n",
                      encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(lesson)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = [c for c in json.loads(r.stdout)["claims"] if c["line"] == 3]
    assert sorted(c["printed"] for c in got) == sorted(shown)
    assert all(c["verdict"] == "correct" for c in got)
    assert all(any(abs(mpmath.mpf(c["exact"]) - x) < mpmath.mpf("1e-18") for x in truth) for c in got)
    spec = tmp_path / "broken.spec"                 # a spec under another suffix stays a spec
    spec.write_text('[example]\nid = "x"\nsource = "missing.md"\n', encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", str(spec)], capture_output=True, text=True)
    assert r.returncode == 2 and "no worked example found" not in r.stderr


def test_a_weighted_sum_written_after_the_softmax_it_uses_is_checked(tmp_path):
    """The exps worked out on a list (``exp([1, 0, 0.5]) = […]``) are a block the softmax is
    then computed from; the output written below it uses that softmax: its steps come after
    the softmax in the inferred spec, and every number is judged (none left unchecked)."""
    from fractions import Fraction as F
    q = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]
    v = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    scores = [sum(a * b for a, b in zip(q[0], k)) for k in q]
    scaled = [F(s, 2) for s in scores]
    weights = softmax([str(float(s)) for s in scaled])
    w2 = [fixed(x, 2) for x in weights]
    out_exact = [sum(mpmath.mpf(w) * v[i][j] for i, w in enumerate(weights)) for j in range(4)]
    out_printed = [fixed(sum(mpmath.mpf(w2[i]) * v[i][j] for i in range(3)), 1) for j in range(4)]
    exps = [fixed(mpmath.exp(mpmath.mpf(s.numerator) / s.denominator), 2) for s in scaled]
    total = fixed(sum(mpmath.mpf(e) for e in exps), 2)
    post = "\n".join([
        "# Attention by hand", "", "```",
        *(f"Q{i} = [{', '.join(map(str, r))}]" for i, r in enumerate(q)), "",
        "V = [" + ", ".join(map(str, v[0])) + "]", *("    [" + ", ".join(map(str, r)) + "]" for r in v[1:]),
        "```", "", "```",
        *(f"q0 · k{i} = " + " + ".join(f"{a}·{b}" for a, b in zip(q[0], k)) + f" = {s}"
          for i, (k, s) in enumerate(zip(q, scores))), "",
        f"scores = [{', '.join(map(str, scores))}]", "```", "", "```", "√d_k = √4 = 2",
        "scaled = [" + ", ".join(f"{s}/2" for s in scores) + "] = [" +
        ", ".join(str(s.numerator) if s.denominator == 1 else str(float(s)) for s in scaled) + "]",
        "```", "", "```",
        "exp([" + ", ".join(str(s.numerator) if s.denominator == 1 else str(float(s)) for s in scaled) +
        "]) = [" + ", ".join(exps) + "]", f"sum = {total}", "", f"softmax = [{', '.join(w2)}]", "```", "",
        "```", "output = " + " + ".join(f"{w}[{','.join(map(str, r))}]" for w, r in zip(w2, v)),
        "       ≈ [" + ", ".join(out_printed) + "]", "```", ""])
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(_write(tmp_path, post))],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1) and "inconsistently" not in r.stderr, r.stderr
    claims = json.loads(r.stdout)["claims"]
    line = post.split("\n").index("       ≈ [" + ", ".join(out_printed) + "]") + 1
    got = [c for c in claims if c["line"] == line]
    assert sorted(c["printed"] for c in got) == sorted(out_printed)
    for c in got:                            # each output entry from the exact weights
        assert min(abs(mpmath.mpf(c["exact"]) - x) for x in out_exact) < mpmath.mpf("1e-18")


def fixed(x, places: int) -> str:
    return str(Decimal(mpmath.nstr(x, 25)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP))


def _write(folder, text: str):
    path = folder / "post.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_labelled_scores_one_a_line_are_one_column_whatever_their_spacing(tmp_path):
    """``Cat:  2.0`` / ``Dog:  1.0`` / ``Bird: 0.1`` (one space after the last colon) are the
    three rows of one column: the exps, their sum and the quotients written after it are
    judged against the exact softmax chain (the sum 11.212 of rounded exps is carried), not
    split between that column and the same logits printed as a list before it."""
    logits = ["2.0", "1.0", "0.1"]
    e = [mpmath.exp(mpmath.mpf(x)) for x in logits]
    shown = [fixed(x, 3) for x in e]
    total = fixed(sum(mpmath.mpf(x) for x in shown), 3)
    assert total != fixed(sum(e), 3)                       # the text's sum is carried
    probs = [fixed(x / sum(e), 3) for x in e]
    text = "\n".join(["Softmax by hand", "", f"[{', '.join(logits)}] → [{', '.join(probs)}]", "",
                      "Network output:", "  Cat:  2.0", "  Dog:  1.0", "  Bird: 0.1", "",
                      *(f"e^{x} = {s}" for x, s in zip(logits, shown)), "",
                      f"{' + '.join(shown)} = {total}", "",
                      *(f"{n}: {s} / {total} = {fixed(mpmath.mpf(s) / mpmath.mpf(total), 3)}"
                        for n, s in zip(("Cat", "Dog", "Bird"), shown)), ""])
    out = check_post(tmp_path, text, name="page.txt")
    claims = {(c["line"], c["printed"]): c for c in out["claims"]}
    for k, x in enumerate(e):
        c = claims[(10 + k, shown[k])]
        assert abs(mpmath.mpf(c["exact"]) - x) < mpmath.mpf("1e-18") and c["verdict"] == "correct"
    c = claims[(14, total)]
    assert abs(mpmath.mpf(c["exact"]) - sum(e)) < mpmath.mpf("1e-18") and c["verdict"] == "carried"
    for k, x in enumerate(e):
        printed = fixed(mpmath.mpf(shown[k]) / mpmath.mpf(total), 3)
        c = claims[(16 + k, printed)]
        assert abs(mpmath.mpf(c["exact"]) - x / sum(e)) < mpmath.mpf("1e-18")
