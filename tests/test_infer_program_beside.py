"""A program whose prints show their output in a comment on the same line, checked with no
spec:

- ``print(x + y)  # tensor([5., 7., 9.])``: the printout is x + y's, right or wrong;
- ``loss = nn.CrossEntropyLoss()(logits, torch.tensor([0]))`` (module or
  ``F.cross_entropy``, the target a literal class index) then ``print(loss)  #
  tensor(0.2402)``: the loss is cross-entropy's, its wrong print flagged;
- a printout beside a print the program's terms do not know (``x.max()``) is no claim on
  a step that happens to be near it.

Truths: fractions and mpmath at 30 digits, never symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction as F

import mpmath

from conftest import check_post

mpmath.mp.dps = 30


def ce(logits, target):
    e = [mpmath.exp(mpmath.mpf(v)) for v in logits]
    return -mpmath.log(e[target] / sum(e))


PROGRAM = """```python
x = torch.tensor([1.0, 2.0, 3.0])
y = torch.tensor([4.0, 5.0, 6.0])
print(x + y)       # tensor([5., 7., {s}])
print(x.max())     # tensor(3.)
```

```python
loss_fn = {module}
logits = torch.tensor([[2.0, 1.0, 0.5, 0.1]])
target = torch.tensor([0])
loss = {call}
print(loss)   # tensor({loss}) — the smaller the better
loss_2 = loss_fn(logits * 2, target)
print(loss_2)   # tensor(0.1885)
```
"""


def test_printouts_beside_their_prints_are_claims_of_what_the_program_computes(tmp_path):
    assert [F(a) + F(b) for a, b in zip(["1.0", "2.0", "3.0"], ["4.0", "5.0", "6.0"])] == [5, 7, 9]
    loss = ce(["2.0", "1.0", "0.5", "0.1"], 0)
    assert mpmath.nstr(loss, 4) == "0.5542"
    assert mpmath.nstr(ce(["4.0", "2.0", "1.0", "0.2"], 0), 4) == "0.1885"
    for module, call in (("nn.CrossEntropyLoss()", "loss_fn(logits, target)"),):
        d = check_post(tmp_path, PROGRAM.format(s="8.", module=module, call=call, loss="0.2402"))
        got = {(c["line"], c["printed"]): c["verdict"] for c in d["claims"]}
        assert got[(4, "5")] == "correct" and got[(4, "8")] == "wrong"
        assert got[(13, "0.2402")] == "wrong"              # far from 0.5542: said by its line
        assert not [c for c in d["claims"] if c["line"] == 5]          # x.max(): unknown
        assert got[(15, "0.1885")] == "correct"
    d = check_post(tmp_path, PROGRAM.format(s="9.", module="nn.CrossEntropyLoss()",
                                       call="loss_fn(logits, target)", loss="0.5542"))
    assert {c["verdict"] for c in d["claims"]} == {"correct"}
    d = check_post(tmp_path, PROGRAM.format(s="9.", module="None", call="F.cross_entropy(logits, target)",
                                       loss="0.5542"))
    assert (13, "0.5542", "correct") in {(c["line"], c["printed"], c["verdict"]) for c in d["claims"]}
    assert (13, "0.5542") in {(c["line"], c["printed"]) for c in d["claims"]}


def test_a_lone_printout_on_the_line_a_scalar_step_is_said_printed_on_is_its_claim(tmp_path):
    """A spec says step ``s`` is printed on line 3; the printout there is named by nothing
    (``print(out)``) and far from its value (0.5542): still its claim, wrong."""
    spec = ('[example]\nid = "ce"\nsource = "post.md"\n[inputs]\nz = [[2.0, 1.0, 0.5, 0.1]]\n'
            '[[steps]]\nname = "s"\nexpr = "cross_entropy(z, [0])"\nline = 3\n')
    (tmp_path / "ex.toml").write_text(spec, encoding="utf-8")
    (tmp_path / "post.md").write_text("```python\nout = f(z)\nprint(out)   # tensor(0.2402)\n```\n",
                                      encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "ex.toml", "--article", "post.md",
                        "--json"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert [(c["step"], c["printed"], c["verdict"]) for c in json.loads(r.stdout)["claims"]] == \
        [("s", "0.2402", "wrong")]
