"""Sine and cosine join the search by their declaration (``search=True``): the ``sin_part``
and ``cos_part`` a positional-encoding notebook prints of its angles are derived, a slip
judged; but a sine is never found where rounding hides it (``sin(0.3)`` prints 0.3: a
block of one-digit numbers, or of numbers its argument already prints). Truths: mpmath."""

import mpmath

from conftest import check_post

ANGLES = [["0", "0"], ["1", "0.01"], ["2", "0.02"], ["3", "0.03"]]


def four(x) -> str:
    return mpmath.nstr(x, 4, min_fixed=-5, max_fixed=5) if abs(x) >= 1 else f"{float(x):.4f}"


def table(name: str, rows: list) -> list:
    return [f"$${name} = \\begin{{bmatrix}} " + r" \\ ".join(" & ".join(r) for r in rows) + r" \end{bmatrix}$$", ""]


def checked(folder, text: str) -> str:
    """What ``check --json`` prints of ``text`` (no example found, exit 2, included)."""
    import subprocess
    import sys
    path = folder / "post.md"
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1, 2), r.stderr
    return r.stdout


def test_the_sines_and_cosines_of_printed_angles_are_derived(tmp_path):
    sines = [[f"{float(mpmath.sin(mpmath.mpf(a))):.4f}" for a in r] for r in ANGLES]
    cosines = [[f"{float(mpmath.cos(mpmath.mpf(a))):.4f}" for a in r] for r in ANGLES]
    assert sines[2][0] == "0.9093" and cosines[3][0] == "-0.9900"
    cosines[2][0] = "0.4161"                              # the minus sign dropped
    text = "\n".join(["# Positional encoding, by parts", "", *table("A", ANGLES), "The sines:", "",
                      *table("S", sines), "The cosines:", "", *table("C", cosines)])
    out = check_post(tmp_path, text)
    steps = {s["name"]: s["expr"] for e in out["inferred"] for s in e["steps"]}
    assert steps.get("S") == "sin(A)" and steps.get("C") == "cos(A)"
    wrong = [c for c in out["claims"] if c["verdict"] == "wrong"]
    assert [(c["step"], c["at"], c["printed"]) for c in wrong] == [("C", ["2", "0"], "0.4161")]
    assert abs(mpmath.mpf(wrong[0]["exact"]) - mpmath.cos(2)) < mpmath.mpf("1e-15")


def test_no_sine_where_one_digit_prints_hide_it(tmp_path):
    """``W_V`` printed at one decimal is the sine of ``W_K`` at six of eight entries (sin x
    ≈ x for small x): no derivation, and nothing called wrong."""
    wk = [["0.7", "0.8"], ["0.5", "0.6"], ["0.3", "0.4"], ["0.1", "0.2"]]
    wv = [["0.5", "0.7"], ["0.8", "0.6"], ["0.3", "0.4"], ["0.1", "0.2"]]
    near = sum(f"{float(mpmath.sin(mpmath.mpf(k))):.1f}" == v for rk, rv in zip(wk, wv) for k, v in zip(rk, rv))
    assert near == 6
    x = [["1.0", "0.5", "-0.2", "0.8"], ["1.2", "0.4", "-0.1", "0.9"]]
    text = "\n".join(["# Two heads", "", *table("X", x), *table("W_K", wk), *table("W_V", wv)])
    out = checked(tmp_path, text)
    assert "sin(" not in out and '"wrong"' not in out


def test_no_sine_of_a_block_that_prints_its_argument_again(tmp_path):
    """Small numbers at two decimals are their own sines (sin 0.12 = 0.1197): a block that
    copies an earlier one with one number changed is no sine of it (five of six entries are
    not evidence enough for a block of such plain numbers), its odd number no slip."""
    a = [["0.12", "0.05", "0.31"], ["0.08", "0.2", "0.15"]]
    b = [["0.12", "0.05", "0.30"], ["0.08", "0.20", "0.15"]]
    sines = [[f"{float(mpmath.sin(mpmath.mpf(v))):.2f}" for v in r] for r in a]
    assert sines == [["0.12", "0.05", "0.31"], ["0.08", "0.20", "0.15"]]     # all but one of b
    text = "\n".join(["# Copies", "", *table("A", a), "Some words.", "", *table("B", b)])
    out = checked(tmp_path, text)
    assert "sin(" not in out and '"wrong"' not in out
