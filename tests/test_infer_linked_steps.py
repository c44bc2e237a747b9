"""Steps worked in prose that take a step worked beside another block (``0 / 1.414`` of the
``√2 ≈ 1.414`` worked above): one example with it, every number checked, none refused as
"inferred inconsistently".

Truths: ``mpmath`` at 30 digits, never symattn.
"""

from __future__ import annotations

import subprocess
import sys

import mpmath

mpmath.mp.dps = 30

TEXT = """Step 3: scaling
d_k = 2, so √d_k = √2 ≈ 1.414
- Q1-K1: 1 / 1.414 ≈ 0.707
- Q1-K2: 0 / 1.414 = 0
- Q2-K1: 0 / 1.414 = 0
- Q2-K2: 1 / 1.414 ≈ 0.707
Step 4: softmax
- Q1: softmax([0.707, 0]) = [e^0.707 / (e^0.707+e^0), e^0 / (e^0.707+e^0)] ≈ [0.668, 0.332]
- Q2: softmax([0, 0.707]) ≈ [0.332, 0.668]
"""


def test_prose_steps_on_a_step_worked_above_are_one_example(tmp_path):
    s = 1 / mpmath.sqrt(2)
    w = [1 / (1 + mpmath.exp(s)), mpmath.exp(s) / (1 + mpmath.exp(s))]
    assert [mpmath.nstr(x, 3) for x in w] == ["0.33", "0.67"]       # 0.330, 0.670: both prints slip
    path = tmp_path / "post.txt"
    path.write_text(TEXT, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "-v", str(path)], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert "inconsistently" not in r.stderr and "Traceback" not in r.stderr
    assert "1 example," in r.stdout
    wrong = [ln for ln in r.stdout.splitlines() if "✗ line 9 " in ln]
    assert len(wrong) == 2 and "expected 0.330" in " ".join(wrong) and "expected 0.670" in " ".join(wrong)
