"""sa.plot: heatmap cells and sweep curves against mpmath; symattn sweep from the command line."""

from __future__ import annotations

import re
from decimal import Decimal, ROUND_HALF_UP
from fractions import Fraction

import mpmath
import pytest

pytest.importorskip("matplotlib")

import symattn as sa                                        # noqa: E402
from symattn.cli import main                                # noqa: E402

mpmath.mp.dps = 40


def cell_texts(svg: str, gid: str) -> dict:
    """(i, j) -> the texts of the SVG group ``{gid}-cell-i-j`` joined by spaces."""
    out = {}
    for m in re.finditer(rf'<g id="{re.escape(gid)}-cell-(\d+)-(\d+)">(.*?)</g>', svg, re.S):
        texts = re.findall(r"<text[^>]*>([^<]*)</text>", m.group(3))
        out[(int(m.group(1)), int(m.group(2)))] = " ".join(texts)
    return out


def half_up(x, places: int) -> str:
    return str(Decimal(mpmath.nstr(x, 35)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP))


def test_heatmap_cells_are_the_certified_values():
    X = [["1.0", "0.5"], ["0.8", "1.2"], ["1.5", "0.7"]]
    A = sa.softmax(sa.matrix(X, rows=["I", "love", "cats"]) @ sa.matrix(X).T)
    svg = sa.plot.svg_text(sa.plot.heatmap(A, decimals=4, printed={(1, 2): "0.9999"},
                                           wrong={(1, 2)}, gid="t"))
    cells = cell_texts(svg, "t")
    assert len(cells) == 9
    Xm = [[mpmath.mpf(v) for v in row] for row in X]
    for i in range(3):
        s = [sum(a * b for a, b in zip(Xm[i], Xm[j])) for j in range(3)]
        total = sum(mpmath.exp(v) for v in s)
        for j in range(3):
            want = half_up(mpmath.exp(s[j]) / total, 4)
            assert cells[(i, j)].split()[0] == want
    assert "printed 0.9999" in cells[(1, 2)]               # the printed-vs-exact difference
    assert ">love<" in svg and ">cats<" in svg              # tokens on the axes, as text
    assert "<script" not in svg and "http://" not in svg.split(">", 1)[1].split("xlink")[0]


def test_heatmap_marks_masked_cells():
    S = sa.matrix([["1", "0", "1"], ["0", "1", "1"], ["1", "1", "2"]])
    A = sa.softmax(S + sa.causal_mask(3))
    cells = cell_texts(sa.plot.svg_text(sa.plot.heatmap(A, gid="m")), "m")
    masked = {ij for ij, t in cells.items() if t.startswith("masked")}
    assert masked == {(0, 1), (0, 2), (1, 2)}
    assert cells[(0, 0)].split()[0] == "1.0000"
    assert cells[(1, 0)].split()[0] == half_up(1 / (1 + mpmath.e), 4)


def test_heatmap_refuses_what_it_cannot_draw():
    with pytest.raises(sa.InputError):
        sa.plot.heatmap([[0.5, 0.5]])
    with pytest.raises(sa.ShapeError):
        sa.plot.heatmap(sa.matrix([["1"] * 21] * 20))


def test_sweep_values_follow_the_exact_curve():
    t = sa.symbols("t", 1)
    y = sa.softmax(sa.matrix([["1", "0"]]) * t)
    xs = sa.plot.grid("-2", "2", 9)
    assert xs[0] == -2 and xs[-1] == 2 and xs[1] == Fraction(-3, 2)
    data = sa.plot.sweep_values(y, t, xs, [(0, 0), (0, 1)])
    for x, a, b in zip(xs, data.ys[(0, 0)], data.ys[(0, 1)]):
        want = 1 / (1 + mpmath.exp(-mpmath.mpf(x.numerator) / x.denominator))
        assert abs(mpmath.mpf(a.numerator) / a.denominator - want) < mpmath.mpf("1e-11")
        assert abs(mpmath.mpf(b.numerator) / b.denominator - (1 - want)) < mpmath.mpf("1e-11")


def test_sweep_figure_has_its_printed_points():
    t = sa.symbols("t", 1)
    y = sa.softmax(sa.matrix([["1", "0"]]) * t)
    svg = sa.plot.svg_text(sa.plot.sweep(y, t, "0", "2", points=5, entries=[(0, 0)],
                                         printed=[("1", "0.7311", "73.11%")]))
    assert 'id="curve-0-0"' in svg and 'id="printed-0"' in svg and "73.11%" in svg


def test_grid_refuses_floats_and_empty_ranges():
    with pytest.raises(sa.InputError):
        sa.plot.grid(0.1, "1", 5)
    with pytest.raises(sa.InputError):
        sa.plot.grid("1", "1.0", 5)
    with pytest.raises(sa.InputError):
        sa.plot.grid("0", "1", 1)


def slider_truth(s) -> mpmath.mpf:
    """Article 003 ch. 4: A[眠る, 猫] with W_Q's second row [s, 1], by hand."""
    r = mpmath.sqrt(2)
    a, b = s / r, (s / 2 + 1) / r
    return mpmath.exp(a) / (mpmath.exp(a) + mpmath.exp(b))


def test_sweep_command_writes_svg_and_png(tmp_path, capsys):
    out = tmp_path / "slider.svg"
    code = main(["sweep", "003-ch4-slider-q01", "--vary", "W_Q[1,0]=0:1", "--points", "11",
                 "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    svg = out.read_text()
    assert 'id="printed-0"' in svg and "33%" in svg         # the article's printed point
    png = tmp_path / "slider.png"
    assert main(["sweep", "003-ch4-slider-q01", "--vary", "W_Q[1,0]=0:1", "--points", "5",
                 "-o", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert abs(slider_truth(0) - mpmath.mpf("0.33")) < mpmath.mpf("0.005")


def test_sweep_command_values_on_a_matrix_entry():
    from symattn.spec.load import load
    from symattn.cli.check import bundled
    spec = load(str(next(p for p in bundled() if p.stem == "003-ch4-slider-q01")))
    y = spec.tensors["A"]
    i, j = y.row_index("眠る"), y.col_index("猫")
    data = sa.plot.sweep_values(y, spec.tensors["W_Q"], sa.plot.grid("0", "1", 3), [(i, j)],
                                cell=(1, 0))
    for x, v in zip(data.xs, data.ys[(i, j)]):
        want = slider_truth(mpmath.mpf(x.numerator) / x.denominator)
        assert abs(mpmath.mpf(v.numerator) / v.denominator - want) < mpmath.mpf("1e-11")


@pytest.mark.parametrize("args, words", [
    (["--vary", "W_Q[1,0]=0"], "NAME=FROM:TO"),
    (["--vary", "W_Z=0:1"], "no input named 'W_Z'"),
    (["--vary", "W_Q=0:1"], "2×2"),
    (["--vary", "W_Q[1,0]=0:1", "--step", "nope"], "no step named 'nope'"),
    (["--vary", "W_Q[1,0]=0.1:0.1"], "range is empty"),
])
def test_sweep_command_bad_input_is_one_line(tmp_path, capsys, args, words):
    out = tmp_path / "x.svg"
    assert main(["sweep", "003-ch4-slider-q01", *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


def test_sweep_command_does_not_overwrite(tmp_path, capsys):
    out = tmp_path / "x.svg"
    out.write_text("mine")
    assert main(["sweep", "003-ch4-slider-q01", "--vary", "W_Q[1,0]=0:1", "-o", str(out)]) == 2
    assert "exists already" in capsys.readouterr().err
    assert out.read_text() == "mine"


SYMBOL_SPEC = """
[example]
id = "slider-t"
title = "softmax of [t, 0]"
tokens = ["q"]

[inputs]
t = { symbol = "t" }
X = { value = [[1, 0]], rows = "tokens" }

[[steps]]
name = "A"
expr = "softmax(t * X)"
"""


def test_sweep_command_on_a_symbol_input(tmp_path, capsys):
    spec = tmp_path / "t.toml"
    spec.write_text(SYMBOL_SPEC)
    out = tmp_path / "t.svg"
    assert main(["sweep", str(spec), "--vary", "t=-3:3", "--step", "A", "--points", "7",
                 "-o", str(out)]) == 0
    assert "2 curves, 0 printed points" in capsys.readouterr().err
    svg = out.read_text()
    assert 'id="curve-0-0"' in svg and 'id="curve-0-1"' in svg
