"""The LLaMA-style operations in the spec language: a spec using each builds the same graph
as Python, ``symattn check`` gives the RoPE layout, GELU variant and tiled key/value heads
mix-ups their diagnoses, ``symattn latex`` renders each (KaTeX renders every formula), and
``symattn prove`` lists the RoPE proof. Printed numbers are computed here with mpmath
(test_llama_ops' references), never by the code under test.
"""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal, ROUND_HALF_UP
from pathlib import Path

import mpmath
import pytest

import symattn as sa
from symattn.spec.load import load
from test_llama_ops import mpm, ref_rms_norm, ref_gelu, ref_matmul, ref_rope, ref_gqa, WQ
from test_llama_ops import precision  # noqa: F401  (autouse: mpmath at 40 digits)

ROOT = Path(__file__).resolve().parents[1]


def four_decimals(row) -> str:
    """A row as an article prints it: 4 decimals, half up."""
    four = [Decimal(mpmath.nstr(v, 25)).quantize(Decimal("0.0001"), ROUND_HALF_UP) for v in row]
    return "[" + ", ".join(str(v) for v in four) + "]"


GQA_SPEC = '''
[example]
id = "gqa"
title = "Grouped-query attention with ALiBi"

[inputs]
H = [[1, 0.5, -0.5, 2], [0, 1, 1.5, -1], [0.5, 0.5, 0.5, 0.5]]
W_Q = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]
W_K = [[1, 0], [0, 1], [1, 0], [0, 1]]
W_V = [[0.5, 0], [0, 0.5], [1, 0], [0, 1]]

[[steps]]
name = "Z"
expr = "multi_head(H, W_Q, W_K, W_V, n_heads=4, n_kv_heads=2, mask=causal_mask(3), bias=alibi_bias(4, 3))"

[[claims]]
step = "Z"
at = 2
printed = "PRINTED"
line = 1
'''


def test_check_and_the_tiled_key_value_heads_mistake(tmp_path):
    def printed(tiled):
        return four_decimals(ref_gqa(4, 2, tiled)[2])
    assert printed(True) != printed(False)
    p = tmp_path / "gqa.toml"
    p.write_text(GQA_SPEC.replace("PRINTED", printed(False)), encoding="utf-8")
    assert run("check", str(p)).returncode == 0
    p.write_text(GQA_SPEC.replace("PRINTED", printed(True)), encoding="utf-8")
    out = run("check", str(p))
    assert out.returncode == 1
    wrong = [ln for ln in out.stdout.splitlines() if "✗" in ln]
    assert wrong and all("key/value heads tiled (head i on key/value head i mod n_kv_heads) "
                         "instead of grouped" in ln for ln in wrong), out.stdout


# -- the spec language, LaTeX and the diagnosis --------------------------------------------------

SPEC = '''
[example]
id = "llama-ops"
title = "A LLaMA-style block by hand"
tokens = ["I", "love", "cats"]

[inputs]
X = { value = [[1.0, 0.5, -0.5, 2.0], [0.0, 1.0, 1.5, -1.0], [0.5, 0.5, 0.5, 0.5]], rows = "tokens" }
gamma = [[1.0, 1.0, 0.5, 2.0]]
W_Q = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]
W_K = [[1, 0], [0, 1], [1, 0], [0, 1]]
W_V = [[0.5, 0], [0, 0.5], [1, 0], [0, 1]]
W_gate = [[1, 0], [0, 1], [1, 1], [0, -1]]
W_up = [[0.5, 0], [0, 0.5], [1, 0], [0, 1]]
W_down = [[1, 0, 0, 1], [0, 1, 1, 0]]

[[steps]]
name = "h"
expr = "rms_norm(X, eps=1e-5, gamma=gamma)"

[[steps]]
name = "q"
expr = "rope(h @ W_Q)"

[[steps]]
name = "B"
expr = "alibi_bias(2, 3)"

[[steps]]
name = "attn"
expr = "multi_head(h, W_Q, W_K, W_V, n_heads=2, n_kv_heads=1, mask=causal_mask(3), bias=B)"

[[steps]]
name = "ff"
expr = "swiglu(h, W_gate, W_up, W_down)"

[[steps]]
name = "s"
expr = "silu(X)"

[[steps]]
name = "g"
expr = 'gelu(X, approximate="tanh")'

[[claims]]
step = "q"
at = "love"
printed = "PRINTED"
line = 1
'''


def spec_file(tmp_path, printed):
    p = tmp_path / "llama.toml"
    p.write_text(SPEC.replace("PRINTED", printed), encoding="utf-8")
    return p


def test_spec_language_builds_the_same_graph(tmp_path):
    s = load(str(spec_file(tmp_path, "[0, 0, 0, 0]")))
    i = s.inputs
    h = sa.rms_norm(i["X"], eps="1e-5", gamma=i["gamma"])
    python = {
        "h": h, "q": sa.rope(h @ i["W_Q"]), "s": sa.silu(i["X"]),
        "g": sa.gelu(i["X"], approximate="tanh"),
        "attn": sa.multi_head(h, i["W_Q"], i["W_K"], i["W_V"], n_heads=2, n_kv_heads=1,
                              mask=sa.causal_mask(3), bias=sa.alibi_bias(2, 3))["output"],
        "ff": sa.swiglu(h, i["W_gate"], i["W_up"], i["W_down"]),
    }
    for name, t in python.items():
        assert sa.evaluate(s.tensors[name], digits=25) == sa.evaluate(t, digits=25), name


def run(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def printed_row(layout):
    """Row `love` of rope(h·W_Q) in a layout, 4 decimals, computed with mpmath."""
    h = ref_rms_norm(mpm([["1", "0.5", "-0.5", "2"], ["0", "1", "1.5", "-1"],
                          ["0.5", "0.5", "0.5", "0.5"]]), mpmath.mpf("1e-5"),
                     mpm([["1", "1", "0.5", "2"]]))
    return four_decimals(ref_rope(ref_matmul(h, mpm(WQ)), mpmath.mpf(10000), layout)[1])


def test_check_and_the_rope_layout_mistake(tmp_path):
    good = run("check", str(spec_file(tmp_path, printed_row("pairs"))))
    assert good.returncode == 0, good.stdout + good.stderr
    assert "4 printed numbers: 4 correct" in good.stdout
    bad = run("check", str(spec_file(tmp_path, printed_row("halves"))))
    assert bad.returncode == 1
    assert bad.stdout.count("RoPE rotating halves (k, k+d/2) instead of adjacent pairs") == 4


def test_the_gelu_variant_mistake(tmp_path):
    erf_row = four_decimals([ref_gelu(v) for v in mpm([["1", "0.5", "-0.5", "2"]])[0]])
    text = SPEC.replace("PRINTED", printed_row("pairs")) + f'''
[[claims]]
step = "g"
at = "I"
printed = "{erf_row}"
line = 2
'''
    p = tmp_path / "gelu.toml"
    p.write_text(text, encoding="utf-8")
    out = run("check", str(p))
    assert out.returncode == 1
    # the entries where the two forms differ at 4 decimals are wrong, each with that diagnosis
    wrong = [ln for ln in out.stdout.splitlines() if "✗" in ln]
    assert wrong and all("GELU in its exact erf form instead of the tanh approximation" in ln
                         for ln in wrong), out.stdout


def test_latex_renders_every_new_operation(tmp_path):
    out = run("latex", str(spec_file(tmp_path, printed_row("pairs"))))
    assert out.returncode == 0, out.stderr
    for name in ("RMSNorm", "RoPE", "MultiHead", "ALiBi", "SwiGLU", "SiLU", "GELU"):
        assert rf"\operatorname{{{name}}}" in out.stdout, name


def test_the_rope_proof_is_listed():
    out = run("prove", "rope-relative-position", "--json")
    assert out.returncode == 0, out.stderr
    assert '"holds": true' in out.stdout


@pytest.mark.render
def test_katex_renders_every_formula_of_the_new_operations(tmp_path):
    from test_latex_render import katex_render, all_formulas
    gqa = tmp_path / "gqa.toml"
    gqa.write_text(GQA_SPEC.replace("PRINTED", "[0, 0, 0, 0]").replace(
        "alibi_bias(4, 3))", "alibi_bias(4, 3), kv_repeat='tile')"), encoding="utf-8")
    formulas = all_formulas([spec_file(tmp_path, printed_row("halves")), gqa])
    assert len(formulas) > 20
    res = katex_render(formulas, tmp_path)
    assert res["failures"] == [], "\n".join(f"{w}: {m}" for w, m in res["failures"][:10])


@pytest.mark.parametrize("scale, shown", [(None, r"{\sqrt{d_{k}}}"), ("1", r"K^{(1)\top} \cdot 1 +")])
def test_multi_head_latex_shows_the_scale_it_computes_with(tmp_path, scale, shown):
    gqa = tmp_path / "gqa.toml"
    extra = "" if scale is None else f", scale={scale}"
    gqa.write_text(GQA_SPEC.replace("PRINTED", "[0, 0, 0, 0]").replace(
        "alibi_bias(4, 3))", f"alibi_bias(4, 3){extra})"), encoding="utf-8")
    out = run("latex", str(gqa))
    assert out.returncode == 0, out.stderr
    head = next(line for line in out.stdout.splitlines() if line.startswith("A^{(1)}"))
    assert shown in head
    assert (r"\sqrt{d_{k}}" in head) == (scale is None)
