"""A block its writer cut off after four decimals, not rounded, checked with no spec:

an RMSNorm of ``[[1, 2, 3, 4], [5, 6, 7, 8]]`` printed ``0.7302`` for 0.730296…: the block is
still derived (every entry is its value cut), the cut entries are wrong with the mistake
named, and the ``gamma: [1, 1, 1, 1]`` printed above is no claim on a row of the result
(no entry is an integer). A block printed to one decimal is not read as cut (small sums
would fit it by chance).

Truths: mpmath at 30 digits, never symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath

mpmath.mp.dps = 30


def rms_norm(row, eps="1e-6"):
    xs = [mpmath.mpf(v) for v in row]
    r = mpmath.sqrt(sum(x * x for x in xs) / len(xs) + mpmath.mpf(eps))
    return [x / r for x in xs]


def cut(v, places=4):
    whole = int(mpmath.floor(v * 10 ** places))
    return f"{whole // 10 ** places}.{whole % 10 ** places:0{places}d}"


def rounded4(v):
    whole = int(mpmath.floor(v * 10 ** 4 + mpmath.mpf("0.5")))
    return f"{whole // 10 ** 4}.{whole % 10 ** 4:04d}"


def test_a_block_cut_after_four_decimals_is_derived_and_its_cut_entries_flagged(tmp_path):
    rows = [rms_norm([1, 2, 3, 4]), rms_norm([5, 6, 7, 8])]
    printed = [[cut(v) for v in r] for r in rows]
    rounded = [[rounded4(v) for v in r] for r in rows]
    assert printed == [["0.3651", "0.7302", "1.0954", "1.4605"], ["0.7580", "0.9097", "1.0613", "1.2129"]]
    wrong = {(i, j) for i in range(2) for j in range(4)
             if abs(mpmath.mpf(printed[i][j]) - rows[i][j]) > mpmath.mpf("0.00005")}
    assert wrong == {(0, 1), (0, 3), (1, 0), (1, 3)}
    text = ("`rms_norm(input, gamma, epsilon=1e-6)`. Example:\n\n```python\n"
            "Input x: [[1, 2, 3, 4],\n          [5, 6, 7, 8]]\nInput gamma: [1, 1, 1, 1]\n"
            f"Output y: [[{', '.join(printed[0])}],\n           [{', '.join(printed[1])}]]\n```\n")
    path = tmp_path / "doc.md"
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    claims = json.loads(r.stdout)["claims"]
    assert not [c for c in claims if c["line"] == 6]              # gamma: no claim
    got = {(int(c["at"][0]), int(c["at"][1])): c for c in claims if c["line"] in (7, 8)}
    assert {k for k, c in got.items() if c["verdict"] == "wrong"} == wrong
    assert len(got) == 8
    assert all("truncate" in " ".join(got[k]["diagnosis"]) for k in wrong)
    assert {(i, j) for i in range(2) for j in range(4) if rounded[i][j] != printed[i][j]} == wrong


def test_a_block_of_one_decimal_is_not_read_as_cut(tmp_path):
    """[0.1, 0.2] printed for x + tiny ([0.13, 0.24] cut to one decimal): no derivation."""
    text = ("x:\n\n[0.11, 0.22, 0.33]\n\nd:\n\n[0.02, 0.01, 0.03]\n\ne:\n\n[0.1, 0.2, 0.3]\n")
    path = tmp_path / "doc.md"
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no worked example found" in r.stderr
