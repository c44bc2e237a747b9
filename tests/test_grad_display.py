"""`symattn.grad` as a user meets it on the README's 4-token example, and `compare`'s report.

The truth is mpmath's: the same attention written out with mpmath matrices at 40 digits,
differentiated numerically (mpmath.diff) entry by entry."""

from __future__ import annotations

import re
import subprocess
import sys

import mpmath

EXAMPLE = '''
import symattn as sa
X = sa.matrix([["1.0", "0.5"], ["0.8", "1.2"], ["1.5", "0.7"], ["0.6", "1.8"]],
              rows=["I", "love", "machine", "learning"])
W_Q = sa.matrix([["1.0", "0.2"], ["0.1", "0.9"]])
W_K = sa.matrix([["0.6", "0.1"], ["-0.3", "1.0"]])
W_V = sa.matrix([["1.2", "0.0", "0.5"], ["-0.2", "0.8", "0.3"]])
Z, A = sa.attention(X @ W_Q, X @ W_K, X @ W_V)
L = sa.sum(sa.sum(Z).T)
'''

XS = [["1.0", "0.5"], ["0.8", "1.2"], ["1.5", "0.7"], ["0.6", "1.8"]]
WQ = [["1.0", "0.2"], ["0.1", "0.9"]]
WK = [["0.6", "0.1"], ["-0.3", "1.0"]]
WV = [["1.2", "0.0", "0.5"], ["-0.2", "0.8", "0.3"]]


def _loss(x, wq):
    """sum of Z = softmax(Q Kᵀ/√2) V, in mpmath."""
    m = lambda rows: mpmath.matrix([[mpmath.mpf(v) for v in r] for r in rows])
    X, WK_, WV_ = m(XS) if x is None else x, m(WK), m(WV)
    Q, K, V = X * wq, X * WK_, X * WV_
    S = Q * K.T / mpmath.sqrt(2)
    total = 0
    for i in range(S.rows):
        e = [mpmath.exp(S[i, j]) for j in range(S.cols)]
        z = sum(e)
        for c in range(V.cols):
            total += sum(e[j] / z * V[j, c] for j in range(S.cols))
    return total


def _truth_wq():
    mpmath.mp.dps = 40
    base = [[mpmath.mpf(v) for v in r] for r in WQ]
    out = []
    for i in range(2):
        row = []
        for j in range(2):
            def f(t, i=i, j=j):
                w = mpmath.matrix(base)
                w[i, j] = t
                return _loss(None, w)
            row.append(mpmath.diff(f, base[i][j]))
        out.append(row)
    return out


def run(code: str) -> str:
    r = subprocess.run([sys.executable, "-c", EXAMPLE + code], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_grad_prints_certified_values_as_a_tensor_does():
    out = run("print(sa.grad(L, W_Q))\nprint(len(repr(sa.grad(L, W_Q))))")
    lines = out.splitlines()
    assert lines[0] == "Gradient 2×2, 6 significant digits (certified):"
    assert int(lines[-1]) < 200                       # not a 100 kB closed form
    truth = _truth_wq()
    for i, line in enumerate(lines[1:3]):
        for j, text in enumerate(line.split()):
            assert mpmath.nstr(truth[i][j], 6, strip_zeros=False) == text or \
                abs(mpmath.mpf(text) - truth[i][j]) <= abs(truth[i][j]) * 5e-6, (i, j, text)


def test_grad_digits_are_labelled_with_the_rows_of_wrt():
    out = run("g = sa.grad(L, X, digits=4)\nprint(g)\nprint(g[1][0] == sa.grad(L, X, digits=4)[1][0])")
    lines = out.splitlines()
    assert lines[0] == "Gradient 4×2, 4 significant digits (certified):"
    assert [l.split()[0] for l in lines[1:5]] == ["I", "love", "machine", "learning"]
    assert lines[-1] == "True"
    mpmath.mp.dps = 40
    base = [[mpmath.mpf(v) for v in r] for r in XS]
    wq = mpmath.matrix([[mpmath.mpf(v) for v in r] for r in WQ])

    def f(t):
        x = mpmath.matrix(base)
        x[1, 0] = t
        return _loss(x, wq)
    want = mpmath.diff(f, base[1][0])
    assert lines[2].split()[1] == mpmath.nstr(want, 4, strip_zeros=False)


def test_the_closed_form_when_asked():
    out = run("import sympy\ng = sa.grad(L, W_Q)\nprint(sympy.N(g.exact()[0, 1], 30))\n"
              "print(sympy.N(g[0, 1], 30))")
    a, b = out.split()
    truth = _truth_wq()[0][1]
    assert a == b and abs(mpmath.mpf(a) - truth) < mpmath.mpf(10) ** -25


def test_an_entry_that_is_exactly_1_is_exact():
    """Behind a causal mask the first token's weight is exactly 1 (e^s / e^s): float64 gives
    1.0, and the comparison counts it exact, with the 0 beside it."""
    out = run("w = sa.softmax(sa.matrix([['0.3', '0.1'], ['0.2', '0.5']]) + sa.causal_mask(2))\n"
              "c = sa.compare(w, 'float64')\nprint(c.summary()['exact'])\nprint(c.digits[0, 0])")
    assert out.split() == ["2", "inf"]


def test_compare_names_the_same_entry_as_max_error_and_worst(tmp_path):
    """The max error line is the first worst entry: same label, same ε."""
    code = ("import numpy as np; from symattn.spec.load import load; "
            "np.save('Zm.npy', load('%s').tensors['Zm'].numpy('float32'))")
    from pathlib import Path
    spec = Path(__file__).resolve().parents[1] / "examples" / "002-causal-mask.toml"
    subprocess.run([sys.executable, "-c", code % spec], cwd=tmp_path, check=True)
    r = subprocess.run([sys.executable, "-m", "symattn", "compare", "002-causal-mask", "--step", "Zm",
                        "--reference", "Zm.npy", "--worst", "1"], cwd=tmp_path, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    head = re.search(r"max error  (\S+) ε = (\S+) absolute .* at \[(.+?)\]", r.stdout)
    worst = re.search(r"worst entry:\n    \[(.+?)\] .* error (\S+) = (\S+) ε", r.stdout)
    assert head and worst, r.stdout
    assert (head.group(3), head.group(2), head.group(1)) == worst.groups()


def test_counts_are_singular_for_one():
    from symattn.render.report import counted, summary_line
    from symattn.claims.check import Summary
    assert counted(1, "printed point") == "1 printed point" and counted(2, "curve") == "2 curves"
    assert summary_line(Summary(examples=1)).startswith("1 example, 0 printed numbers")
