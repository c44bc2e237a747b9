"""A softmax worked by hand is a chain of steps over its block (each exponential, their sum,
the quotients); the numbers its part prints are claims on them. A probability restated
further down still belongs to it: each number that prints a value of its steps again moves
the end of its part on (:data:`symattn.infer.chains.SLACK` lines past it), so a wrong
restatement after it is listed unverified, not left out of the example.

Truths: worked out here with ``mpmath`` at 30 digits, never by symattn.
"""

from __future__ import annotations

import mpmath
from conftest import check_post

mpmath.mp.dps = 30


def test_probabilities_restated_below_the_chain_are_its_claims(tmp_path):
    logits = ["2.0", "1.0", "0.5", "0.0"]
    e = [mpmath.exp(mpmath.mpf(z)) for z in logits]
    p = [x / mpmath.fsum(e) for x in e]
    shown = [f"{float(x):.2f}" for x in p]
    assert shown == ["0.58", "0.21", "0.13", "0.08"]
    lines = ["# Sampling", "", "```", "Tokens:  [\"on\", \"the\", \"mat\", \"in\"]",
             "Logits:  [2.0,   1.0,   0.5,   0.0]", "",
             "  e^2.0 = 7.39    e^1.0 = 2.72    e^0.5 = 1.65    e^0.0 = 1.00",
             "  sum = 7.39 + 2.72 + 1.65 + 1.00 = 12.76", "",
             "  P(\"on\")  = 7.39 / 12.76 = 0.58", "  P(\"the\") = 2.72 / 12.76 = 0.21",
             "  P(\"mat\") = 1.65 / 12.76 = 0.13", "  P(\"in\")  = 1.00 / 12.76 = 0.08", "```", ""]
    lines += ["Some words about sampling."] * 3
    lines += ["", "## Greedy", "", "```", "P(\"on\")=0.58, P(\"the\")=0.21 → picks \"on\"", "```", ""]
    lines += ["More words about picking."] * 4
    lines += ["", "```", "P(\"on\")=0.58, P(\"mat\")=0.14", "```", ""]   # 0.14: 0.13 mistyped
    out = check_post(tmp_path, "\n".join(lines))
    greedy = lines.index("P(\"on\")=0.58, P(\"the\")=0.21 → picks \"on\"") + 1
    last = lines.index("P(\"on\")=0.58, P(\"mat\")=0.14") + 1
    at = {(c["line"], c["printed"]): c for c in out["claims"]}
    for line, printed, k in ((greedy, "0.58", 0), (greedy, "0.21", 1), (last, "0.58", 0)):
        c = at[(line, printed)]
        assert c["verdict"] == "correct" and abs(mpmath.mpf(c["exact"]) - p[k]) < 1e-18
    assert (last, "0.14") not in at                  # no entry prints it: near one, unverified
    assert [(u["line"], u["text"]) for u in out["unmatched"]] == [(last, "0.14")]
