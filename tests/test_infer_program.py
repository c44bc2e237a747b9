"""The derivations an article's program states (symattn.infer.program, .torch_terms).

Truths: NumPy's and Python's own statistics (``statistics.pstdev``/``stdev`` on decimal
strings), never the code under test."""

from __future__ import annotations

import ast
import json
import statistics
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from symattn import matrix
from symattn.evaluation import float_value
from symattn.infer.torch_terms import Terms, Unknown, Value
from symattn.spec import expr as E
from symattn.spec.build import build

ROOT = Path(__file__).resolve().parents[1]
X = [[4, 3, 1], [0, 2, 0]]


def _translate(code: str, lib: str = "torch"):
    env = {"x": Value("X", (2, 3), frozenset({0}), lib)}
    return Terms(code, [1], None).value(ast.parse(code).body[0].value, None, env)


def _evaluate(text: str) -> np.ndarray:
    return np.asarray(float_value(build(E.parse(text), {"X": matrix(X)})), dtype=float)


@pytest.mark.parametrize("code, lib, truth", [
    ("x.std(dim=-1)", "torch", np.std(X, axis=-1, ddof=1)),          # PyTorch: unbiased
    ("x.std(axis=-1)", "numpy", np.std(X, axis=-1)),                  # NumPy: biased
    ("x.var(dim=-1, unbiased=False)", "torch", np.var(X, axis=-1)),
    ("x.var(dim=1, correction=0)", "torch", np.var(X, axis=1)),
    ("x.std(axis=0, ddof=1)", "numpy", np.std(X, axis=0, ddof=1)),
    ("x.mean(dim=-1, keepdim=True)", "torch", np.mean(X, axis=-1, keepdims=True)),
    ("x.mean(-1).unsqueeze(1)", "torch", np.mean(X, axis=-1)[:, None]),
    ("x.std()", "torch", np.std(X, ddof=1)),                          # all six entries
    ("x.var()", "numpy", np.var(X)),
    ("x.sum()", "torch", np.sum(X)),
    ("x.softmax(dim=0)", "torch", np.exp(X) / np.exp(X).sum(axis=0)),
    ("x.T @ x", "torch", np.array(X).T @ np.array(X)),
    ("(x - x.mean(dim=-1, keepdim=True)) / torch.sqrt(x.var(dim=-1, keepdim=True, unbiased=False) + 1e-5)",
     "torch", (np.array(X) - np.mean(X, -1, keepdims=True)) / np.sqrt(np.var(X, -1, keepdims=True) + 1e-5)),
])
def test_a_term_means_what_the_library_computes(code, lib, truth):
    v = _translate(code, lib)
    got = _evaluate(v.text)
    truth = np.asarray(truth, dtype=float)
    assert got.size == truth.size and np.allclose(got.reshape(truth.shape), truth, rtol=1e-12)
    assert v.shape == truth.shape                  # the library's shape, kept


@pytest.mark.parametrize("code", ["x.median(dim=-1)", "x - x.mean(dim=-1)", "np.random.rand(3)",
                                  "x.std(dim=2)", "x[1:]"])
def test_what_has_no_known_meaning_is_unknown(code):
    """An unknown call, a broadcast PyTorch refuses ((2,) against (2, 3)), an axis the value
    lacks, a slice: no translation, nothing guessed."""
    with pytest.raises(Unknown):
        _translate(code)


POST = '''# LayerNorm statistics by hand

```python
import torch
x = torch.tensor([[0.1, 0.3, -0.2, 0.8],
                  [0.5, -0.3, 0.2, 0.6]])
print(f"Stds per token: {{x.std(dim=-1)}}")
print(f"Means per token: {{x.mean(dim=-1)}}")
```

Output:
```
Stds per token: tensor([{s0}, {s1}])
Means per token: tensor([0.2500, 0.2500])
```
'''


def _stds(estimator) -> list[str]:
    rows = [["0.1", "0.3", "-0.2", "0.8"], ["0.5", "-0.3", "0.2", "0.6"]]
    return [f"{Decimal(estimator([Decimal(v) for v in r])).quantize(Decimal('0.0001'))}" for r in rows]


def _check(tmp_path, text: str) -> dict:
    post = tmp_path / "post.md"
    post.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(post)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    return {(c["line"], c["printed"]): c for c in json.loads(r.stdout)["claims"]}


def test_a_printout_of_the_biased_std_under_torch_std_is_wrong(tmp_path):
    """``x.std(dim=-1)`` is PyTorch's unbiased estimator: the population values printed
    under it are wrong, with the diagnosis; the means under ``x.mean`` are right."""
    s0, s1 = _stds(statistics.pstdev)
    claims = _check(tmp_path, POST.format(s0=s0, s1=s1))
    std = claims[(13, s0)]
    assert std["verdict"] == "wrong" and any("biased variance" in d for d in std["diagnosis"])
    assert Decimal(std["exact"]).quantize(Decimal("0.0001")) == Decimal(_stds(statistics.stdev)[0])
    assert claims[(14, "0.2500")]["verdict"] == "correct"


def test_a_printout_of_the_unbiased_std_under_torch_std_is_right(tmp_path):
    s0, s1 = _stds(statistics.stdev)
    claims = _check(tmp_path, POST.format(s0=s0, s1=s1))
    assert claims[(13, s0)]["verdict"] == claims[(13, s1)]["verdict"] == "correct"


def test_a_printout_of_another_shape_derives_nothing(tmp_path):
    """The output prints three stds where the program computes two: the run was of another
    program; nothing is derived from this one for it (no number called wrong)."""
    post = tmp_path / "post.md"
    post.write_text(POST.format(s0="0.1000, 0.2000", s1="0.3000"), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(post)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    if r.returncode == 2:                      # nothing derived at all: a one-line refusal
        assert "no worked example found" in r.stderr
        return
    claims = json.loads(r.stdout)["claims"]
    assert not [c for c in claims if c["line"] == 13 and c["verdict"] == "wrong"]


def test_row_labels_from_the_comments_of_a_list_literal():
    """``[0.1, 0.3],  # "Hello"``: each row's comment labels it; comments of several words
    (``# Your (x^1)``) label nothing."""
    from symattn.article.matrices import find
    from symattn.article.source import Line
    code = ['x = [', '    [0.1, 0.3],   # "Hello"', "    [0.0, 0.1],   # ','", '    [0.5, -0.3]   # how', ']']
    got = find([Line(k + 1, t, "code") for k, t in enumerate(code)])
    assert [p.rows for p in got] == [("Hello", ",", "how")]
    two_words = [t.replace('# "Hello"', "# Your  (x^1)") for t in code]
    assert [p.rows for p in find([Line(k + 1, t, "code") for k, t in enumerate(two_words)])] == [None]


def test_a_vector_of_cells_glued_to_their_labels_is_a_candidate():
    from symattn.article.source import Line
    from symattn.infer.vectors import flattened_rows
    got = flattened_rows([Line(7, "成分10成分2-1.414成分31.414成分40")])
    assert [(p.line, p.texts) for p in got] == [(7, (("0", "-1.414", "1.414", "0"),))]


SOFTMAX_BY_HAND = """# Softmax by hand

Scores [1, 1, 2] become weights:

exp(1) = 2.718
exp(1) = 2.718
exp(2) = 7.389
sum = 12.825

weights = [2.718 / 12.825, 2.718 / 12.825, 7.389 / 12.825] = [0.212, 0.212, 0.576]
"""


def test_a_sum_of_the_printed_exponentials_is_carried_from_them(tmp_path):
    """The text adds its rounded exponentials: 12.825, where e + e + e² rounds to 12.826
    (mpmath); the check calls it carried from the printed terms, not right, not wrong."""
    import mpmath
    exact = mpmath.e + mpmath.e + mpmath.e ** 2
    assert mpmath.nstr(exact, 5) == "12.826" and Decimal("2.718") * 2 + Decimal("7.389") == Decimal("12.825")
    claims = _check(tmp_path, SOFTMAX_BY_HAND)
    assert claims[(8, "12.825")]["verdict"] == "carried"


def test_a_hostile_program_is_no_crash(tmp_path):
    """Parentheses nested past the parser's limit, a sum of 3000 terms (past the recursion
    limit when followed): no program, no traceback; the one-line refusal or a check."""
    deep = ("x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])\ny = " + "(" * 900 + "x" + ")" * 900 +
            '\nprint(f"Y: {y.std(dim=-1)}")\nz = ' + " + ".join(["x"] * 3000) +
            '\nprint(f"Z: {z.mean(dim=-1)}")\n')
    post = tmp_path / "post.md"
    post.write_text(f"# t\n\n```python\n{deep}```\n\n```\nY: tensor([0.7071, 0.7071])\n"
                    "Z: tensor([4.5000, 10.5000])\n```\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", str(post)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode in (0, 1, 2) and "Traceback" not in r.stderr and len(r.stderr.splitlines()) <= 1


def test_an_expression_displayed_is_derived_by_its_program(tmp_path):
    """A REPL's last line (``-torch.log(F.softmax(logits, dim=1))``) and the printout just
    below it, in a string: derived by the program, checked against mpmath's values."""
    import mpmath
    z = [mpmath.mpf(v) for v in ("-0.5", "0.25", "1.0")]
    total = sum(mpmath.e ** v for v in z)
    want = [mpmath.nstr(-mpmath.log(mpmath.e ** v / total), 5) for v in z]
    text = ("# Cross-entropy\n\n```python\nfrom torch import tensor\nimport torch.nn.functional as F\n"
            "logits = tensor([[-0.5, 0.25, 1.0]])\n-torch.log(F.softmax(logits, dim=1))\n"
            f'"""\ntensor([[{want[0]}, {want[1]}, {want[2]}]])\n"""\n```\n')
    claims = _check(tmp_path, text)
    got = [c for (line, _), c in claims.items() if line == 9]
    assert len(got) == 3 and all(c["verdict"] == "correct" for c in got), claims
