"""The computations the benchmark times, each written once per tool.

Two cases, each with T = d tokens and width:

- ``head``: one attention head ``softmax(Q·Kᵀ/√d + M)·V`` with a causal mask M, from exact
  rational Q, K, V (T×d);
- ``layer``: one post-norm encoder layer, h = 2 heads of width d/2, FFN d → 4d → d, from
  exact rational X, W_Q, W_K, W_V (per head), W_O, W1, b1, W2, b2 (LayerNorm eps 1e-5,
  no γ/β).

Tools: symattn's public API (``matrix``/``attention``/``encoder_layer`` then
``evaluate(..., digits=N)``, construction included: certified decimal strings); python-flint
written directly (the floor: ``arb_mat`` products, one pass at the precision symattn starts
at, decimal strings by ``arb.str``); naive SymPy (``Matrix`` arithmetic, ``evalf`` at N
digits); NumPy float64 (arrays built beforehand). Every tool takes the same inputs
(``fractions.Fraction`` matrices) and returns strings (or an array for NumPy).
"""

from __future__ import annotations

import random
from fractions import Fraction

EPS = Fraction(1, 100000)


# -- inputs --------------------------------------------------------------------------------

def _mat(rng: random.Random, m: int, n: int, scale: int = 100, span: int = 99) -> list:
    """m×n exact decimals k/scale with |k| <= span (equal values share one Fraction)."""
    table = [Fraction(k, scale) for k in range(-span, span + 1)]
    return [rng.choices(table, k=n) for _ in range(m)]


def head_inputs(T: int, seed: int = 6) -> dict:
    rng = random.Random(seed * 1000 + T)
    return {"T": T, "d": T, "Q": _mat(rng, T, T), "K": _mat(rng, T, T), "V": _mat(rng, T, T)}


def layer_inputs(T: int, d: int | None = None, h: int = 2, d_ff: int | None = None,
                 seed: int = 6) -> dict:
    """Weights of about 1/√d so activations stay of order 1 (2-decimal entries)."""
    d = T if d is None else d
    d_ff = 4 * d if d_ff is None else d_ff
    if d % h:
        raise ValueError(f"d = {d} is not a multiple of h = {h}")
    rng = random.Random(seed * 1000 + 7 * T + d)
    w = max(1, round(100 / d ** 0.5))            # weights in ±w/100 ≈ ±1/√d
    dk = d // h
    heads = [tuple(_mat(rng, d, dk, 100, w) for _ in range(3)) for _ in range(h)]
    return {"T": T, "d": d, "h": h, "d_ff": d_ff, "X": _mat(rng, T, d),
            "heads": heads, "W_O": _mat(rng, d, d, 100, w),
            "W1": _mat(rng, d, d_ff, 100, w), "b1": _mat(rng, 1, d_ff, 100, 10),
            "W2": _mat(rng, d_ff, d, 100, max(1, round(100 / d_ff ** 0.5))),
            "b2": _mat(rng, 1, d, 100, 10)}


# -- symattn ------------------------------------------------------------------------------

def symattn_head_graph(inp: dict):
    import symattn as sa
    Q, K, V = sa.matrix(inp["Q"]), sa.matrix(inp["K"]), sa.matrix(inp["V"])
    Z, _ = sa.attention(Q, K, V, mask=sa.causal_mask(inp["T"]))
    return Z


def symattn_layer_graph(inp: dict, read=None):
    """The layer's graph, each input matrix read by ``read`` (``sa.matrix`` by default; the
    inputs may be rows of Fractions or of decimal strings, or NumPy arrays)."""
    import symattn as sa
    read = read or sa.matrix
    X = read(inp["X"])
    heads = [sa.Head(read(q), read(k), read(v)) for q, k, v in inp["heads"]]
    p = sa.EncoderLayerParams(heads=heads, W_O=read(inp["W_O"]),
                              ffn=sa.FFNParams(read(inp["W1"]), read(inp["b1"]),
                                               read(inp["W2"]), read(inp["b2"])),
                              eps=EPS)
    return sa.encoder_layer(X, p)["output"]


def decimal_text(x: Fraction, places: int = 2) -> str:
    """An exact decimal Fraction with ``places`` places as the text a user writes: -0.04."""
    units = x.numerator * 10 ** places // x.denominator
    if Fraction(units, 10 ** places) != x:
        raise ValueError(f"{x} has more than {places} decimals")
    sign, units = ("-" if units < 0 else ""), abs(units)
    return f"{sign}{units // 10 ** places}.{units % 10 ** places:0{places}d}"


def text_inputs(inp: dict) -> dict:
    """The inputs as rows of decimal strings (the values unchanged)."""
    def t(rows):
        return [[decimal_text(x) for x in r] for r in rows]
    out = {k: (t(v) if isinstance(v, list) and k != "heads" else v) for k, v in inp.items()}
    if "heads" in inp:
        out["heads"] = [tuple(t(w) for w in h) for h in inp["heads"]]
    return out


def symattn_head(inp: dict, digits: int) -> list:
    import symattn as sa
    return sa.evaluate(symattn_head_graph(inp), digits=digits)


def symattn_layer(inp: dict, digits: int, read=None) -> list:
    import symattn as sa
    return sa.evaluate(symattn_layer_graph(inp, read), digits=digits)


# -- python-flint written directly (the floor) ----------------------------------------------

def _prec(digits: int) -> int:
    return max(64, int(digits * 3.33) + 40)          # the precision symattn starts at


def _arb_mat(rows):
    from flint import arb_mat, fmpq
    return arb_mat([[fmpq(x.numerator, x.denominator) for x in r] for r in rows])


def _strings(M, digits: int) -> list:
    """Decimal strings of an arb_mat; refuses a ball too wide for ``digits`` digits."""
    need = int(digits * 3.33) + 4
    out = []
    for r in M.tolist():
        row = []
        for x in r:
            if x.rel_accuracy_bits() < need and not x.is_zero():
                raise ArithmeticError("the floor's one pass was not precise enough")
            row.append(x.str(digits, radius=False))
        out.append(row)
    return out


def _softmax_rows(S, keep=None):
    """Row softmax of an arb_mat (entries where ``keep(i, j)`` is false get weight 0)."""
    from flint import arb, arb_mat
    out = []
    zero = arb(0)
    for i, r in enumerate(S.tolist()):
        e = [x.exp() if keep is None or keep(i, j) else zero for j, x in enumerate(r)]
        s = sum(e[1:], e[0])
        out.append([x / s for x in e])
    return arb_mat(out)


def flint_head(inp: dict, digits: int) -> list:
    import flint
    from flint import arb
    old = flint.ctx.prec
    flint.ctx.prec = _prec(digits)
    try:
        Q, K, V = _arb_mat(inp["Q"]), _arb_mat(inp["K"]), _arb_mat(inp["V"])
        S = (Q * K.transpose()) * arb(inp["d"]).rsqrt()
        A = _softmax_rows(S, lambda i, j: j <= i)
        return _strings(A * V, digits)
    finally:
        flint.ctx.prec = old


def _layer_norm(M, eps):
    from flint import arb_mat
    out = []
    for r in M.tolist():
        d = len(r)
        mu = sum(r[1:], r[0]) / d
        dev = [x - mu for x in r]
        var = sum((x * x for x in dev[1:]), dev[0] * dev[0]) / d
        s = (var + eps).sqrt()
        out.append([x / s for x in dev])
    return arb_mat(out)


def _relu(x):
    from flint import arb
    if x > 0:
        return x
    if x < 0 or x.is_zero():
        return arb(0)
    return arb(0).union(x.upper())


def _add_row(M, b):
    from flint import arb_mat
    row = b.tolist()[0]
    return arb_mat([[x + y for x, y in zip(r, row)] for r in M.tolist()])


def flint_layer(inp: dict, digits: int, guard_bits: int = 0) -> list:
    """``guard_bits`` beyond symattn's first precision: at real size (d = 512, d_ff = 2048)
    one pass at that precision is not precise enough for the floor's strings, 16 more are."""
    import flint
    from flint import arb, arb_mat, fmpq
    old = flint.ctx.prec
    flint.ctx.prec = _prec(digits) + guard_bits
    try:
        X = _arb_mat(inp["X"])
        dk = inp["d"] // inp["h"]
        scale = arb(dk).rsqrt()
        outs = []
        for wq, wk, wv in inp["heads"]:
            Q, K, V = X * _arb_mat(wq), X * _arb_mat(wk), X * _arb_mat(wv)
            outs.append((_softmax_rows((Q * K.transpose()) * scale) * V).tolist())
        C = arb_mat([sum((o[i] for o in outs), []) for i in range(inp["T"])])
        eps = arb(fmpq(EPS.numerator, EPS.denominator))
        H = _layer_norm(X + C * _arb_mat(inp["W_O"]), eps)
        F = _add_row(H * _arb_mat(inp["W1"]), _arb_mat(inp["b1"]))
        F = arb_mat([[_relu(x) for x in r] for r in F.tolist()])
        F2 = _add_row(F * _arb_mat(inp["W2"]), _arb_mat(inp["b2"]))
        return _strings(_layer_norm(H + F2, eps), digits)
    finally:
        flint.ctx.prec = old


# -- real size (issue 16) -------------------------------------------------------------------

def real_head_inputs(T: int, d: int, seed: int = 16) -> dict:
    """One causal head of T tokens and width d: Q, K, V with 2-decimal entries in ±0.99."""
    rng = random.Random(seed * 100003 + T * 131 + d)
    return {"T": T, "d": d, "Q": _mat(rng, T, d), "K": _mat(rng, T, d), "V": _mat(rng, T, d)}


def torch_head(arr: dict, dtype: str):
    """``F.scaled_dot_product_attention(..., is_causal=True)`` with the inputs rounded to
    ``dtype`` (float32, bfloat16, float16), as such a kernel is fed: its output tensor."""
    import torch
    t = lambda a: torch.from_numpy(a).to(getattr(torch, dtype))[None]  # noqa: E731
    with torch.inference_mode():
        return torch.nn.functional.scaled_dot_product_attention(
            t(arr["Q"]), t(arr["K"]), t(arr["V"]), is_causal=True)[0]


# -- naive SymPy ---------------------------------------------------------------------------

def _sym(rows):
    import sympy
    return sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in r] for r in rows])


def _sym_softmax(S, keep=None):
    import sympy
    m, n = S.shape
    E = sympy.Matrix(m, n, lambda i, j: sympy.exp(S[i, j]) if keep is None or keep(i, j) else 0)
    return sympy.Matrix(m, n, lambda i, j: E[i, j] / sum(E[i, k] for k in range(n)))


def _sym_strings(M, digits: int) -> list:
    return [[str(M[i, j].evalf(digits)) for j in range(M.shape[1])] for i in range(M.shape[0])]


def sympy_head(inp: dict, digits: int) -> list:
    import sympy
    Q, K, V = _sym(inp["Q"]), _sym(inp["K"]), _sym(inp["V"])
    S = Q * K.T / sympy.sqrt(inp["d"])
    return _sym_strings(_sym_softmax(S, lambda i, j: j <= i) * V, digits)


def _sym_layer_norm(M, eps):
    import sympy
    m, n = M.shape
    rows = []
    for i in range(m):
        r = [M[i, j] for j in range(n)]
        mu = sum(r) / n
        dev = [x - mu for x in r]
        s = sympy.sqrt(sum(x ** 2 for x in dev) / n + eps)
        rows.append([x / s for x in dev])
    return sympy.Matrix(rows)


def sympy_layer(inp: dict, digits: int) -> list:
    import sympy
    X = _sym(inp["X"])
    dk = inp["d"] // inp["h"]
    outs = []
    for wq, wk, wv in inp["heads"]:
        Q, K, V = X * _sym(wq), X * _sym(wk), X * _sym(wv)
        outs.append(_sym_softmax(Q * K.T / sympy.sqrt(dk)) * V)
    C = sympy.Matrix.hstack(*outs)
    eps = sympy.Rational(EPS.numerator, EPS.denominator)
    H = _sym_layer_norm(X + C * _sym(inp["W_O"]), eps)
    ones = sympy.ones(inp["T"], 1)
    F = (H * _sym(inp["W1"]) + ones * _sym(inp["b1"])).applyfunc(lambda x: sympy.Max(0, x))
    F2 = F * _sym(inp["W2"]) + ones * _sym(inp["b2"])
    return _sym_strings(_sym_layer_norm(H + F2, eps), digits)


# -- NumPy float64 -------------------------------------------------------------------------

def numpy_arrays(inp: dict) -> dict:
    import numpy as np

    def a(rows):
        return np.array([[float(x) for x in r] for r in rows])
    out = {k: a(v) for k, v in inp.items() if isinstance(v, list) and k != "heads"}
    if "heads" in inp:
        out["heads"] = [tuple(a(w) for w in h) for h in inp["heads"]]
    return out


def _np_softmax(S):
    import numpy as np
    S = S - S.max(axis=1, keepdims=True)
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True)


def numpy_head(arr: dict):
    import numpy as np
    Q, K, V = arr["Q"], arr["K"], arr["V"]
    T, d = Q.shape
    S = Q @ K.T / np.sqrt(d)
    S = np.where(np.tri(T, dtype=bool), S, -np.inf)
    return _np_softmax(S) @ V


def _np_layer_norm(M, eps=1e-5):
    import numpy as np
    mu = M.mean(axis=1, keepdims=True)
    dev = M - mu
    return dev / np.sqrt((dev * dev).mean(axis=1, keepdims=True) + eps)


def numpy_layer(arr: dict):
    import numpy as np
    X = arr["X"]
    dk = X.shape[1] // len(arr["heads"])
    outs = [_np_softmax((X @ wq) @ (X @ wk).T / np.sqrt(dk)) @ (X @ wv)
            for wq, wk, wv in arr["heads"]]
    H = _np_layer_norm(X + np.hstack(outs) @ arr["W_O"])
    F = np.maximum(H @ arr["W1"] + arr["b1"], 0)
    return _np_layer_norm(H + F @ arr["W2"] + arr["b2"])


# -- PyTorch (the paper-sized layer) -------------------------------------------------------

def torch_layer(arr: dict):
    """``torch.nn.TransformerEncoderLayer`` (post-norm, ReLU, no dropout) in float64 on
    the CPU with the same weights (no Q/K/V/O biases, γ = 1, β = 0)."""
    import numpy as np
    import torch
    d, h = arr["X"].shape[1], len(arr["heads"])
    layer = torch.nn.TransformerEncoderLayer(d, h, dim_feedforward=arr["W1"].shape[1],
                                             dropout=0.0, batch_first=True, norm_first=False,
                                             layer_norm_eps=1e-5, dtype=torch.float64)
    layer.eval()
    with torch.no_grad():
        wq = np.hstack([w[0] for w in arr["heads"]])
        wk = np.hstack([w[1] for w in arr["heads"]])
        wv = np.hstack([w[2] for w in arr["heads"]])
        t = lambda a: torch.from_numpy(np.ascontiguousarray(a))  # noqa: E731
        layer.self_attn.in_proj_weight.copy_(t(np.vstack([wq.T, wk.T, wv.T])))
        layer.self_attn.in_proj_bias.zero_()
        layer.self_attn.out_proj.weight.copy_(t(arr["W_O"].T))
        layer.self_attn.out_proj.bias.zero_()
        layer.linear1.weight.copy_(t(arr["W1"].T))
        layer.linear1.bias.copy_(t(arr["b1"][0]))
        layer.linear2.weight.copy_(t(arr["W2"].T))
        layer.linear2.bias.copy_(t(arr["b2"][0]))
    x = t(arr["X"]).unsqueeze(0)

    def forward():
        with torch.inference_mode():
            return layer(x)[0]
    return forward
