"""The float oracle (issue 16): ``sa.compare(node, reference)`` and ``symattn compare``.

Truths are computed independently: the exact values by mpmath at 60 digits from the same
decimal inputs (attention, softmax, LayerNorm written out here), and for whole
``nn.TransformerEncoderLayer``s by PyTorch in float64 (its own error, ~1e-16, is far
below the float32/bfloat16 errors it checks). Small sizes only; real sizes are in
``benchmarks/run.py --real-size``.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import symattn as sa
from symattn.cli import main
from symattn.errors import InputError, ShapeError

mpmath.mp.dps = 60

Q = [["0.3", "-1.2", "0.5"], ["2", "0.25", "-0.75"], ["0.1", "0.9", "-0.4"], ["1.5", "-0.5", "0.2"]]
K = [["1.1", "0.2", "-0.3"], ["-0.6", "0.4", "0.8"], ["0.05", "-1.0", "0.6"], ["0.7", "0.7", "0.7"]]
V = [["0.5", "-0.25", "1"], ["2", "0", "-1.5"], ["-0.3", "0.6", "0.9"], ["1.2", "-0.8", "0.4"]]


def mp(rows):
    return [[mpmath.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in r] for r in rows]


def mp_attention(q, k, v, causal):
    d = len(q[0])
    out = []
    for i, qi in enumerate(q):
        s = [mpmath.fsum(a * b for a, b in zip(qi, kj)) / mpmath.sqrt(d) for kj in k]
        e = [mpmath.exp(x) if (j <= i or not causal) else mpmath.mpf(0) for j, x in enumerate(s)]
        t = mpmath.fsum(e)
        out.append([mpmath.fsum(e[j] * v[j][c] for j in range(len(k))) / t for c in range(len(v[0]))])
    return out


def mp_layer_norm(rows, eps=Fraction(1, 100000)):
    out = []
    for r in rows:
        mu = mpmath.fsum(r) / len(r)
        var = mpmath.fsum((x - mu) ** 2 for x in r) / len(r)
        out.append([(x - mu) / mpmath.sqrt(var + mpmath.mpf(eps.numerator) / eps.denominator)
                    for x in r])
    return out


def errors(exact, ref):
    """|ref − exact| and |ref − exact| / |exact| per entry, by mpmath."""
    a = [[abs(mpmath.mpf(float(ref[i][j])) - x) for j, x in enumerate(r)] for i, r in enumerate(exact)]
    rel = [[a[i][j] / abs(x) for j, x in enumerate(r)] for i, r in enumerate(exact)]
    return a, rel


def f64(rows, dtype):
    return np.array([[float(Fraction(x)) for x in r] for r in rows], dtype=dtype)


def np_attention(q, k, v, causal):
    s = q @ k.T / np.sqrt(np.asarray(q.shape[1], dtype=q.dtype))
    if causal:
        s = np.where(np.tri(len(q), len(k), dtype=bool), s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ v


def assert_close(got, want, rel=1e-9):
    """Each oracle figure against mpmath's: equal to ~9 digits (both are right to far more);
    an error that is exactly 0 may be bounded by the ball's radius (values are of order 1,
    their balls right to 30 digits)."""
    for i, r in enumerate(want):
        for j, w in enumerate(r):
            assert abs(got[i, j] - float(w)) <= rel * float(w) + 1e-28, (i, j, got[i, j], w)


@pytest.mark.parametrize("dtype,eps", [(np.float32, 2.0 ** -23), (np.float16, 2.0 ** -10),
                                       (np.float64, 2.0 ** -52)])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_errors_are_mpmath_errors(dtype, eps, causal):
    Z, _ = sa.attention(sa.matrix(Q), sa.matrix(K), sa.matrix(V),
                        mask=sa.causal_mask(4) if causal else None)
    ref = np_attention(f64(Q, dtype), f64(K, dtype), f64(V, dtype), causal).astype(dtype)
    exact = mp_attention(mp(Q), mp(K), mp(V), causal)
    a, rel = errors(exact, ref.astype(np.float64))
    c = sa.compare(Z, ref)
    assert c.dtype == np.dtype(dtype).name and c.eps == eps
    assert_close(c.abs_err, a)
    assert_close(c.rel_err, rel)
    want_digits = [[-mpmath.log10(x) if x else mpmath.inf for x in r] for r in rel]
    for i, r in enumerate(want_digits):
        for j, w in enumerate(r):
            if w == mpmath.inf:                          # exact: at least the ball's digits
                assert c.digits[i, j] >= 28
            else:
                assert c.digits[i, j] == pytest.approx(max(float(w), 0.0), rel=1e-9)
    s = c.summary()
    flat = [x for r in rel for x in r]
    assert s["max_eps"] == pytest.approx(float(max(flat)) / eps, rel=1e-9)
    assert s["mean_eps"] == pytest.approx(float(mpmath.fsum(flat) / len(flat)) / eps, rel=1e-9)
    assert s["min_digits"] == pytest.approx(float(-mpmath.log10(max(flat))), rel=1e-9)
    # the worst entries, in order, are mpmath's largest relative errors
    order = sorted(((x, i, j) for i, r in enumerate(rel) for j, x in enumerate(r)), reverse=True)
    got = [(w["row"], w["col"]) for w in c.worst(3)]
    assert got == [(i, j) for _, i, j in order[:3]]


def test_layer_norm_float16_and_exact_strings():
    X = [["0.3", "-1.2", "0.5", "0.8"], ["2", "0.25", "-0.75", "1"]]
    node = sa.layer_norm(sa.matrix(X))
    x16 = f64(X, np.float16).astype(np.float32)
    mu = x16.mean(axis=1, keepdims=True)
    ref = ((x16 - mu) / np.sqrt(((x16 - mu) ** 2).mean(axis=1, keepdims=True) + 1e-5)).astype(np.float16)
    exact = mp_layer_norm(mp(X))
    a, rel = errors(exact, ref)
    c = sa.compare(node, ref)
    assert c.dtype == "float16"
    assert_close(c.abs_err, a)
    w = c.worst(1)[0]
    i, j = w["row"], w["col"]
    assert w["exact"] == mpmath.nstr(exact[i][j], 20, strip_zeros=False)   # certified digits


def test_reference_as_the_float_path_name_still_works():
    rows = [["0.3", "-1.2", "0.5"], ["2", "0.25", "-0.75"]]
    X = sa.matrix(rows)
    node = sa.layer_norm(X @ X.T)
    x = mp(rows)
    exact = mp_layer_norm([[mpmath.fsum(a * b for a, b in zip(r, t)) for t in x] for r in x])
    a, _ = errors(exact, sa.float_value(node, "float32"))
    c = sa.compare(node, "float32")
    assert c.dtype == "float32"
    assert_close(c.abs_err, a)
    assert c.max_abs_err() == pytest.approx(float(max(v for r in a for v in r)), rel=1e-9)


def test_nan_and_inf_are_reported_per_entry():
    Z, _ = sa.attention(sa.matrix(Q), sa.matrix(K), sa.matrix(V))
    ref = np_attention(f64(Q, np.float64), f64(K, np.float64), f64(V, np.float64), False)
    ref[1, 2] = np.nan
    ref[3, 0] = np.inf
    ref[0, 1] = -np.inf
    c = sa.compare(Z, ref)
    bad = {(b["row"], b["col"]): b["status"] for b in c.nonfinite()}
    assert bad == {(1, 2): "nan", (3, 0): "inf", (0, 1): "-inf"}
    assert c.summary()["nonfinite"] == 3 and c.summary()["compared"] == 9
    assert math.isfinite(c.summary()["max_abs_err"]) and c.summary()["max_abs_err"] < 1e-15
    assert "not finite in the reference: 3 entries" in c.text()
    json.dumps(c.to_json())                                 # no NaN leaks into JSON


def test_masked_scores_match_minus_infinity():
    S = sa.scores(sa.matrix(Q), sa.matrix(K)) + sa.causal_mask(4)
    s = f64(Q, np.float64) @ f64(K, np.float64).T / np.sqrt(3.0)
    s = np.where(np.tri(4, dtype=bool), s, -np.inf)
    c = sa.compare(S, s)
    assert c.summary()["masked"] == 6 and c.summary()["nonfinite"] == 0
    s[0, 0] = np.nan
    s[0, 3] = 0.0                                           # finite where it must be −∞
    c = sa.compare(S, s)
    assert {(b["row"], b["col"]): b["status"] for b in c.nonfinite()} == {(0, 0): "nan", (0, 3): "not -inf"}


@pytest.mark.parametrize("bad,error,text", [
    (np.zeros((3, 4)), ShapeError, "the reference is 3×4 (float64) but the computation is 4×3"),
    (np.zeros((4, 3), dtype=np.int64), InputError, "NumPy array of int64"),
    (np.zeros((4, 3), dtype=np.complex128), InputError, "NumPy array of complex128"),
    ([[0.0] * 3] * 4, InputError, "the reference is a list"),
    ("float16", InputError, "'float16' is not symattn's float path"),
])
def test_bad_references_are_one_line(bad, error, text):
    Z, _ = sa.attention(sa.matrix(Q), sa.matrix(K), sa.matrix(V))
    with pytest.raises(error) as e:
        sa.compare(Z, bad)
    assert text in str(e.value) and "\n" not in str(e.value)


def test_leading_unit_dimensions_and_vectors():
    Z, _ = sa.attention(sa.matrix(Q), sa.matrix(K), sa.matrix(V))
    ref = np_attention(f64(Q, np.float64), f64(K, np.float64), f64(V, np.float64), False)
    assert sa.compare(Z, ref[None, None]).summary()["compared"] == 12
    row = sa.matrix([["0.5", "0.25"]])
    assert sa.compare(row, np.array([0.5, 0.25])).summary()["exact"] == 2


# -- PyTorch: scaled_dot_product_attention and nn.TransformerEncoderLayer -------------------

def _torch():
    return pytest.importorskip("torch")


@pytest.mark.torch
@pytest.mark.parametrize("dtype_name", ["float32", "bfloat16", "float16"])
def test_torch_sdpa_against_mpmath(dtype_name):
    torch = _torch()
    dtype = getattr(torch, dtype_name)
    q, k, v = (torch.tensor([[float(Fraction(x)) for x in r] for r in M], dtype=dtype)[None]
               for M in (Q, K, V))
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    Z, _ = sa.attention(sa.matrix(Q), sa.matrix(K), sa.matrix(V), mask=sa.causal_mask(4))
    c = sa.compare(Z, out)
    assert c.dtype == dtype_name and c.values.shape == (4, 3)
    exact = mp_attention(mp(Q), mp(K), mp(V), True)
    a, rel = errors(exact, out[0].to(torch.float64).numpy())
    assert_close(c.abs_err, a)
    assert_close(c.rel_err, rel)


def _encoder(torch, dtype):
    """A 2-head post-norm TransformerEncoderLayer (d=4, d_ff=8) with decimal weights, and
    the same layer in symattn."""
    rng = np.random.default_rng(16)
    d, h, dff = 4, 2, 8
    dec = lambda m, n: [[f"{x:.2f}" for x in r] for r in rng.uniform(-0.9, 0.9, (m, n))]  # noqa: E731
    X, WQ, WK, WV, WO = dec(3, d), dec(d, d), dec(d, d), dec(d, d), dec(d, d)
    W1, b1, W2, b2 = dec(d, dff), dec(1, dff), dec(dff, d), dec(1, d)
    cols = lambda W, k: sa.matrix([r[k * 2:k * 2 + 2] for r in W])  # noqa: E731 (torch's head split)
    heads = [sa.Head(cols(WQ, k), cols(WK, k), cols(WV, k)) for k in range(h)]
    p = sa.EncoderLayerParams(heads=heads, W_O=sa.matrix(WO),
                              ffn=sa.FFNParams(sa.matrix(W1), sa.matrix(b1), sa.matrix(W2), sa.matrix(b2)),
                              eps=Fraction(1, 100000))
    node = sa.encoder_layer(sa.matrix(X), p)["output"]
    t = lambda rows: torch.tensor([[float(Fraction(x)) for x in r] for r in rows], dtype=torch.float64)  # noqa: E731
    layers = {}
    for name, dt in (("ref", torch.float64), ("test", dtype)):
        layer = torch.nn.TransformerEncoderLayer(d, h, dim_feedforward=dff, dropout=0.0, batch_first=True,
                                                 layer_norm_eps=1e-5, dtype=torch.float64)
        with torch.no_grad():
            layer.self_attn.in_proj_weight.copy_(torch.cat([t(WQ).T, t(WK).T, t(WV).T]))
            layer.self_attn.in_proj_bias.zero_()
            layer.self_attn.out_proj.weight.copy_(t(WO).T)
            layer.self_attn.out_proj.bias.zero_()
            layer.linear1.weight.copy_(t(W1).T)
            layer.linear1.bias.copy_(t(b1)[0])
            layer.linear2.weight.copy_(t(W2).T)
            layer.linear2.bias.copy_(t(b2)[0])
        layers[name] = layer.to(dt).eval()
    with torch.inference_mode():
        ref = layers["ref"](t(X)[None])[0]
        out = layers["test"](t(X).to(dtype)[None])
    return node, ref, out


@pytest.mark.torch
@pytest.mark.parametrize("dtype_name", ["float32", "bfloat16"])
def test_torch_encoder_layer_errors(dtype_name):
    torch = _torch()
    node, ref64, out = _encoder(torch, getattr(torch, dtype_name))
    c = sa.compare(node, out)
    assert c.dtype == dtype_name
    want = (out[0].to(torch.float64) - ref64).abs().numpy()     # float64's own error ~1e-16
    assert np.all(np.abs(c.abs_err - want) <= 1e-14)
    assert sa.compare(node, ref64).max_abs_err() < 1e-14        # the float64 layer is the same layer
    eps = {"float32": 2.0 ** -23, "bfloat16": 2.0 ** -7}[dtype_name]
    assert c.summary()["max_eps"] == pytest.approx(
        float(np.max(c.abs_err / np.abs(c.exact_values))) / eps, rel=1e-6)


# -- the command line --------------------------------------------------------------------

SPEC = "002-causal-mask"


def _zm():
    from symattn.cli.grad import resolve
    from symattn.spec.load import load
    return load(str(resolve(SPEC))).tensors["Zm"]


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_npy_json_and_picture(tmp_path, capsys):
    Z = _zm()
    f = tmp_path / "z.npy"
    np.save(f, Z.numpy().astype(np.float32))
    png = tmp_path / "errors.png"
    code, out, err = run(["compare", SPEC, "--step", "Zm", "--reference", str(f), "--json",
                          "-o", str(png)], capsys)
    assert code == 0, err
    got = json.loads(out)
    c = sa.compare(Z, np.load(f))
    assert got["summary"]["max_abs_err"] == c.summary()["max_abs_err"]
    assert got["summary"]["dtype"] == "float32" and got["step"] == "Zm"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, err = run(["compare", SPEC, "--step", "Zm", "--reference", str(f), "-o", str(png)], capsys)
    assert code == 2 and "exists already" in err and err.count("\n") == 1


@pytest.mark.torch
def test_cli_pt_bfloat16(tmp_path, capsys):
    torch = _torch()
    f = tmp_path / "z.pt"
    torch.save(torch.from_numpy(_zm().numpy()).to(torch.bfloat16), f)
    code, out, err = run(["compare", SPEC, "--step", "Zm", "--reference", str(f)], capsys)
    assert code == 0, err
    assert out.splitlines()[1].startswith("bfloat16 reference against 30 certified digits")


def _bad_files(tmp_path):
    (tmp_path / "text.npy").write_text("hello")
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    np.save(tmp_path / "int.npy", np.zeros((3, 2), dtype=np.int32))
    np.save(tmp_path / "shape.npy", np.zeros((2, 3)))
    (tmp_path / "data.csv").write_text("1,2")
    return [("text.npy", "is not a NumPy .npy file"),
            ("obj.npy", "holds Python objects"),
            ("int.npy", "NumPy array of int32"),
            ("shape.npy", "the reference is 2×3 (float64) but the computation is 3×2"),
            ("data.csv", "a reference is a .npy or .pt file"),
            ("missing.npy", "no such file")]


def test_cli_bad_references_exit_2_in_one_line(tmp_path, capsys):
    for name, text in _bad_files(tmp_path):
        code, out, err = run(["compare", SPEC, "--step", "Zm", "--reference", str(tmp_path / name)], capsys)
        assert code == 2 and text in err and err.count("\n") == 1 and out == "", (name, err)
    code, out, err = run(["compare", SPEC, "--step", "nope", "--reference", str(tmp_path / "int.npy")], capsys)
    assert code == 2 and "--step nope: no such step or input (known: X, S, M" in err


@pytest.mark.torch
def test_cli_pt_that_is_not_a_tensor(tmp_path, capsys):
    import pickle
    torch = _torch()
    torch.save({"out": torch.zeros(3, 2)}, tmp_path / "dict.pt")
    (tmp_path / "evil.pt").write_bytes(pickle.dumps(print))      # never run
    for name, text in (("dict.pt", "holds a dict, not a tensor"),
                       ("evil.pt", "weights_only=True) reads; nothing in it was run")):
        code, out, err = run(["compare", SPEC, "--step", "Zm", "--reference", str(tmp_path / name)], capsys)
        assert code == 2 and text in err and err.count("\n") == 1, (name, err)
