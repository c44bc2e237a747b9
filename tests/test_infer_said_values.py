"""A parameter the text says (or, worked by hand, the value a hand computation uses: ε = 0)
is tried first and free; every other value, the library default included, costs a choice,
so a tie between them goes to what the text says. A LayerNorm worked by hand whose rounded
operands fit both ε = 0 and ε = 1e-5 was taken with 1e-5, and the exact chain then called
its right prints wrong."""

from __future__ import annotations

from symattn.infer.forms import forms


def costs(text: str) -> dict:
    return {f.template: f.cost for f in forms(text) if f.op == "layer_norm" and "variance" not in f.template}


def test_by_hand_the_default_epsilon_costs_a_choice():
    got = costs("We normalise the row by hand: the mean is 0.5 and the variance 0.25.")
    assert got["layer_norm({0}, eps=0)"] < got["layer_norm({0}, eps=0.00001)"]
    assert got["layer_norm({0}, eps=0)"] == 1


def test_a_stated_epsilon_is_first_and_the_default_costs():
    got = costs("LayerNorm with ε = 1e-6 on each row.")
    assert got["layer_norm({0}, eps=0.000001)"] == 1
    assert all(c > 1 for t, c in got.items() if t != "layer_norm({0}, eps=0.000001)")


def test_with_a_framework_its_default_is_free():
    got = costs("import torch\nln = torch.nn.LayerNorm(4)\n")
    assert got["layer_norm({0})"] == 1 and got["layer_norm({0}, eps=0)"] == 2
