"""Rows a code block names by their token: ``score(the) = [ q_the.k_the, … ] = [2, 0, 2]``,
``the -> [0.4223, 0.1554, 0.4223]``, ``pos 1 (cat) -> [0.8415, …]``. Each list is a vector
of the article (named ``score_the``, ``the``, ``pos_1_cat``), so the softmax of a row of
scores is derived and a slip in it judged, with no spec.

Truths: softmax worked out here with ``mpmath`` at 30 digits, never by symattn.
"""

from __future__ import annotations

import mpmath
import pytest
from conftest import check_post

from symattn.article.matrices import find
from symattn.article.source import Line

mpmath.mp.dps = 30


@pytest.mark.parametrize("text, name", [
    ("score(the) = [ q_the.k_the, q_the.k_cat ] = [2.5, 0.5]", "score_the"),
    ("output(cat) = [0.5777, 0.8446]", "output_cat"),
    ("the -> [0.4223, 0.1554]", "the"),
    ("pos 1 (cat) -> [0.8415, 0.5403]", "pos_1_cat"),
    ("cat → [0.8415, 0.5403]", "cat"),
    ("PE(1) ≈ [0.841, 0.540]", "PE_1"),
])
def test_a_row_named_by_its_token_is_a_vector(text, name):
    got = find([Line(1, text, "code")])
    assert [(p.name, p.shape) for p in got] == [(name, (1, 2))]


@pytest.mark.parametrize("text", ["cat attends most -> [0.8415, 0.5403]", "see [0.8415, 0.5403]"])
def test_prose_before_a_list_names_nothing(text):
    assert find([Line(1, text, "code")]) == []


def _softmax(row):
    e = [mpmath.exp(mpmath.mpf(x)) for x in row]
    return [x / sum(e) for x in e]


def test_softmax_rows_named_by_token_are_derived_and_a_slip_flagged(tmp_path):
    scores = {"the": ["1.5", "0.5", "1.0"], "cat": ["0.5", "1.5", "1.0"], "sat": ["1.0", "1.0", "2.0"]}
    shown = {t: [mpmath.nstr(w, 4, strip_zeros=False) for w in _softmax(r)] for t, r in scores.items()}
    shown["sat"][2] = "0.5726"                          # 0.5761 with two digits swapped
    assert mpmath.nstr(_softmax(scores["sat"])[2], 4) == "0.5761"
    text = "\n".join(["# Attention for the cat sat", "", "```",
                      *[f"score({t}) = [ q_{t}.k_the, q_{t}.k_cat, q_{t}.k_sat ] = [{', '.join(r)}]"
                        for t, r in scores.items()], "```", "", "Softmax of each row:", "", "```",
                      *[f"{t} -> [{', '.join(w)}]" for t, w in shown.items()], "```", ""])
    out = check_post(tmp_path, text)
    for k, t in enumerate(scores):
        row = sorted((c for c in out["claims"] if c["line"] == 12 + k), key=lambda c: int(c["at"][-1]))
        assert [c["printed"] for c in row] == shown[t]
        for j, (c, w) in enumerate(zip(row, _softmax(scores[t]))):
            assert abs(mpmath.mpf(c["exact"]) - w) < mpmath.mpf("1e-20")
            assert c["verdict"] == ("wrong" if (t, j) == ("sat", 2) else "correct")


def test_a_row_worked_like_the_two_before_it_is_judged_with_its_slip(tmp_path):
    """Scores of whole numbers, ``d_k = 4``: each weights row is softmax(score / 2). The last
    prints 0.5762 for 0.5761, so it reproduces two entries of three, too few on its own; the
    two rows before it say how it is worked (:mod:`symattn.infer.alike`), and the slip is
    flagged. The scaled rows written ``[2,0,2] / 2 = [1, 0, 1]`` are no weights."""
    scores = {"the": ["2", "0", "2"], "cat": ["0", "2", "2"], "sat": ["2", "2", "4"]}
    halves = {t: [str(int(x) // 2) for x in r] for t, r in scores.items()}
    shown = {t: [mpmath.nstr(w, 4, strip_zeros=False) for w in _softmax(halves[t])] for t in scores}
    assert shown["sat"] == ["0.2119", "0.2119", "0.5761"]
    shown["sat"][2] = "0.5762"
    text = "\n".join(["# The cat sat", "", "```", "the = [1, 0, 1, 0]", "cat = [0, 1, 0, 1]",
                      "sat = [1, 1, 1, 1]", "```", "", "Q = K = V = the embeddings.", "",
                      "Here d_k = 4, so sqrt(d_k) = 2.", "", "```",
                      *[f"score({t}) = [ q_{t}.k_the, q_{t}.k_cat, q_{t}.k_sat ] = [{', '.join(r)}]"
                        for t, r in scores.items()], "```", "", "```",
                      *[f"{t}: [{','.join(scores[t])}] / 2 = [{', '.join(halves[t])}]" for t in scores],
                      "```", "", "```", *[f"{t} -> [{', '.join(w)}]" for t, w in shown.items()], "```", ""])
    out = check_post(tmp_path, text)
    lines = text.splitlines()
    row = sorted((c for c in out["claims"] if c["line"] == lines.index(f"sat -> [{', '.join(shown['sat'])}]") + 1),
                 key=lambda c: int(c["at"][-1]))
    assert [(c["printed"], c["verdict"]) for c in row] == [("0.2119", "correct"), ("0.2119", "correct"),
                                                           ("0.5762", "wrong")]
    assert abs(mpmath.mpf(row[2]["exact"]) - _softmax(halves["sat"])[2]) < mpmath.mpf("1e-20")
    halved = [lines.index(f"{t}: [{','.join(scores[t])}] / 2 = [{', '.join(halves[t])}]") + 1 for t in scores]
    assert not [c for c in out["claims"] if c["line"] in halved and c["verdict"] != "correct"]
