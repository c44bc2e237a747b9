"""Limits by resources (issue 16): real layers pass the estimate without being evaluated,
an absurd size is refused in one line with the estimate, before any work; large attention
goes row by row (never the whole T×T weights), with the values mpmath computes."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

import symattn as sa
from symattn.errors import DomainError, LimitError
from symattn.evaluation import base, rowwise, size
from symattn.evaluation.evaluator import Evaluator, start_precision
from symattn.ops import primitives as P

X = Fraction(1, 100)                     # one shared entry: building real shapes stays cheap


def m(rows: int, cols: int):
    return sa.matrix([[X] * cols] * rows)


def heads(d: int, h: int):
    return [sa.Head(m(d, d // h), m(d, d // h), m(d, d // h)) for _ in range(h)]


def transformer_base(T=128, d=512, h=8, d_ff=2048):
    p = sa.EncoderLayerParams(heads=heads(d, h), W_O=m(d, d),
                              ffn=sa.FFNParams(m(d, d_ff), m(1, d_ff), m(d_ff, d), m(1, d)))
    return sa.encoder_layer(m(T, d), p)["output"]


def gpt2_small_block(T=1024, d=768, h=12, d_ff=3072):
    """A pre-norm causal block of GPT-2 small's sizes (ReLU: symattn has no GELU yet)."""
    Xt = m(T, d)
    a = sa.multi_head(sa.layer_norm(Xt), sa.layer_norm(Xt), heads(d, h), m(d, d),
                      mask=sa.causal_mask(T))["output"]
    H = Xt + a
    return H + sa.ffn(sa.layer_norm(H), m(d, d_ff), m(1, d_ff), m(d_ff, d), m(1, d))


@pytest.fixture
def no_evaluation(monkeypatch):
    """Fail if anything is evaluated: the estimate must come from the shapes alone."""
    def refuse(*a, **k):
        raise AssertionError("evaluated")
    monkeypatch.setattr(base, "run", refuse)
    monkeypatch.setattr("symattn.evaluation.evaluator.run", refuse)


def test_real_layers_pass_by_default(no_evaluation):
    layer = transformer_base()
    gpt2 = gpt2_small_block()
    Z, _ = sa.attention(m(4096, 128), m(4096, 128), m(4096, 128), mask=sa.causal_mask(4096))
    for node in (layer, gpt2, Z):
        e = size.check_resources(node, digits=30)         # does not raise
        assert e.bytes < size.MEMORY_BYTES and e.seconds < size.SECONDS
    # a causal head holds less than one T×T matrix of balls: it goes row by row
    assert size.estimate(Z).bytes < 4096 * 4096 * size.entry_bytes(start_precision(digits=30))
    # the layer's largest matrix (W1, 512×2048) is far below the entry limit
    assert 512 * 2048 * 8 < P.MAX_ENTRIES


def test_estimate_counts_what_an_evaluation_holds():
    """Independently counted: a product's balls and operands, at the precision of 30 digits."""
    a, b = m(300, 200), m(200, 400)
    prod = a @ b
    per = size.entry_bytes(start_precision(digits=30))
    e = size.estimate(prod)
    entries = 300 * 200 + 200 * 400 + 300 * 400 + 300 * 400      # + the balls handed out
    assert e.bytes == entries * per
    assert e.seconds >= 300 * 400 * 200 * 18e-9                  # at least the multiply-adds


def test_absurd_sizes_are_refused_in_one_line_with_the_estimate(no_evaluation):
    x = sa.exp(m(1000, 1) @ m(1, 1000))
    with pytest.raises(LimitError) as err:
        sa.evaluate(x, digits=100_000)
    text = str(err.value)
    est = size.estimate(x, digits=100_000)
    assert "\n" not in text
    assert f"a 1000×1000 result at {est.prec} bits would need {est}" in text
    assert "GiB" in text and "MEMORY_BYTES" in text
    assert est.bytes > size.MEMORY_BYTES


def test_too_long_is_refused(monkeypatch, no_evaluation):
    monkeypatch.setattr(size, "SECONDS", 0.01)
    with pytest.raises(LimitError, match=r"would need about .* MiB and .* s \(this machine: .* and 0\.01 s per evaluation\)"):
        sa.evaluate(transformer_base(T=16, d=64, h=2, d_ff=256), digits=30)


def test_a_matrix_beyond_memory_is_refused_before_it_is_built():
    with pytest.raises(LimitError) as err:
        sa.causal_mask(100_000)
    assert f"a 100000×100000 matrix has more than {P.MAX_ENTRIES} entries" in str(err.value)
    assert "TiB a copy" in str(err.value)
    assert P.MAX_ENTRIES == size.MEMORY_BYTES // (size.COPIES * size.entry_bytes(139))


# -- row by row ----------------------------------------------------------------------------

def _mp_head(Q, K, V, add, scale):
    out = []
    for i, q in enumerate(Q):
        e = []
        for j, k in enumerate(K):
            a = add[i][j]
            if a is None:
                e.append(mpmath.mpf(0))
            else:
                e.append(mpmath.exp(mpmath.fsum(x * y for x, y in zip(q, k)) * scale + a))
        t = mpmath.fsum(e)
        out.append([mpmath.fsum(e[j] * V[j][c] for j in range(len(K))) / t for c in range(len(V[0]))])
    return out


def _rows(T, d, seed):
    import random
    rng = random.Random(seed)
    return [[Fraction(rng.randrange(-99, 100), 100) for _ in range(d)] for _ in range(T)]


@pytest.fixture
def rowwise_always(monkeypatch):
    monkeypatch.setattr(rowwise, "ROWWISE_MIN", 1)
    monkeypatch.setattr(rowwise, "BLOCK_ENTRIES", 50)     # blocks of a few rows


@pytest.mark.parametrize("kind", ["causal", "padding", "bias", "none", "row"])
def test_row_by_row_values_are_mpmath_values(kind, rowwise_always):
    mpmath.mp.dps = 50
    T, d = 12, 5
    Q, K, V = _rows(T, d, 1), _rows(T, d, 2), _rows(T, d, 3)
    keep = [1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1]
    bias = _rows(T, T, 4)
    if kind == "causal":
        mask, add = sa.causal_mask(T), [[0 if j <= i else None for j in range(T)] for i in range(T)]
    elif kind == "padding":
        mask, add = sa.padding_mask(keep, T), [[0 if k else None for k in keep] for _ in range(T)]
    elif kind == "row":
        mask, add = sa.padding_mask(keep, 1), [[0 if k else None for k in keep] for _ in range(T)]
    elif kind == "bias":                                   # additive values and −∞ anywhere
        cells = [[b if (i + j) % 5 else sa.NEG_INF for j, b in enumerate(r)] for i, r in enumerate(bias)]
        mask = sa.matrix(cells)
        add = [[None if c is sa.NEG_INF else mpmath.mpf(c.numerator) / c.denominator for c in r]
               for r in cells]
    else:
        mask, add = None, [[0] * T for _ in range(T)]
    Z, A = sa.attention(sa.matrix(Q), sa.matrix(K), sa.matrix(V), mask=mask)
    ev = Evaluator()
    got = ev.ball(Z, start_precision(digits=30))
    mp = lambda rows: [[mpmath.mpf(x.numerator) / x.denominator for x in r] for r in rows]  # noqa: E731
    want = _mp_head(mp(Q), mp(K), mp(V), add, 1 / mpmath.sqrt(d))
    for i in range(T):
        for j in range(d):
            b = got[i][j]
            assert b.rad() < 1e-28 and abs(mpmath.mpf(b.mid().str(45, radius=False)) - want[i][j]) < 1e-28
    memo = ev._ball_memos[start_precision(digits=30)]
    assert id(A) not in memo and id(Z) in memo             # the T×T weights were never held


def test_row_by_row_fully_masked_row_is_the_same_error(rowwise_always, monkeypatch):
    T = 4
    Qm = sa.matrix(_rows(T, 3, 1))
    mask = sa.matrix([[0, 0, 0, 0]] * 3 + [[sa.NEG_INF] * 4])
    Z, _ = sa.attention(Qm, Qm, Qm, mask=mask)
    with pytest.raises(DomainError) as fused:
        sa.evaluate(Z, digits=10)
    monkeypatch.setattr(rowwise, "ROWWISE_MIN", 10 ** 9)
    Z, _ = sa.attention(Qm, Qm, Qm, mask=mask)
    with pytest.raises(DomainError) as whole:
        sa.evaluate(Z, digits=10)
    assert str(fused.value) == str(whole.value)
