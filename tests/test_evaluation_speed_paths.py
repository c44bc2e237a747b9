"""The fast paths of evaluation agree with the exact context (no timing here: see
benchmarks/run.py).

- exact rationals inside the ball context (``fmpq``, ``fmpq_mat`` products);
- rounding from Arb's decimal enclosure in integer arithmetic;
- exact zeros proven without SymPy (rational functions of the transcendental values);
- the NumPy path's cache of converted constants.

The truth is computed without symattn's rounding code (tests/decimal_truth.py): the
decimal module rounds the exact context's rationals exactly and its irrational values from
mpmath at high precision,
and the fast paths are checked against the decimal module's rounding of each ball's exact
ends, over random balls and adversarial ones (exact decimal ties, values a hair off a tie).
"""

from fractions import Fraction
import random

import pytest
import sympy

import symattn as sa
from symattn.errors import DomainError, MaskError, InputError
from symattn.evaluation.ball import precision
from symattn.evaluation.evaluator import (Evaluator, start_precision,
                                          _round_significant_fast, _round_decimal_enclosure,
                                          round_entry, _UNDECIDED)
from symattn.tensor import NEG_INF

from decimal_truth import ball_ends, decimal_round, mpmath_round, truth

MODES = ("half-up", "half-even", "truncate")


def reference(t, i, j, *, digits=None, decimals=None, mode="half-even", scale=1):
    """Entry (i, j) of ``t`` × ``scale`` rounded independently of the ball context and of
    symattn's rounding code: the exact context's value, rounded by the decimal module
    (exactly for a rational, from mpmath at high precision otherwise); None for −∞."""
    v = Evaluator().exact(t)[i][j]
    if v is NEG_INF:
        return None
    v = v * scale
    if v.is_Rational:
        return decimal_round(Fraction(int(v.p), int(v.q)), digits=digits, decimals=decimals,
                             mode=mode)
    return mpmath_round(v, digits=digits, decimals=decimals, mode=mode)


def test_the_decimal_truth_itself():
    """The reference on values whose rounding is known by hand."""
    cases = [
        (Fraction(5, 8), {"decimals": 2, "mode": "half-up"}, "0.63", True),
        (Fraction(5, 8), {"decimals": 2, "mode": "half-even"}, "0.62", True),
        (Fraction(-5, 8), {"decimals": 2, "mode": "truncate"}, "-0.62", True),
        (Fraction(-5, 8), {"decimals": 2, "mode": "half-up"}, "-0.63", True),
        (Fraction(9995, 1000), {"digits": 3, "mode": "half-up"}, "10.0", True),
        (Fraction(9995, 1000), {"digits": 3, "mode": "half-even"}, "10.0", True),
        (Fraction(9985, 1000), {"digits": 3, "mode": "half-even"}, "9.98", True),
        (Fraction(1, 3), {"digits": 5}, "0.33333", False),
        (Fraction(2, 3), {"decimals": 0, "mode": "half-up"}, "1", False),
        (Fraction(12345), {"digits": 3, "mode": "half-up"}, "12300", False),
        (Fraction(5, 2), {"digits": 5}, "2.5000", False),
        (Fraction(-1, 1000), {"decimals": 2, "mode": "truncate"}, "0.00", False),
        (Fraction(10**30 + 1, 2 * 10**30), {"decimals": 30, "mode": "half-even"},
         "0.5" + "0" * 29, True),                            # 0.5 + 5e-31: a tie, to even
        (Fraction(10**30 + 1, 2 * 10**30), {"decimals": 30, "mode": "half-up"},
         "0.5" + "0" * 28 + "1", True),
    ]
    for q, kw, text, tie in cases:
        got = decimal_round(q, **kw)
        assert (str(got), got.tie) == (text, tie), (q, kw)
    # 0.1250000...01 rounds up, not to even: the sticky digit keeps it off the tie
    assert str(decimal_round(Fraction(1, 8) + Fraction(1, 10**60), decimals=2)) == "0.13"
    assert str(decimal_round(Fraction(1, 8) - Fraction(1, 10**60), decimals=2,
                             mode="half-up")) == "0.12"
    assert str(mpmath_round(sympy.sqrt(2), digits=20)) == "1.4142135623730950488"
    assert str(mpmath_round(sympy.exp(1), decimals=10, mode="truncate")) == "2.7182818284"
    assert str(mpmath_round(-sympy.pi, digits=3, mode="half-up")) == "-3.14"


def all_entries(t, **kw):
    ev = Evaluator()
    got = [[ev.rounded(t, i, j, **kw) for j in range(t.shape[1])] for i in range(t.shape[0])]
    want = [[reference(t, i, j, **kw) for j in range(t.shape[1])] for i in range(t.shape[0])]
    return got, want


def rand_matrix(rng, m, n, span=99):
    return sa.matrix([[Fraction(rng.randint(-span, span), 100) for _ in range(n)] for _ in range(m)])


# -- the graphs of the articles, against the exact context --------------------------------

@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mode", MODES)
def test_masked_attention_matches_exact(seed, mode):
    rng = random.Random(seed)
    T, d = 3, 2
    Q, K, V = rand_matrix(rng, T, d), rand_matrix(rng, T, d), rand_matrix(rng, T, d)
    st = sa.attention_steps(Q, K, V, mask=sa.causal_mask(T))
    for name in ("raw_scores", "scores", "masked_scores", "weights", "output"):
        for kw in ({"digits": 20}, {"decimals": 6}, {"digits": 3}):
            got, want = all_entries(st[name], mode=mode, **kw)
            assert got == want, (name, kw)


@pytest.mark.parametrize("seed", range(3))
def test_encoder_layer_matches_exact(seed):
    rng = random.Random(100 + seed)
    T, d = 2, 2
    X = rand_matrix(rng, T, d)
    heads = [sa.Head(rand_matrix(rng, d, 1), rand_matrix(rng, d, 1), rand_matrix(rng, d, 1))
             for _ in range(2)]
    p = sa.EncoderLayerParams(heads=heads, W_O=rand_matrix(rng, d, d),
                              ffn=sa.FFNParams(rand_matrix(rng, d, 4), rand_matrix(rng, 1, 4),
                                               rand_matrix(rng, 4, d), rand_matrix(rng, 1, d)))
    st = sa.encoder_layer(X, p)
    for t in (st["residual1"], st["norm1"]["output"], st["ffn"]["hidden"],
              st["ffn"]["activated"], st["output"]):
        got, want = all_entries(t, digits=15)
        assert got == want


def test_rational_steps_stay_exact_and_ties_are_flagged():
    X = sa.matrix([["0.25", "0.75"], ["1", "1"]])
    W = sa.matrix([["0.5", "0"], ["0", "0.5"]])
    Y = X @ W                                   # 0.125, 0.375 ...: exact ties at 2 decimals
    ev = Evaluator()
    raw = ev._ball_raw(Y, start_precision(decimals=2))
    assert all(type(x).__name__ == "fmpq" for row in raw for x in row)
    r = ev.rounded(Y, 0, 0, decimals=2, mode="half-even")
    assert str(r) == "0.12" and r.tie
    assert str(ev.rounded(Y, 0, 0, decimals=2, mode="half-up")) == "0.13"
    assert ev.rounded(Y, 0, 0, decimals=2, mode="half-up") == reference(Y, 0, 0, decimals=2,
                                                                        mode="half-up")
    # the public view is balls, as before
    b = ev.ball(Y, 64)
    assert all(type(x).__name__ == "arb" for row in b for x in row)


def test_sqrt_of_a_perfect_square_stays_rational():
    from flint import fmpq
    s = sa.scores(sa.matrix([["1", "2", "3", "4"]]), sa.matrix([["1", "0", "0", "1"]]))
    raw = Evaluator()._ball_raw(s, 64)                 # (1 + 4) / sqrt(4)
    assert type(raw[0][0]) is fmpq and raw[0][0] == fmpq(5, 2)
    assert sa.evaluate(s, digits=5) == [["2.5000"]]


def test_exact_zero_by_rational_cancellation():
    X = sa.matrix([["0.1", "0.1", "0.1"]])
    dev = X - sa.mean(X)
    assert sa.evaluate(dev, digits=10) == [["0", "0", "0"]]


def test_division_by_an_exact_zero_is_a_domain_error_like_the_exact_context():
    X = sa.matrix([["0.3", "0.3"]])
    t = sa.layer_norm(X, eps=0)
    with pytest.raises(DomainError):
        Evaluator().ball(t, 64)
    with pytest.raises(DomainError):
        Evaluator().exact(t)


def test_masks_keep_their_semantics():
    S = sa.matrix([["1", "2"], ["3", "4"]])
    full = sa.matrix([[0, NEG_INF], [NEG_INF, NEG_INF]])
    with pytest.raises(DomainError):
        sa.evaluate(sa.softmax(S + full), digits=5)
    half = sa.softmax(S + sa.causal_mask(2))
    assert sa.evaluate(half, digits=5)[0] == ["1.0000", "0"]
    assert sa.evaluate(S + sa.causal_mask(2), digits=3)[0] == ["1.00", "-inf"]
    with pytest.raises(MaskError):
        sa.evaluate(S - sa.causal_mask(2), digits=3)
    with pytest.raises(MaskError):
        sa.evaluate((S + sa.causal_mask(2)) @ S, digits=3)
    with pytest.raises(MaskError):
        sa.evaluate((S + sa.causal_mask(2)) * sa.matrix([["-1"]]), digits=3)
    assert sa.evaluate((S + sa.causal_mask(2)) * sa.matrix([["2"]]), digits=3)[0] == ["2.00", "-inf"]


def test_relu_log_exp_sin_cos_of_exact_values():
    x = sa.matrix([["-1", "0", "1/2"]])
    assert sa.evaluate(sa.relu(x), digits=4) == [["0", "0", "0.5000"]]
    assert sa.evaluate(sa.exp(x - x), digits=4) == [["1.000", "1.000", "1.000"]]
    assert sa.evaluate(sa.log(sa.matrix([["1"]])), digits=4) == [["0"]]
    for t in (sa.exp(x), sa.sin(x), sa.cos(x), sa.sqrt(sa.relu(x)), x ** 3, x ** Fraction(1, 1)):
        got, want = all_entries(t, digits=25)
        assert got == want


def test_tall_rationals_become_balls_and_stay_right():
    from symattn.evaluation import ball as B
    x = sa.matrix([["1/3", "7/11"]])
    t = x ** 3000                                    # far past MAX_RATIONAL_BITS
    raw = Evaluator()._ball_raw(t, 128)
    assert type(raw[0][0]).__name__ == "arb"
    got, want = all_entries(t, digits=12)
    assert got == want
    y = x
    for _ in range(14):                              # heights double at every product
        y = y * y
    raw = Evaluator()._ball_raw(y, 128)
    assert all(type(v).__name__ == "arb" or v.height_bits() <= B.MAX_RATIONAL_BITS
               for v in raw[0])


def test_symbols_are_still_refused_by_the_ball_context():
    t = sa.symbols("t", 1) * sa.matrix([["2"]])
    with pytest.raises(InputError):
        sa.evaluate(t, digits=5)


# -- rounding from the decimal enclosure ----------------------------------------------------

def _tie(rng, digits: int):
    """A decimal exactly halfway at the ``digits``-th significant digit, at a random scale."""
    from flint import fmpq
    k = rng.randrange(10 ** (digits - 1), 10 ** digits)
    scale = rng.randrange(-8, 9)
    q = fmpq(2 * k + 1, 2)                         # k.5: halfway after `digits` digits
    return q * (fmpq(10) ** scale if scale >= 0 else fmpq(1, 10 ** -scale)) / 10 ** (digits - 1)


def _random_balls(rng, n=500):
    """Balls at 300 bits: random values, values near a rounding boundary or a power of ten,
    exact decimal ties (which a binary ball can only enclose), values a hair off a tie, and
    exact binary ties (0.125, 2.5: the ball is a point, a true tie)."""
    from flint import arb, fmpq
    out = []
    for _ in range(n):
        kind = rng.randrange(8)
        rad = fmpq(rng.randrange(0, 1000), 10 ** rng.randrange(0, 60))
        if kind == 0:                              # near a rounding boundary
            k = rng.randrange(1, 10 ** 6)
            mid = fmpq(2 * k + 1, 2 * 10 ** rng.randrange(0, 9))
        elif kind == 1:                            # near a power of ten
            e = rng.randrange(-5, 6)
            p10 = fmpq(10 ** e) if e >= 0 else fmpq(1, 10 ** -e)
            mid = p10 * (1 - fmpq(1, 10 ** rng.randrange(3, 30)))
        elif kind == 2:                            # a decimal tie at 1, 3, 15 or 50 digits
            mid, rad = _tie(rng, rng.choice((1, 3, 15, 50))), fmpq(0)
        elif kind == 3:                            # a hair off such a tie, either side
            off = fmpq(rng.choice((-1, 1)), 10 ** rng.randrange(5, 85))
            mid = _tie(rng, rng.choice((1, 3, 15, 50))) * (1 + off)
            rad = abs(off) * fmpq(rng.choice((0, 1, 10)), 10 ** rng.randrange(0, 3)) / 10
        elif kind == 4:                            # an exact binary tie: a point ball
            mid, rad = fmpq(rng.randrange(1, 10 ** 4) * 2 + 1, 2 ** rng.randrange(1, 12)), fmpq(0)
        elif kind == 5:                            # a transcendental value of modest size
            out.append(arb(fmpq(rng.randrange(-3000, 3000), 100)).exp())
            continue
        else:
            mid = fmpq(rng.randrange(-10 ** 30, 10 ** 30), 10 ** rng.randrange(0, 40))
        if rng.random() < 0.5:
            mid = -mid
        out.append(arb(mid, rad))
    return out


@pytest.mark.parametrize("mode", MODES)
def test_significant_fast_path_agrees_with_the_decimal_module(mode):
    rng = random.Random(7)
    decided = apart = ties = 0
    with precision(300):
        for x in _random_balls(rng):
            lo, hi = ball_ends(x)
            for digits in (1, 3, 15, 50):
                want = truth(lo, hi, digits=digits, mode=mode)
                fast = _round_significant_fast(x, digits, mode)
                if fast is not None:
                    decided += 1
                    assert want is not None and fast == want, (x, digits)
                general = round_entry(x, None, digits, mode, 1)
                if want is None:
                    apart += 1
                    assert general is _UNDECIDED, (x, digits)
                else:
                    ties += want.tie
                    assert want == general, (x, digits)
    assert decided > 800 and apart > 150 and ties > 10, (decided, apart, ties)


def test_a_point_ball_at_a_tie_is_flagged_as_a_tie():
    from flint import arb
    with precision(300):
        x = arb(350000)
        assert truth(*ball_ends(x), digits=1, mode="half-up").tie
        assert round_entry(x, None, 1, "half-up", 1).tie


@pytest.mark.parametrize("mode", MODES)
def test_decimal_fast_path_agrees_with_the_decimal_module(mode):
    rng = random.Random(8)
    decided = apart = 0
    with precision(300):
        for x in _random_balls(rng):
            lo, hi = ball_ends(x)
            for decimals in (0, 2, 4, 12):
                for scale in (1, 100):
                    want = truth(lo * scale, hi * scale, decimals=decimals, mode=mode)
                    fast = _round_decimal_enclosure(x, scale, decimals, None, mode)
                    if fast is not None:
                        decided += 1
                        assert want is not None and fast == want, (x, decimals, scale)
                    got = round_entry(x, decimals, None, mode, scale)
                    if want is None:
                        apart += 1
                        assert got is _UNDECIDED, (x, decimals, scale)
                    else:
                        assert got == want, (x, decimals, scale)
    assert decided > 1500 and apart > 50, (decided, apart)


def test_a_ball_across_a_tie_is_never_rounded():
    """A decimal tie that binary cannot hold: every ball around it is refused, at any
    precision, by the fast paths and the general one alike."""
    from flint import arb, fmpq
    for prec in (64, 300, 3000):
        with precision(prec):
            for tie, digits in ((fmpq(35, 100), 1), (fmpq(1235, 1000), 3), (fmpq(-45, 100), 1),
                                (fmpq(10**15 * 2 + 1, 2 * 10**15), 16)):
                x = arb(tie)
                lo, hi = ball_ends(x)
                assert lo < Fraction(int(tie.p), int(tie.q)) < hi
                for mode in ("half-up", "half-even"):
                    assert _round_significant_fast(x, digits, mode) is None
                    assert round_entry(x, None, digits, mode, 1) is _UNDECIDED


def test_rounded_matrix_is_rounded_per_entry():
    rng = random.Random(3)
    Q, K, V = rand_matrix(rng, 4, 4), rand_matrix(rng, 4, 4), rand_matrix(rng, 4, 4)
    Z, A = sa.attention(Q, K, V, mask=sa.causal_mask(4))
    for t in (Z, A):
        for kw in ({"digits": 30, "mode": "half-even"}, {"decimals": 5, "mode": "half-up"}):
            ev = Evaluator()
            whole = ev.rounded_matrix(t, **kw)
            each = [[Evaluator().rounded(t, i, j, **kw) for j in range(4)] for i in range(4)]
            assert whole == each


# -- exact zeros without SymPy --------------------------------------------------------------

def test_layer_norm_row_sums_to_an_exact_zero_proven_formally():
    """The sum of LayerNorm's outputs over a row is exactly 0, though every entry is a
    closed form in exp and sqrt: proven without simplify (article 003, ch. 6)."""
    S = sa.matrix([["0.5", "1"], ["1", "0.25"]])
    W = sa.softmax(S / sa.sqrt(sa.matrix([["2"]])))
    N = sa.layer_norm(W)
    total = N @ sa.matrix([["1"], ["1"]])
    ev = Evaluator()
    assert [[str(ev.rounded(total, i, 0, digits=20, mode="half-even"))] for i in range(2)] == \
        [["0"], ["0"]]
    assert ev.proven_zero(total, 0, 0, start_precision(digits=20))
    assert ev._exact_memo == {}                   # the exact context was never needed
    assert sympy.simplify(Evaluator().exact(total)[0][0]) == 0


def test_tiny_nonzero_is_not_mistaken_for_zero():
    x = sa.matrix([["1/1000000000000000000000000000000000000000"]])   # 1e-39
    t = sa.exp(x) - sa.matrix([["1"]])                                   # about 1e-39, not 0
    r = Evaluator().rounded(t, 0, 0, digits=10, mode="half-even")
    assert str(r) == str(reference(t, 0, 0, digits=10, mode="half-even"))
    assert r.units != 0
    ev = Evaluator()
    ev._ball_raw(t, 106)
    assert not ev.proven_zero(t, 0, 0, 106)


def test_formal_proof_gives_up_on_large_graphs_and_keeps_the_ladder():
    from symattn.evaluation import formal as E
    S = sa.matrix([["0.5", "1"], ["1", "0.25"]])
    N = sa.layer_norm(sa.softmax(S))
    total = N @ sa.matrix([["1"], ["1"]])
    old = E.FORMAL_MAX_ATOMS
    E.FORMAL_MAX_ATOMS = 1
    try:
        ev = Evaluator()
        assert str(ev.rounded(total, 0, 0, digits=8, mode="half-even")) == "0"   # via SymPy
        assert ev._exact_memo                   # the exact fallback did the work
    finally:
        E.FORMAL_MAX_ATOMS = old


# -- the NumPy path -----------------------------------------------------------------------

def test_float_constants_are_converted_once_and_stay_intact():
    import numpy as np
    W = sa.matrix([["0.1", "0.2"], ["0.3", "0.4"]])
    X = sa.matrix([["1", "2"]])
    a = Evaluator().float(W)
    a[0, 0] = 99.0                                # the caller's copy
    b = Evaluator().float(W)
    assert b[0, 0] == 0.1 and b.flags.writeable
    y = Evaluator().float(X @ W)
    assert np.allclose(y, [[0.7, 1.0]])
    assert Evaluator().float(W.T)[1, 0] == 0.2
    with pytest.raises(MaskError):
        Evaluator().float(sa.causal_mask(2) @ W)
    f32 = Evaluator().float(W, "float32")
    assert f32.dtype == np.float32 and f32[0, 1] == np.float32(0.2)


def test_a_thousand_digits_match_the_closed_form():
    rng = random.Random(11)
    Q, K, V = rand_matrix(rng, 2, 2), rand_matrix(rng, 2, 2), rand_matrix(rng, 2, 2)
    Z, A = sa.attention(Q, K, V, mask=sa.causal_mask(2))
    got = sa.evaluate(Z, digits=1000)
    for i in range(2):
        for j in range(2):
            assert got[i][j] == str(reference(Z, i, j, digits=1000, mode="half-even"))


def test_fused_products_of_one_matrix_by_several_constants():
    import numpy as np
    rng = random.Random(5)
    X = rand_matrix(rng, 3, 4)
    Ws = [rand_matrix(rng, 4, 2) for _ in range(3)]
    outs = [X @ w for w in Ws]
    both = sa.concat(outs)
    got = Evaluator().float(both)
    Xf = Evaluator().float(X)
    want = np.hstack([Xf @ Evaluator().float(w) for w in Ws])
    assert np.allclose(got, want, rtol=0, atol=1e-15)
    # a constant with −∞ among them is not fused: the others still evaluate
    M = sa.matrix([[0, NEG_INF], [0, 0], [0, 0], [0, 0]])
    bad = X @ M
    ok = X @ Ws[0]
    assert np.allclose(Evaluator().float(sa.concat([ok, ok])), np.hstack([want[:, :2]] * 2))
    ev = Evaluator()
    with pytest.raises(MaskError):
        ev.float(sa.concat([ok, bad]))
    assert np.allclose(Evaluator().float(ok + X @ Ws[1]), want[:, :2] + want[:, 2:4])
    # the certified values agree with the fused float path
    got50 = sa.evaluate(both, digits=17)
    assert np.allclose(np.array([[float(v) for v in r] for r in got50]), got, rtol=1e-15)
