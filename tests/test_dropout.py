"""Dropout, declared once (symattn/ops/dropout.py): x ⊙ mask / (1 − p), exactly; the
forgotten scaling diagnosed; and found with no spec where a post prints the activations,
the mask (captions on lines of their own, in a code block that is no Python) and the
result, the mask only ever a block of 0s and 1s. Truths: fractions, never symattn."""

from fractions import Fraction as F

import pytest

import symattn as sa
from conftest import check_post
from symattn.errors import InputError

X = ["0.5", "-0.3", "0.8", "0.2", "-0.1", "0.6"]
MASK = [1, 1, 0, 1, 1, 0]


def inverted(p: str) -> list:
    return [F(x) * m / (1 - F(p)) for x, m in zip(X, MASK)]


def test_dropout_is_the_kept_entries_over_the_keep_probability():
    got = sa.dropout(sa.matrix([X]), sa.matrix([MASK]), "0.2").exact()
    assert [F(str(v)) for v in got] == inverted("0.2")
    default = sa.dropout(sa.matrix([X]), sa.matrix([MASK])).exact()
    assert [F(str(v)) for v in default] == inverted("0.1")
    with pytest.raises(InputError, match="one 0/1 entry per entry"):
        sa.dropout(sa.matrix([X]), sa.matrix([[1, 0]]))
    for p in ("1", "-0.1"):                          # nothing kept, or a negative probability
        with pytest.raises(InputError, match="no drop probability"):
            sa.dropout(sa.matrix([X]), sa.matrix([MASK]), p)


def two(x: F) -> str:
    from decimal import Decimal, ROUND_HALF_UP
    return str((Decimal(x.numerator) / Decimal(x.denominator)).quantize(Decimal("0.01"), ROUND_HALF_UP))


def post(shown: list) -> str:
    return "\n".join([
        "## Dropout", "", "```python", "# Forward pass with dropout=0.1 (10% drop rate)", "",
        "Original activations:", f"  [{', '.join(X)}]", "",
        "Random mask (90% keep, 10% drop):", f"  [{', '.join(map(str, MASK))}]  ← 0 means \"turn off\"", "",
        "Scaled by 1/(1-dropout) = 1/0.9 = 1.11 to maintain expected value:", f"  [{', '.join(shown)}]",
        "```", ""])


def test_a_dropout_worked_in_a_post_is_found_and_its_slip_flagged(tmp_path):
    exact = inverted("0.1")
    shown = [two(v) for v in exact]
    assert shown == ["0.56", "-0.33", "0.00", "0.22", "-0.11", "0.00"]
    shown[3] = "0.20"                               # the scaling forgotten on one entry
    out = check_post(tmp_path, post(shown))
    steps = [s["expr"] for e in out["inferred"] for s in e["steps"]]
    assert "dropout(M7, M10, p=0.1)" in steps
    claims = {(c["at"][1], c["printed"]): c for c in out["claims"] if c["line"] == 13}
    assert len(claims) == 6
    for (j, printed), c in claims.items():
        assert abs(F(c["exact"]) - exact[int(j)]) < F(1, 10 ** 15)
        assert c["verdict"] == ("wrong" if j == "3" else "correct")


def test_no_dropout_with_a_mask_that_is_not_zeros_and_ones(tmp_path):
    """The same post with a gate of 0.5s where the mask is (``[1, 1, 0, 0.5, 1, 0]``) and the
    result x ⊙ gate / 0.9 printed: it fits dropout's formula, but a gate is no mask of 0s
    and 1s, so no dropout is inferred."""
    gate = ["1", "1", "0", "0.5", "1", "0"]
    shown = [two(F(x) * F(g) / F("0.9")) for x, g in zip(X, gate)]
    text = post(shown).replace(f"[{', '.join(map(str, MASK))}]", f"[{', '.join(gate)}]")
    assert "[1, 1, 0, 0.5, 1, 0]" in text
    out = check_post(tmp_path, text)
    assert not [s for e in out["inferred"] for s in e["steps"] if "dropout" in s["expr"]]
