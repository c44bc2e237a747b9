"""Sound verdicts, round two (issue 22): one small spec per rule, its truth computed here
with mpmath, decimal and fractions, never by symattn."""

import json
import textwrap
from decimal import Decimal, ROUND_HALF_UP
from fractions import Fraction

import mpmath

from symattn.claims.check import check_spec
from symattn.spec.load import load

mpmath.mp.dps = 40


def run(tmp_path, text: str):
    p = tmp_path / "s.toml"
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return check_spec(load(str(p)))


def claims(*items) -> str:
    """[[claims]] tables from (step, at, printed, line)."""
    return "\n".join(f'[[claims]]\nstep = "{step}"\nat = {json.dumps(at)}\n'
                     f'printed = "{printed}"\nline = {line}\n' for step, at, printed, line in items)


def half_up(x, places: int) -> str:
    return str(Decimal(mpmath.nstr(x, 40, strip_zeros=False)).quantize(
        Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def head(rounding="half-up") -> str:
    return f'[example]\nid = "v"\nsource = "post.md"\nrounding = "{rounding}"\n'


def sigma(d):
    return 1 / (1 + mpmath.exp(-d))


# -- consistent is decided per claim: one point for a whole printed row ---------------------

def test_a_row_of_weights_is_reached_by_one_point_or_not_at_all(tmp_path):
    # S printed [0.1, 0.1] (1 place): s0 − s1 ranges over (−0.1, 0.1), weight 0 = σ(s0 − s1)
    assert half_up(sigma(mpmath.mpf("0.0999")), 2) == "0.52"        # 0.52 alone is reachable
    assert Fraction("0.515") * 2 > 1                                 # [0.52, 0.52] cannot sum to 1
    recs = run(tmp_path, head() + '''
[inputs]
S = { value = [[0.1, 0.1]], rounded = true }
[[steps]]
name = "A"
expr = "softmax(S)"
''' + claims(("A", 0, "[0.52, 0.52]", 1), ("A", [0, 0], "0.52", 2), ("A", 0, "[0.52, 0.48]", 3)))
    v = {(r.line, r.at[1]): r for r in recs}
    for j in ("0", "1"):
        assert v[(1, j)].verdict == "wrong"
        assert v[(1, j)].diagnosis[0].startswith("reached alone, but not together")
        assert not any("not decided" in d for d in v[(1, j)].diagnosis)
    assert v[(2, "0")].verdict == "consistent"
    assert v[(3, "0")].verdict == v[(3, "1")].verdict == "consistent"


def test_a_row_no_one_point_gives_is_not_consistent_and_says_not_decided(tmp_path):
    # y = [x, x]: the two printed numbers of the row come from one x' in [0.95, 1.05]
    assert not any(Fraction("1.035") <= x <= Fraction("1.045") and Fraction("0.955") <= x <= Fraction("0.965")
                   for x in (Fraction(k, 1000) for k in range(950, 1051)))
    recs = run(tmp_path, head() + '''
[inputs]
x = { value = [[1.0]], rounded = true }
[[steps]]
name = "y"
expr = "x @ [[1, 1]]"
''' + claims(("y", 0, "[1.04, 0.96]", 1), ("y", [0, 1], "0.96", 2)))
    assert [r.verdict for r in recs] == ["wrong", "wrong", "consistent"]
    assert all(r.diagnosis[0].startswith("not decided whether one point") for r in recs[:2])


# -- the sign of a rounded zero ------------------------------------------------------------

def test_minus_zero_input_is_searched_on_its_side_only(tmp_path):
    # x printed -0.0000: x' in [-0.00005, 0], so y = 10000·x' in [-0.5, 0]
    lo, hi = Fraction("-0.00005") * 10000, Fraction(0)
    assert not lo <= Fraction("0.30") <= hi and lo <= Fraction("-0.30") <= hi
    recs = run(tmp_path, head() + '''
[inputs]
x = { value = [[-0.0000]], rounded = true }
[[steps]]
name = "y"
expr = "x * 10000"
''' + claims(("y", [0, 0], "0.30", 1), ("y", [0, 0], "-0.30", 2)))
    assert [r.verdict for r in recs] == ["wrong", "consistent"]
    assert not any("not decided" in d for d in recs[0].diagnosis or [])


def test_minus_zero_input_in_truncate_mode_is_the_negative_box(tmp_path):
    # truncated, -0.0 is some x' in (-0.1, 0]; y = 10·x' = -0.5 (x' = -0.05) truncates to -0.5
    x = Fraction("-0.05")
    assert Fraction(-1, 10) < x <= 0 and int(x * 10 * 10) / Fraction(10) == Fraction("-0.5")
    recs = run(tmp_path, head("truncate") + '''
[inputs]
x = { value = [[-0.0]], rounded = true }
[[steps]]
name = "y"
expr = "x * 10"
''' + claims(("y", [0, 0], "-0.5", 1), ("y", [0, 0], "0.5", 2)))
    assert [r.verdict for r in recs] == ["consistent", "wrong"]


# -- scientific notation in rounded inputs ---------------------------------------------------

def test_scientific_notation_inputs_get_the_box_of_their_last_digit(tmp_path):
    # 1.5e3 stands for [1450, 1550], 4.2e2 for [415, 425]
    assert Fraction(1450) <= Fraction("15.4") * 100 <= Fraction(1550) < Fraction("15.6") * 100
    assert Fraction(415) <= Fraction("42.4") * 10 <= Fraction(425)
    recs = run(tmp_path, head() + '''
[inputs]
x = { value = [[1.5e3, 4.2e2]], rounded = true }
[[steps]]
name = "y"
expr = "x * [[0.01, 0.1]]"
''' + claims(("y", [0, 0], "15.4", 1), ("y", [0, 1], "42.4", 2), ("y", [0, 0], "15.6", 3)))
    assert [r.verdict for r in recs] == ["consistent", "consistent", "wrong"]


# -- a diagnosis must reproduce every printed step it changes; and not depend on layout --------

def test_a_mistake_refuted_by_a_step_printed_earlier_is_not_offered(tmp_path):
    # h = x @ W = [7, 10]; with W transposed [5, 11]; y = 2h: [14, 20], transposed [10, 22]
    x, W = [1, 2], [[1, 2], [3, 4]]
    h = [sum(x[k] * W[k][j] for k in range(2)) for j in range(2)]
    hT = [sum(x[k] * W[j][k] for k in range(2)) for j in range(2)]
    assert (h, [2 * v for v in hT]) == ([7, 10], [10, 22])
    body = head() + '''
[inputs]
x = [[1, 2]]
W = [[1, 2], [3, 4]]
[[steps]]
name = "h"
expr = "x @ W"
[[steps]]
name = "y"
expr = "h * 2"
'''
    label = "W transposed (in step 'h')"
    assert label in run(tmp_path, body + claims(("y", [0, 0], "10", 2)))[0].diagnosis
    assert label in run(tmp_path, body + claims(("h", 0, "[7, 10]", 3), ("y", [0, 0], "10", 2)))[2].diagnosis
    recs = run(tmp_path, body + claims(("h", 0, "[7, 10]", 1), ("y", [0, 0], "10", 2)))
    assert [r.verdict for r in recs] == ["correct", "correct", "wrong"]
    assert label not in (recs[2].diagnosis or [])


def test_a_diagnosis_does_not_depend_on_the_layout(tmp_path):
    # variance per row: row 0 printed with the biased divisor, rows 1 and 2 with the unbiased
    X = [[1, 2, 4, 7], [2, 2, 3, 5], [0, 1, 1, 6]]

    def var(r, d):
        mu = Fraction(sum(r), len(r))
        return sum((x - mu) ** 2 for x in r) / d
    printed = [var(X[0], 4), var(X[1], 3), var(X[2], 3)]
    text = [str((Decimal(p.numerator) / Decimal(p.denominator)).quantize(Decimal("0.0001"))) for p in printed]
    assert text == ["5.2500", "2.0000", "7.3333"]
    body = head() + '''
[inputs]
x = [[1, 2, 4, 7], [2, 2, 3, 5], [0, 1, 1, 6]]
[[steps]]
name = "v"
expr = "mean((x - mean(x)) ** 2)"
'''
    column = run(tmp_path, body + claims(("v", [":", 0], "[[" + "], [".join(text) + "]]", 1)))
    rows = run(tmp_path, body + claims(*[("v", [i, 0], text[i], i + 1) for i in range(3)]))
    assert [r.verdict for r in column] == [r.verdict for r in rows] == ["correct", "wrong", "wrong"]
    assert [r.diagnosis for r in column] == [r.diagnosis for r in rows]


# -- printing mistakes named only where they hold -----------------------------------------------

CAUSAL = '''
[inputs]
Q = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
K = [[1.0, 0.5], [0.2, 1.0], [0.0, 0.0]]
M = [[0, "-inf", "-inf"], [0, 0, "-inf"], [0, 0, 0]]
S = [[0.2, 0.4]]
[[steps]]
name = "A"
expr = "weights(Q, K, mask=M)"
[[steps]]
name = "B"
expr = "softmax(S)"
'''


def _softmax(z):
    e = [mpmath.exp(v) for v in z]
    return [v / sum(e) for v in e]


def test_sum_to_one_is_not_named_when_the_correct_row_sums_to_1(tmp_path):
    # row 1 of A: scores [0.5, 1, 0] (q = [0, 1]); printed unscaled and unmasked: two mistakes
    both = [half_up(w, 4) for w in _softmax([mpmath.mpf("0.5"), mpmath.mpf(1), mpmath.mpf(0)])]
    assert sum(Decimal(x) for x in both) == 1
    right = _softmax([mpmath.mpf("0.5") / mpmath.sqrt(2), 1 / mpmath.sqrt(2)])
    assert Decimal(half_up(right[0], 4)) + Decimal(half_up(right[1], 4)) == 1
    recs = run(tmp_path, head() + CAUSAL + claims(("A", 1, "[" + ", ".join(both) + "]", 1)))
    last = recs[2]
    assert last.verdict == "wrong"
    assert not any("sums to exactly 1" in d for d in last.diagnosis)
    assert "scaling 1/√d_k missing and 0 instead of −∞ in the mask" in last.diagnosis


def test_one_zero_for_weights_near_a_half_is_not_the_neighbouring_cell(tmp_path):
    # softmax([0.2, 0.4]) = [0.4502, 0.5498]: printed [1, 0] claims exactly 1 and 0
    w = _softmax([mpmath.mpf("0.2"), mpmath.mpf("0.4")])
    assert [half_up(x, 4) for x in w] == ["0.4502", "0.5498"] and half_up(w[1], 0) == "1"
    recs = run(tmp_path, head() + CAUSAL + claims(("B", 0, "[1, 0]", 1)))
    assert [r.verdict for r in recs] == ["wrong", "wrong"]
    assert not any("neighbouring" in d for r in recs for d in r.diagnosis or [])


def test_minus_zero_does_not_restate_a_correct_zero(tmp_path):
    recs = run(tmp_path, head() + '''
[inputs]
x = [[0.0001]]
[[steps]]
name = "y"
expr = "x"
''' + claims(("y", [0, 0], "0.000", 1), ("y", [0, 0], "-0.000", 2), ("y", [0, 0], "-0.000", 3)))
    assert Fraction("0.0001") > 0 and round(Fraction("0.0001"), 3) == 0
    assert [r.verdict for r in recs] == ["correct", "wrong", "wrong"]
    assert not any("restates" in d for d in recs[1].diagnosis)
    assert "minus sign added (the value is positive)" in recs[1].diagnosis
    assert "restates the number printed at line 2" in recs[2].diagnosis     # the wrong one, again


def test_a_number_carried_from_a_step_printed_later_is_carried_not_a_digit_slip(tmp_path):
    # h = 2x = 0.12345, printed 0.12 (line 5); y = 1000h = 123.45 → 123, from the print 120
    h = Fraction("0.061725") * 2
    assert h == Fraction("0.12345") and round(h * 1000) == 123 and Fraction("0.12") * 1000 == 120
    recs = run(tmp_path, head() + '''
[inputs]
x = [[0.061725]]
[[steps]]
name = "h"
expr = "x * 2"
[[steps]]
name = "y"
expr = "h * 1000"
''' + claims(("y", [0, 0], "120", 2), ("h", [0, 0], "0.12", 5)))
    assert [r.verdict for r in recs] == ["carried", "correct"]
    assert recs[0].carried_from == ["h [0, 0] (printed at line 5)"]
    assert not any("digit slip" in d for d in recs[0].diagnosis or [])


def test_rmsnorm_by_hand_gets_rmsnorm_mistakes_not_a_variance(tmp_path):
    xs = [mpmath.mpf(v) for v in (1, 2, 3, 4)]
    ms = sum(x * x for x in xs) / 4                                    # 7.5, a mean square
    eps = mpmath.mpf("0.01")
    outside = half_up(xs[0] / (mpmath.sqrt(ms) + eps), 4)
    no_eps = half_up(xs[0] / mpmath.sqrt(ms), 4)
    by_ms = half_up(xs[0] / (ms + eps), 4)
    assert len({outside, no_eps, by_ms, half_up(xs[0] / mpmath.sqrt(ms + eps), 4)}) == 4
    recs = run(tmp_path, head() + '''
[inputs]
x = [[1, 2, 3, 4]]
eps = 0.01
[[steps]]
name = "y"
expr = "x / sqrt(mean(x ** 2) + eps)"
''' + claims(("y", [0, 0], outside, 1), ("y", [0, 0], no_eps, 2), ("y", [0, 0], by_ms, 3)))
    assert "RMSNorm with eps outside the square root" in recs[0].diagnosis
    assert "RMSNorm without eps" in recs[1].diagnosis
    assert "divided by the mean square instead of the root mean square (RMS)" in recs[2].diagnosis
    said = [d for r in recs for d in r.diagnosis]
    assert not any("LayerNorm" in d or "variance" in d or "standard deviation" in d for d in said)


def test_one_point_for_everything_a_step_shows_on_one_line(tmp_path):
    # the same impossible row [0.52, 0.52], printed as two claims on one article line; a
    # masked score printed −∞ beside rounded inputs is kept as it is
    assert Fraction("0.515") * 2 > 1
    recs = run(tmp_path, head() + '''
[inputs]
S = { value = [[0.1, 0.1, "-inf"]], rounded = true }
[[steps]]
name = "A"
expr = "softmax(S)"
[[steps]]
name = "Z"
expr = "S * 1"
''' + claims(("A", [0, 0], "0.52", 1), ("A", [0, 1], "0.52", 1), ("A", [0, 2], "0", 1),
             ("Z", 0, "[0.14, 0.1, −∞]", 2)))
    assert [r.verdict for r in recs] == ["wrong", "wrong", "correct", "consistent", "correct", "correct"]
    assert all(r.diagnosis[0].startswith("reached alone, but not together") for r in recs[:2])


def test_a_step_printed_correctly_then_skipped_is_named_as_skipped(tmp_path):
    # scaled = s/√2 printed correctly; the weights are softmax(s): the step skipped, not changed
    e = mpmath.e
    assert half_up(e / (e + 1), 4) == "0.7311" and half_up(1 / mpmath.sqrt(2), 4) == "0.7071"
    recs = run(tmp_path, head() + '''
[inputs]
q = [[1, 0]]
K = [[1, 0], [0, 1]]
[[steps]]
name = "s"
expr = "q @ K.T"
[[steps]]
name = "scaled"
expr = "s / sqrt(2)"
[[steps]]
name = "w"
expr = "softmax(scaled)"
''' + claims(("scaled", 0, "[0.7071, 0]", 1), ("w", [0, 0], "0.7311", 2)))
    d = recs[2].diagnosis
    assert "scaling 1/√d_k missing (step 'scaled' skipped: s used in its place)" in d
    assert "scaling 1/√d_k missing (in step 'scaled')" not in d
