"""The ε of a LayerNorm the text states no value for, in a post checked with no spec.

An example worked by hand divides by √σ² (ε = 0): its exact values are those; one computed
with a framework (``import torch``, ``nn.LayerNorm``) carries the framework's default ε =
10⁻⁵; a text that writes 0.00001 anywhere has it too. Two decimals cannot tell them apart,
so only the exact values judged can: they are compared here with ``mpmath`` at 30 digits,
never with symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath
import pytest

mpmath.mp.dps = 30
Z = [mpmath.mpf(x) for x in ("3.16", "0.61", "1.87")]


def normalised(eps):
    mu = mpmath.fsum(Z) / 3
    var = mpmath.fsum((z - mu) ** 2 for z in Z) / 3
    return [(z - mu) / mpmath.sqrt(var + eps) for z in Z]


def claims(tmp_path, extra: str):
    text = ("# Add & Norm by hand\n\n"
            "Let's normalize our residual output vector `z = [3.16, 0.61, 1.87]`.\n\n"
            "Each entry minus the mean, divided by the standard deviation:\n\n"
            f"`z_norm = [{', '.join(f'{float(v):.2f}' for v in normalised(0))}]`\n\n{extra}")
    path = tmp_path / "post.md"
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    return [c for c in json.loads(r.stdout)["claims"] if c["line"] == 7]


@pytest.mark.parametrize("extra, eps", [
    ("", 0),
    ("In code:\n\n```python\nimport torch\nln = torch.nn.LayerNorm(3)\n```\n", mpmath.mpf("1e-5")),
    ("PyTorch adds 0.00001 under the root.\n", mpmath.mpf("1e-5")),
])
def test_the_unstated_epsilon_is_the_one_the_example_was_worked_with(tmp_path, extra, eps):
    got = claims(tmp_path, extra)
    assert len(got) == 3 and all(c["verdict"] == "correct" for c in got), got
    for c, want in zip(got, normalised(eps)):
        assert abs(mpmath.mpf(c["exact"]) - want) < mpmath.mpf("1e-18"), (c, want)
