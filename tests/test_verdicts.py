"""Sound verdicts (issue 11): one small spec per rule, its truth computed here with
mpmath, decimal and fractions, never by symattn."""

import json
import subprocess
import sys
import textwrap
from decimal import Decimal, ROUND_HALF_UP
from fractions import Fraction

import mpmath
import pytest

from symattn.claims.check import check_spec
from symattn.spec.load import load

mpmath.mp.dps = 40


def spec(tmp_path, text: str, name="s.toml") -> str:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(p)


def run(tmp_path, text: str):
    return check_spec(load(spec(tmp_path, text)))


def claims(*items) -> str:
    """[[claims]] tables from (step, at, printed, line)."""
    out = []
    for step, at, printed, line in items:
        out.append(f'[[claims]]\nstep = "{step}"\nat = {json.dumps(at, ensure_ascii=False)}\n'
                   f'printed = "{printed}"\nline = {line}\n')
    return "\n".join(out)


def half_up(x, places: int) -> str:
    """x rounded half away from zero with the decimal module (x: an mpmath number)."""
    return str(Decimal(mpmath.nstr(x, 40, strip_zeros=False)).quantize(
        Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


HEAD = '''
[example]
id = "v"
source = "post.md"
'''

# -- 1. precision as printed ----------------------------------------------------------------


def test_scientific_notation_is_judged_at_its_significant_digits(tmp_path):
    e72 = mpmath.exp(mpmath.mpf("7.2"))                       # 1339.43…
    assert mpmath.nstr(e72, 3) == "1.34e+3"
    recs = run(tmp_path, HEAD + '''
    [inputs]
    x = [[7.2, 1234]]
    [[steps]]
    name = "y"
    expr = "exp(x)"
    [[steps]]
    name = "z"
    expr = "x"
    ''' + claims(("y", [0, 0], "1.34e3", 1), ("z", [0, 1], "1.23E+03", 2),
                 ("y", [0, 0], "1.35e3", 3), ("y", [0, 0], "1.339e3", 4)))
    assert [r.verdict for r in recs] == ["correct", "correct", "wrong", "correct"]
    assert recs[2].expected == "1340"
    assert not any("digit slip" in d for d in recs[1].diagnosis or [])


def test_an_integer_beside_decimals_is_judged_at_their_decimals(tmp_path):
    # the masked row of weights exp(s)/sum: s = [0.7, 0, -inf] -> [0.6682, 0.3318, 0]
    w = [mpmath.exp(mpmath.mpf("0.7")), mpmath.mpf(1)]
    p = [x / sum(w) for x in w]
    assert half_up(p[0], 4) == "0.6682"
    recs = run(tmp_path, HEAD + '''
    [inputs]
    S = [[0.7, 0, "-inf"]]
    y = [[2.04, 3.2]]
    [[steps]]
    name = "A"
    expr = "softmax(S)"
    [[steps]]
    name = "Y"
    expr = "y"
    ''' + claims(("A", [0, ":"], "[1, 0, 0]", 1),
                 ("A", [0, ":"], f"[{half_up(p[0], 4)}, {half_up(p[1], 4)}, 0]", 2),
                 ("Y", [0, ":"], "[2.04, 3]", 3)))
    v = {(r.line, r.at[1]): r.verdict for r in recs}
    assert v[(1, "0")] == "wrong" and v[(1, "1")] == "wrong"     # b gets weight 0.33, not 0
    assert v[(1, "2")] == "correct"                              # the masked weight is exactly 0
    assert [v[(2, str(j))] for j in range(3)] == ["correct"] * 3
    assert v[(3, "1")] == "wrong"                                # 3.2 is not 3.00


def test_minus_zero_is_a_sign(tmp_path):
    recs = run(tmp_path, HEAD + '''
    [inputs]
    x = [[0.01, -0.01]]
    [[steps]]
    name = "y"
    expr = "x"
    ''' + claims(("y", [0, 0], "-0.0", 1), ("y", [0, 1], "-0.0", 2), ("y", [0, 0], "0.0", 3)))
    assert [r.verdict for r in recs] == ["wrong", "correct", "correct"]


def test_half_up_rounds_negatives_away_from_zero(tmp_path):
    assert str(Decimal("-0.125").quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)) == "-0.13"
    recs = run(tmp_path, HEAD + '''
    [inputs]
    x = [[-0.125]]
    [[steps]]
    name = "y"
    expr = "x"
    ''' + claims(("y", [0, 0], "-0.13", 1), ("y", [0, 0], "-0.12", 2)))
    assert [r.verdict for r in recs] == ["correct", "wrong"]


# -- 2. carried means harmless ----------------------------------------------------------------

CHAIN = HEAD + '''
[inputs]
x = [[1.23456, 2.34567], [0.5, 0.25]]
W = [[2, 0], [0, 3]]
[[steps]]
name = "h"
expr = "x @ W"
[[steps]]
name = "y"
expr = "h * 10"
'''


def test_carried_names_exactly_the_cells_it_used(tmp_path):
    h = [Fraction("1.23456") * 2, Fraction("2.34567") * 3]          # 2.46912, 7.03701
    carried = Fraction("2.47") * 10                                  # from h printed at 2 places
    assert str(round(h[0] * 10, 2)) != "24.70" and carried == Fraction("24.7")
    recs = run(tmp_path, CHAIN + claims(("h", [0, ":"], "[2.47, 7.04]", 3),
                                        ("h", [1, ":"], "[1.00, 0.75]", 4),
                                        ("y", [0, 0], "24.70", 5)))
    y = recs[-1]
    assert y.verdict == "carried"
    assert y.used == [{"step": "h", "at": ["0", "0"], "line": 3}]
    assert y.carried_from == ["h [0, 0] (printed at line 3)"]


def test_a_number_from_a_wrong_number_is_wrong_and_names_its_root(tmp_path):
    # h[0,0] is 2.46912 -> "2.47"; the article prints the typo "2.74" and carries it: 27.40
    assert Fraction("2.74") * 10 == Fraction("27.4")
    recs = run(tmp_path, CHAIN + claims(("h", [0, 0], "2.74", 3), ("y", [0, 0], "27.40", 5)))
    h, y = recs
    assert h.verdict == "wrong" and y.verdict == "wrong"
    assert y.diagnosis == ["follows from the wrong number printed at line 3"]
    assert y.root == {"step": "h", "at": ["0", "0"], "line": 3, "printed": "2.74"}
    p = subprocess.run([sys.executable, "-m", "symattn", "check", spec(tmp_path, CHAIN + claims(
        ("h", [0, 0], "2.74", 3), ("y", [0, 0], "27.40", 5)), "t.toml")], capture_output=True, text=True)
    assert p.returncode == 1 and "↳ line 5" in p.stdout


def test_latex_corrections_mark_a_number_that_follows_from_a_wrong_one(tmp_path):
    path = spec(tmp_path, CHAIN + claims(("h", [0, 0], "2.74", 3), ("y", [0, 0], "27.40", 5)))
    p = subprocess.run([sys.executable, "-m", "symattn", "latex", path, "--corrections", "-o",
                        str(tmp_path / "out.md")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    tex = (tmp_path / "out.md").read_text(encoding="utf-8")
    assert r"\cancel{27.40}" in tex and r"\cancel{2.74}" in tex


# -- 3 and 4. diagnoses that reproduce the row ------------------------------------------------

def test_layernorm_by_hand_without_the_std_is_not_attention_scaling(tmp_path):
    xs = [mpmath.mpf(v) for v in ("1.0", "2.0", "4.0")]
    mu = sum(xs) / 3
    printed = [half_up(x - mu, 4) for x in xs]                       # forgot ÷ sqrt(var + eps)
    recs = run(tmp_path, HEAD + '''
    [inputs]
    x = [[1.0, 2.0, 4.0]]
    eps = 0.00001
    [[steps]]
    name = "n"
    expr = "(x - mean(x)) / sqrt(var(x) + eps)"
    ''' + claims(("n", [0, 0], printed[0], 1)))
    (r,) = recs
    assert r.verdict == "wrong"
    assert any("standard deviation missing" in d for d in r.diagnosis)
    assert not any("d_k" in d for d in r.diagnosis)


def test_sum_to_one_only_for_rows_of_weights(tmp_path):
    recs = run(tmp_path, HEAD + '''
    [inputs]
    x = [[0.25, 0.5, 0.2]]
    [[steps]]
    name = "y"
    expr = "x"
    ''' + claims(("y", [0, ":"], "[0.25, 0.5, 0.25]", 1)))
    assert recs[2].verdict == "wrong"
    assert not any("sums to" in d for d in recs[2].diagnosis or [])


def test_a_transpose_the_correct_neighbour_rules_out_is_not_offered(tmp_path):
    # x @ W with W = [[1, 2], [3, 4]]: [1, 1] @ W = [4, 6]; with W.T: [3, 7]
    body = HEAD + '''
    [inputs]
    x = [[1, 1]]
    W = [[1, 2], [3, 4]]
    [[steps]]
    name = "y"
    expr = "x @ W"
    '''
    alone = run(tmp_path, body + claims(("y", [0, 0], "3", 1)))
    assert "W transposed" in alone[0].diagnosis
    beside = run(tmp_path, body + claims(("y", [0, ":"], "[3, 6]", 1)))
    assert beside[1].verdict == "correct"
    assert "W transposed" not in (beside[0].diagnosis or [])


WEIGHTS = HEAD + '''
[inputs]
Q = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
K = [[1.0, 0.5], [0.2, 1.0], [0.0, 0.0]]
M = [[0, "-inf", "-inf"], [0, 0, "-inf"], [0, 0, 0]]
[[steps]]
name = "A"
expr = "weights(Q, K, mask=M)"
'''


def _softmax(z):
    e = [mpmath.exp(v) if v is not None else mpmath.mpf(0) for v in z]
    return [v / sum(e) for v in e]


def test_weights_softmax_over_columns_and_mask_after_softmax(tmp_path):
    Q = [[1, 0], [0, 1], [1, 1]]
    K = [[1, mpmath.mpf("0.5")], [mpmath.mpf("0.2"), 1], [0, 0]]
    s = [[sum(q[k] * kk[k] for k in range(2)) / mpmath.sqrt(2) for kk in K] for q in Q]
    cols = [_softmax([s[i][j] for i in range(3)]) for j in range(3)]   # over each column
    by_col = half_up(cols[0][0], 4)
    after = half_up(_softmax(s[0])[0], 4)                             # softmax, then zero the mask
    recs = run(tmp_path, WEIGHTS + claims(("A", [0, 0], by_col, 1), ("A", [0, 0], after, 2)))
    assert "softmax over columns instead of rows" in recs[0].diagnosis
    assert "mask applied after softmax (weights zeroed, not renormalised)" in recs[1].diagnosis


def _pe(pos, j, base, d=4):
    angle = mpmath.mpf(pos) / mpmath.power(base, mpmath.mpf(2 * (j // 2)) / d)
    return mpmath.sin(angle) if j % 2 == 0 else mpmath.cos(angle)


def _truncate(x, places: int) -> str:
    return str(Decimal(mpmath.nstr(x, 40, strip_zeros=False)).quantize(
        Decimal(1).scaleb(-places), rounding="ROUND_DOWN"))


def test_pe_without_frequency_decay_and_pe_base_then_truncated(tmp_path):
    body = HEAD + '''
    [inputs]
    [[steps]]
    name = "PE"
    expr = "positional_encoding(6, 4)"
    '''
    no_decay = half_up(mpmath.cos(3), 4)                    # PE[3, 3] = cos(3 / 1)
    assert no_decay != half_up(_pe(3, 3, 10000), 4)
    pos, j = next((p, j) for p in range(1, 6) for j in (2, 3)
                  if _truncate(_pe(p, j, 1000), 4) not in (half_up(_pe(p, j, 1000), 4),
                                                            half_up(_pe(p, j, 10000), 4), _truncate(_pe(p, j, 10000), 4)))
    truncated = _truncate(_pe(pos, j, 1000), 4)
    recs = run(tmp_path, body + claims(("PE", [3, 3], no_decay, 1), ("PE", [pos, j], truncated, 2)))
    assert any("without frequency decay" in d for d in recs[0].diagnosis)
    assert "positional encoding with base 1000 instead of 10000, then truncated" in recs[1].diagnosis


def test_population_and_sample_variance_swapped_inside_a_step(tmp_path):
    xs = [Fraction(1), Fraction(2), Fraction(4)]
    mu = sum(xs) / 3
    sample = sum((x - mu) ** 2 for x in xs) / 2
    recs = run(tmp_path, HEAD + '''
    [inputs]
    x = [[1, 2, 4]]
    [[steps]]
    name = "v"
    expr = "var(x) * 1"
    ''' + claims(("v", [0, 0], str(Decimal(sample.numerator) / Decimal(sample.denominator))[:6], 1)))
    assert any("unbiased variance" in d for d in recs[0].diagnosis)


def test_a_number_that_contradicts_the_same_entry_printed_earlier(tmp_path):
    recs = run(tmp_path, CHAIN + claims(("h", [0, 0], "2.47", 3), ("h", [0, 0], "2.51", 9)))
    assert recs[1].verdict == "wrong"
    assert any("contradicts 2.47 printed for the same entry at line 3" in d for d in recs[1].diagnosis)


def test_nothing_reproduces_it_is_null(tmp_path):
    recs = run(tmp_path, CHAIN + claims(("y", [1, 1], "91.37", 3)))
    assert recs[0].verdict == "wrong" and recs[0].diagnosis is None


# -- 5. rounded inputs --------------------------------------------------------------------------

def test_rounded_inputs_make_a_reachable_number_consistent(tmp_path):
    # torch printed x = 0.1235 (4 places) of some x' in [0.12345, 0.12355]; y = 1000·x'
    lo, hi = Fraction("0.12345") * 1000, Fraction("0.12355") * 1000      # (123.45, 123.55)
    assert lo < Fraction("123.46") < hi and not lo < Fraction("123.56") < hi
    body = HEAD + '''
    [inputs]
    x = {{ value = [[0.1235, 0.5]], {how} }}
    [[steps]]
    name = "y"
    expr = "x * 1000"
    ''' + claims(("y", [0, 0], "123.46", 1), ("y", [0, 0], "123.56", 2), ("y", [0, 1], "500.01", 3))
    for how in ("rounded = true", "decimals = 4"):
        recs = run(tmp_path, body.format(how=how))
        assert [r.verdict for r in recs] == ["consistent", "wrong", "consistent"], how
    exact = run(tmp_path, body.format(how="note = 'exact'"))
    assert [r.verdict for r in exact] == ["wrong", "wrong", "wrong"]


def test_consistent_is_not_wrong_in_the_cli(tmp_path):
    path = spec(tmp_path, HEAD + '''
    [inputs]
    x = { value = [[0.1235]], rounded = true }
    [[steps]]
    name = "y"
    expr = "exp(x) * 100"
    ''' + claims(("y", [0, 0], "113.14", 1)))
    # exp(0.1235)·100 = 113.1451… prints 113.15; exp(0.12345)·100 = 113.1394… prints 113.14
    assert half_up(mpmath.exp(mpmath.mpf("0.1235")) * 100, 2) == "113.15"
    assert half_up(mpmath.exp(mpmath.mpf("0.12346")) * 100, 2) == "113.14"
    p = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", path], capture_output=True, text=True)
    out = json.loads(p.stdout)
    assert out["claims"][0]["verdict"] == "consistent"
    assert out["summary"]["consistent"] == 1 and out["summary"]["wrong"] == 0
    assert p.returncode == 0
    text = subprocess.run([sys.executable, "-m", "symattn", "check", path], capture_output=True, text=True)
    assert "~ line 1" in text.stdout and "1 consistent" in text.stdout


# -- 6 and 7. argmax per row, JSON at ----------------------------------------------------------

def test_argmax_per_row_and_json_at_names_the_entry(tmp_path):
    path = spec(tmp_path, HEAD + '''
    tokens = ["a", "b"]
    [inputs]
    Z = { value = [[0.1, 0.9, 0.3], [2.0, -1.0, 0.5]], rows = "tokens" }
    [[steps]]
    name = "best"
    expr = "argmax(Z)"
    ''' + claims(("best", [":", 0], "[[1], [0]]", 4), ("best", ["b", 0], "0", 5)))
    recs = check_spec(load(path))
    assert [r.verdict for r in recs] == ["correct"] * 3
    assert [r.at for r in recs] == [["a", "0"], ["b", "0"], ["b", "0"]]


def test_a_number_the_rounded_inputs_cannot_reach_is_proven_wrong(tmp_path):
    # y = 1000·x' lies in [123.45, 123.55] for every x' that prints as 0.1235: 123.56 is out
    recs = run(tmp_path, HEAD + '''
    [inputs]
    x = { value = [[0.1235]], rounded = true }
    [[steps]]
    name = "y"
    expr = "x * 1000"
    ''' + claims(("y", [0, 0], "123.56", 1)))
    assert recs[0].verdict == "wrong"
    assert not any("not decided" in d for d in recs[0].diagnosis or [])


def test_grad_bounds_the_closed_form_like_latex(tmp_path):
    path = spec(tmp_path, HEAD + '''
    [inputs]
    X = [[1.0, 0.5, 0.3], [0.8, 1.2, 0.2], [1.5, 0.7, 0.9]]
    W = [[1.0, 0.2, 0.1], [0.1, 0.9, 0.4], [0.3, 0.2, 0.8]]
    [[steps]]
    name = "Z"
    expr = "attention(X @ W, X, X)"
    ''')
    p = subprocess.run([sys.executable, "-m", "symattn", "grad", path, "--loss", "sum(sum(Z).T)",
                        "--wrt", "W", "--digits", "12"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "closed form: the gradient's closed form would have about" in p.stdout
    assert "are not written out" in p.stdout and p.stderr == ""
    # the certified digits against a central difference of the same loss in mpmath
    X = [[mpmath.mpf(v) for v in r] for r in (("1.0", "0.5", "0.3"), ("0.8", "1.2", "0.2"), ("1.5", "0.7", "0.9"))]
    W = [[mpmath.mpf(v) for v in r] for r in (("1.0", "0.2", "0.1"), ("0.1", "0.9", "0.4"), ("0.3", "0.2", "0.8"))]

    def loss(W):
        Q = [[sum(X[i][k] * W[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
        total = 0
        for i in range(3):
            a = _softmax([sum(Q[i][k] * X[j][k] for k in range(3)) / mpmath.sqrt(3) for j in range(3)])
            total += sum(a[j] * X[j][c] for j in range(3) for c in range(3))
        return total
    h = mpmath.mpf(10) ** -15
    Wp = [r[:] for r in W]
    Wm = [r[:] for r in W]
    Wp[0][0] += h
    Wm[0][0] -= h
    d00 = (loss(Wp) - loss(Wm)) / (2 * h)
    row0 = next(l for l in p.stdout.splitlines() if l.startswith("0 "))
    assert mpmath.almosteq(mpmath.mpf(row0.split()[1]), d00, rel_eps=mpmath.mpf(10) ** -10)


def test_a_weight_masked_by_minus_1e9_printed_0_is_correct(tmp_path):
    w = _softmax([mpmath.mpf("0.7"), mpmath.mpf(0)])
    assert mpmath.exp(-mpmath.mpf(10) ** 9) < mpmath.mpf(2) ** -1074
    recs = run(tmp_path, HEAD + '''
    [inputs]
    S = [[0.7, 0, 0]]
    M = [[0, 0, -1000000000]]
    [[steps]]
    name = "A"
    expr = "softmax(S + M)"
    ''' + claims(("A", 0, f"[{half_up(w[0], 4)}, {half_up(w[1], 4)}, 0]", 1)))
    assert [r.verdict for r in recs] == ["correct"] * 3


HAND = HEAD + '''
[inputs]
S = [[0.2, 1.0, 0.5], [0.9, 0.1, 0.4], [0.3, 0.6, 1.2]]
x = [[1.0, 2.0, 4.0, 7.0]]
[[steps]]
name = "E"
expr = "exp(S)"
[[steps]]
name = "total"
expr = "sum(E)"
[[steps]]
name = "A"
expr = "E / total"
[[steps]]
name = "mu"
expr = "mean(x)"
[[steps]]
name = "v"
expr = "mean((x - mu) ** 2)"
[[steps]]
name = "std"
expr = "sqrt(v + 0.00001)"
[[steps]]
name = "n"
expr = "(x - mu) / std"
'''


def test_the_catalogue_works_for_the_math_written_out_by_hand(tmp_path):
    S = [[mpmath.mpf(v) for v in r] for r in (("0.2", "1.0", "0.5"), ("0.9", "0.1", "0.4"), ("0.3", "0.6", "1.2"))]
    col0 = _softmax([S[i][0] for i in range(3)])[0]                 # softmax down column 0
    xs = [mpmath.mpf(v) for v in (1, 2, 4, 7)]
    mu = sum(xs) / 4
    sample = sum((x - mu) ** 2 for x in xs) / 3
    no_std = xs[0] - mu
    recs = run(tmp_path, HAND + claims(("A", [0, 0], half_up(col0, 4), 1),
                                       ("v", [0, 0], half_up(sample, 4), 2),
                                       ("n", [0, 0], half_up(no_std, 4), 3)))
    assert "softmax over columns instead of rows (in step 'total')" in recs[0].diagnosis
    assert any("unbiased variance" in d for d in recs[1].diagnosis)
    assert any(d.startswith("division by the standard deviation missing") for d in recs[2].diagnosis)
    assert not any("d_k" in d for r in recs for d in r.diagnosis)


def test_carried_then_truncated(tmp_path):
    # h[0,0] = 2.46912 printed 2.47; y = 1.15·h: exactly 2.839488 (2.839), carried 2.8405
    # (2.841 rounded), carried and truncated 2.840
    exact, carried = Fraction("2.46912") * Fraction("1.15"), Fraction("2.47") * Fraction("1.15")
    assert str(Decimal(exact.numerator) / Decimal(exact.denominator)) == "2.839488"
    assert str(Decimal(carried.numerator) / Decimal(carried.denominator)) == "2.8405"
    recs = run(tmp_path, HEAD + '''
    [inputs]
    x = [[1.23456, 2.34567]]
    [[steps]]
    name = "h"
    expr = "x * 2"
    [[steps]]
    name = "y"
    expr = "h * 1.15"
    ''' + claims(("h", [0, 0], "2.47", 1), ("y", [0, 0], "2.840", 2), ("y", [0, 0], "2.841", 3)))
    assert [r.verdict for r in recs] == ["correct", "wrong", "carried"]
    assert "carried from h [0, 0] (printed at line 1), then truncated" in recs[1].diagnosis


def _notebook(seed: int, rounded: bool) -> str:
    """A PyTorch-style notebook: unrounded inputs (8 places) printed at 4, attention computed
    from the unrounded values (mpmath) and printed at 4."""
    import random
    rng = random.Random(seed)

    def mat(m, n):
        return [[mpmath.mpf(rng.randint(-99999999, 99999999)) / 10 ** 8 for _ in range(n)] for _ in range(m)]

    def mm(A, B):
        return [[sum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]
    X, WQ, WK, WV = mat(3, 4), mat(4, 4), mat(4, 4), mat(4, 4)
    Q, K, V = mm(X, WQ), mm(X, WK), mm(X, WV)
    A = [_softmax([sum(Q[i][k] * K[j][k] for k in range(4)) / 2 for j in range(3)]) for i in range(3)]
    Z = mm(A, V)

    def toml(M):
        return "[" + ", ".join("[" + ", ".join(half_up(v, 4) for v in r) + "]" for r in M) + "]"
    flag = "rounded = true" if rounded else "note = 'taken exactly'"
    text = HEAD + "".join(f"{n} = {{ value = {toml(M)}, {flag} }}\n" for n, M in
                          (("X", X), ("W_Q", WQ), ("W_K", WK), ("W_V", WV)))
    text = text.replace('source = "post.md"\n', 'source = "post.md"\n[inputs]\n')
    text += '[[steps]]\nname = "A"\nexpr = "weights(X @ W_Q, X @ W_K)"\n'
    text += '[[steps]]\nname = "Z"\nexpr = "A @ (X @ W_V)"\n'
    items = [("A", i, "[" + ", ".join(half_up(v, 4) for v in A[i]) + "]", 10 + i) for i in range(3)]
    items += [("Z", i, "[" + ", ".join(half_up(v, 4) for v in Z[i]) + "]", 20 + i) for i in range(3)]
    return text + claims(*items)


@pytest.mark.parametrize("seed", [3, 5])
def test_a_notebook_printout_is_consistent_not_wrong(tmp_path, seed):
    exact = run(tmp_path, _notebook(seed, rounded=False))
    assert sum(r.verdict == "wrong" for r in exact) > 0          # taken exactly, some look wrong
    recs = run(tmp_path, _notebook(seed, rounded=True))
    assert [r.verdict for r in recs if r.verdict not in ("correct", "consistent")] == []
    was_wrong = {(r.line, tuple(r.at)) for r in exact if r.verdict == "wrong"}
    assert all(r.verdict == "consistent" for r in recs if (r.line, tuple(r.at)) in was_wrong)


@pytest.mark.parametrize("bad, says", [('rounded = "yes"', "rounded must be true or false"),
                                       ("decimals = -1", "decimals must be a whole number"),
                                       ("decimals = 2, rounded = false", "decimals with rounded = false")])
def test_a_bad_printout_declaration_is_one_line_exit_2(tmp_path, bad, says):
    path = spec(tmp_path, HEAD + f'''
    [inputs]
    x = {{ value = [[0.1235]], {bad} }}
    ''')
    p = subprocess.run([sys.executable, "-m", "symattn", "check", path], capture_output=True, text=True)
    assert p.returncode == 2 and says in p.stderr and len(p.stderr.strip().splitlines()) == 1
