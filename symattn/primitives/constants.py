"""Nullary primitives: exact constants a graph can use (π, for GELU's tanh form √(2/π))."""

from __future__ import annotations

from . import Tex, declare


declare(name="pi", arity=0, kind="constant", builder="pi", doc="π, exactly (a 1×1 Tensor).",
        exact="pi", ball="pi", float="pi", neg_inf="not an operand",
        derivative=lambda bp, node, g, out, args, need: [],      # no operands
        size=lambda node, a: 1, cost="entry", rational=False, atom=True,
        latex=Tex(wrap=r"\pi"))
