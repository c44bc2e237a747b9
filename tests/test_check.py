"""symattn check: each verdict kind and each diagnosis, triggered by a small spec."""

import json
import subprocess
import sys
import textwrap

import pytest

import symattn as sa
from symattn.claims.check import check_spec
from symattn.evaluation.evaluator import Evaluator
from symattn.spec.load import load

HEAD = '''
[example]
id = "t"
source = "article.md"
rounding = "{rounding}"
tokens = ["a", "b", "c"]

[inputs]
X = {{ value = [[1.0, 0.2], [0.3, 1.1], [0.9, 0.8]], rows = "tokens" }}
W_Q = [[1.0, 0.4], [0.2, 0.7]]
W_K = [[0.5, 0.1], [0.3, 0.9]]
W_V = [[1.0, 0.0], [0.5, 2.0]]
'''

STEPS = '''
[[steps]]
name = "Q"
expr = "X @ W_Q"

[[steps]]
name = "K"
expr = "X @ W_K"

[[steps]]
name = "V"
expr = "X @ W_V"

[[steps]]
name = "S"
expr = "Q @ K.T / sqrt(2)"

[[steps]]
name = "A"
expr = "softmax(S)"

[[steps]]
name = "Z"
expr = "A @ V"
'''


def spec_file(tmp_path, body: str, rounding="half-up", steps=STEPS) -> str:
    p = tmp_path / "s.toml"
    p.write_text(HEAD.format(rounding=rounding) + steps + textwrap.dedent(body), encoding="utf-8")
    return str(p)


def claim(step, at, printed, line=10, extra=""):
    at_text = f'"{at}"' if isinstance(at, str) else json.dumps(at, ensure_ascii=False)
    return f'\n[[claims]]\nstep = "{step}"\nat = {at_text}\nprinted = "{printed}"\nline = {line}\n{extra}'


def value(t, i, j, decimals, mode="half-up", scale=1):
    return str(Evaluator().rounded(t, i, j, decimals=decimals, mode=mode, scale=scale))


def run(path):
    return check_spec(load(path))


def tensors(tmp_path, steps=STEPS):
    return load(spec_file(tmp_path, "", steps=steps)).tensors


def only(records):
    assert len(records) == 1
    return records[0]


def test_correct_and_precision_from_printed_digits(tmp_path):
    t = tensors(tmp_path)
    A = t["A"]
    printed = f"[{value(A, 1, 0, 4)}, {value(A, 1, 1, 3)}, {value(A, 1, 2, 2)}]"
    recs = run(spec_file(tmp_path, claim("A", "b", printed)))
    assert [r.verdict for r in recs] == ["correct"] * 3
    assert [r.expected for r in recs] == printed.strip("[]").split(", ")
    assert len(recs[0].exact.replace("0.", "").lstrip("0")) >= 20


def test_wrong_without_known_mistake_has_null_diagnosis(tmp_path):
    r = only(run(spec_file(tmp_path, claim("Z", ["a", 0], "7.777"))))
    assert r.verdict == "wrong" and r.diagnosis is None


def test_carried_names_the_printed_inputs(tmp_path):
    t = tensors(tmp_path)
    A, V = t["A"], t["V"]
    # the author rounds the weights to 2 decimals, then computes Z[a,0] from them
    from fractions import Fraction
    w = [Fraction(value(A, 0, j, 2)) for j in range(3)]
    v = sa.evaluate(V, exact=True)
    z = sum(w[j] * Fraction(str(v[j, 0])) for j in range(3))
    printed_z = str(sa.evaluate(sa.matrix([[z]]), digits=6)[0][0])
    exact_z = value(t["Z"], 0, 0, 4)
    z4 = value(sa.matrix([[z]]), 0, 0, 4)
    if z4 == exact_z:
        pytest.skip("rounding happens to agree for these inputs")
    body = claim("A", "a", f"[{', '.join(str(x) for x in (value(A, 0, j, 2) for j in range(3)))}]", 5) \
        + claim("Z", ["a", 0], z4, 9)
    recs = run(spec_file(tmp_path, body))
    z_rec = recs[-1]
    assert z_rec.verdict == "carried"
    assert "A row a (printed at line 5)" in z_rec.carried_from


def test_exact_tie_is_detected(tmp_path):
    steps = '\n[[steps]]\nname = "h"\nexpr = "5 / 8"\n'
    up = only(run(spec_file(tmp_path, claim("h", None, "0.63").replace("at = null\n", ""), steps=steps)))
    assert up.verdict == "correct" and up.tie
    even = only(run(spec_file(tmp_path, claim("h", None, "0.63").replace("at = null\n", ""),
                              rounding="half-even", steps=steps)))
    assert even.verdict == "wrong" and "rounded with half-up instead of half-even" in even.diagnosis


def _diagnosed(tmp_path, step, at, printed, steps=STEPS, rounding="half-up"):
    r = only(run(spec_file(tmp_path, claim(step, at, printed), rounding, steps)))
    assert r.verdict == "wrong", r
    return r.diagnosis or []


def test_missing_scaling(tmp_path):
    t = tensors(tmp_path)
    unscaled = sa.softmax(t["Q"] @ t["K"].T)
    d = _diagnosed(tmp_path, "A", ["a", 0], value(unscaled, 0, 0, 4))
    assert "scaling 1/√d_k missing (in step 'S')" in d


def test_scaled_by_dk(tmp_path):
    t = tensors(tmp_path)
    by_d = sa.softmax(t["Q"] @ t["K"].T / 2)
    d = _diagnosed(tmp_path, "A", ["a", 0], value(by_d, 0, 0, 4))
    assert any(x.startswith("scaled by 1/d_k instead of 1/√d_k") for x in d)


def test_transposed_weight(tmp_path):
    t = tensors(tmp_path)
    X = t["X"]
    WQt = load(spec_file(tmp_path, "")).inputs["W_Q"].T
    d = _diagnosed(tmp_path, "Q", ["a", 1], value(X @ WQt, 0, 1, 2))
    assert "W_Q transposed" in d


def test_softmax_over_columns(tmp_path):
    t = tensors(tmp_path)
    col = sa.softmax(t["S"], axis=0)
    d = _diagnosed(tmp_path, "A", ["a", 1], value(col, 0, 1, 4))
    assert "softmax over columns instead of rows" in d


MASKED = STEPS.replace('expr = "softmax(S)"', 'expr = "softmax(S + causal_mask(3))"')


def test_zero_instead_of_minus_infinity(tmp_path):
    t = tensors(tmp_path, MASKED)
    zero_mask = sa.softmax(t["S"] + sa.causal_mask(3, fill=0))
    d = _diagnosed(tmp_path, "A", ["a", 1], value(zero_mask, 0, 1, 4), MASKED)
    assert "0 instead of −∞ in the mask" in d


def test_mask_after_softmax(tmp_path):
    t = tensors(tmp_path, MASKED)
    from symattn.ops.primitives import finite
    after = sa.softmax(t["S"]) * finite(sa.causal_mask(3))
    d = _diagnosed(tmp_path, "A", ["b", 0], value(after, 1, 0, 4), MASKED)
    assert "mask applied after softmax (weights zeroed, not renormalised)" in d


LN = STEPS + '\n[[steps]]\nname = "H"\nexpr = "layer_norm(X + Z, eps=0.1)"\n'


@pytest.mark.parametrize("kw, label", [
    ({"variance": "unbiased"}, "LayerNorm with the unbiased variance (÷(d−1))"),
    ({"eps_inside": False}, "LayerNorm with eps outside the square root"),
])
def test_layer_norm_mistakes(tmp_path, kw, label):
    t = tensors(tmp_path, LN)
    bad = sa.layer_norm(t["X"] + t["Z"], eps="0.1", **kw)
    d = _diagnosed(tmp_path, "H", ["a", 0], value(bad, 0, 0, 4), LN)
    assert label in d


def test_layer_norm_without_eps(tmp_path):
    t = tensors(tmp_path, LN)
    bad = sa.layer_norm(t["X"] + t["Z"], eps=0)
    d = _diagnosed(tmp_path, "H", ["a", 0], value(bad, 0, 0, 4), LN)
    assert "LayerNorm without eps" in d


def test_truncation_instead_of_rounding(tmp_path):
    t = tensors(tmp_path)
    i, j, n = next((i, j, n) for n in (3, 4, 5) for i in range(3) for j in range(3)
                   if value(t["A"], i, j, n, "truncate") != value(t["A"], i, j, n))
    d = _diagnosed(tmp_path, "A", ["abc"[i], j], value(t["A"], i, j, n, "truncate"))
    assert "rounded with truncate instead of half-up" in d


def test_row_adjusted_to_sum_to_one(tmp_path):
    from decimal import Decimal
    t = tensors(tmp_path)
    i, n = next((i, n) for n in (2, 3, 4) for i in range(3)
                if sum(Decimal(value(t["A"], i, j, n)) for j in range(3)) != 1)
    vals = [Decimal(value(t["A"], i, j, n)) for j in range(2)]
    vals.append(1 - vals[0] - vals[1])
    recs = run(spec_file(tmp_path, claim("A", "abc"[i], "[" + ", ".join(map(str, vals)) + "]")))
    assert recs[2].verdict == "wrong"
    assert "last entry adjusted so the printed row sums to exactly 1" in recs[2].diagnosis


def test_digit_slip_swap_sign_and_neighbour(tmp_path):
    steps = '\n[[steps]]\nname = "M"\nexpr = "[[0.1234, 0.5678], [-0.25, 0.9]]"\n'
    cases = [([0, 0], "0.1284", "digit slip: 0.1284 for 0.1234"),
             ([0, 0], "0.1235", None),
             ([0, 0], "0.1243", "adjacent digits swapped: 0.1243 for 0.1234"),
             ([1, 0], "0.25", "minus sign dropped"),
             ([0, 1], "0.1234", "the value of the neighbouring cell [0, 0]")]
    for at, printed, label in cases:
        d = _diagnosed(tmp_path, "M", at, printed, steps)
        if label is None:          # one unit in the last place is no slip of the pen
            assert not any("digit" in x for x in d), d
        else:
            assert label in d, (printed, d)


def test_restated_wrong_number_points_at_its_first_print(tmp_path):
    steps = '\n[[steps]]\nname = "M"\nexpr = "[[0.1234, 0.5678]]"\n'
    body = claim("M", [0, 0], "0.1299", 3) + claim("M", [0, 0], "0.1299", 7)
    recs = run(spec_file(tmp_path, body, steps=steps))
    assert recs[1].verdict == "wrong"
    assert "restates the number printed at line 3" in recs[1].diagnosis


def test_positional_encoding_base(tmp_path):
    steps = '\n[[steps]]\nname = "PE"\nexpr = "positional_encoding(4, 4)"\n'
    wrong = sa.positional_encoding(4, 4, base=1000)
    d = _diagnosed(tmp_path, "PE", [3, 2], value(wrong, 3, 2, 4), steps)
    assert "positional encoding with base 1000 instead of 10000" in d
    wrong = sa.positional_encoding(4, 4, pair="i")
    d = _diagnosed(tmp_path, "PE", [3, 2], value(wrong, 3, 2, 4), steps)
    assert "positional encoding with exponent i/d instead of 2i/d" in d


def test_percent_and_trailing_zero(tmp_path):
    t = tensors(tmp_path)
    pct = value(t["A"], 0, 0, 1, scale=100)
    body = claim("A", ["a", 0], pct + "%") + claim("Q", ["a", 0], "1.04", extra="decimals = 4\n")
    recs = run(spec_file(tmp_path, body))
    assert [r.verdict for r in recs] == ["correct", "correct"]
    assert recs[0].exact.startswith(pct[:3])
    assert recs[1].expected == "1.0400"


def cli(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True,
                          text=True, timeout=300)


def test_cli_json_and_exit_codes(tmp_path):
    good = spec_file(tmp_path, claim("Q", "a", "[1.04, 0.54]"))
    p = cli("check", "--json", good)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["summary"] == {"examples": 1, "claims": 2, "correct": 2, "carried": 0, "consistent": 0,
                              "wrong": 0, "unverified": 0, "restated": 0}
    rec = out["claims"][0]
    assert set(rec) >= {"example", "source", "line", "step", "at", "printed", "exact",
                        "expected", "verdict", "diagnosis"}
    assert rec["at"] == ["a", "0"] and rec["printed"] == "1.04"
    bad = spec_file(tmp_path, claim("Q", "a", "[1.05, 0.54]"))
    p = cli("check", bad)
    assert p.returncode == 1 and "✗" in p.stdout and p.stdout.rstrip().endswith("1 wrong")


@pytest.mark.parametrize("body, message", [
    (claim("Nope", "a", "1"), "claim points at step 'Nope', which does not exist"),
    (claim("Q", "zz", "1"), "no row labelled 'zz'"),
    (claim("Q", "a", "[1, 2, 3]"), "printed has 1×3 entries but the step there is 1×2"),
    (claim("Q", "a", "[1.0x, 2]"), "'1.0x' is not a printed number"),
    ('\n[[steps]]\nname = "B"\nexpr = "B + 1"\n', "step 'B' refers to itself"),
    ('\n[[steps]]\nname = "B"\nexpr = "Q @ W_V @ X"\n', "matmul"),
    ('\n[[steps]]\nname = "B"\nexpr = "Q @ nothing"\n', "unknown name 'nothing'"),
    ('\n[[steps]]\nname = "B"\nexpr = "C + 1"\n[[steps]]\nname = "C"\nexpr = "B"\n',
     "uses 'C', which is defined after it"),
])
def test_bad_input_one_line_exit_2(tmp_path, body, message):
    p = cli("check", spec_file(tmp_path, body))
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], p.stderr
    assert "s.toml:" in lines[0] and "Traceback" not in p.stderr
