"""The primitives, each declared once: everything the engine knows about it stands beside it.

A :class:`Primitive` (the model is JAX's) carries its name and arity; its evaluation in
each context — exact (SymPy), ball (python-flint ``arb``, and exact ``fmpq`` while the
value stays rational), float (NumPy), formal (rational functions of unknowns) — or, for a
matrix-level primitive, the context method it maps to; what −∞ (a mask entry) does to it
and its domain checks; its derivative rule for reverse mode; its closed-form size rule
and cost class; whether it keeps rationals rational; whether it is an atom for the formal
proof of zeros; and its LaTeX form. Every table of primitive names the engine uses is
derived here from the declarations, so adding a primitive is one declaration (plus tests).

The kinds:

- ``function``: an elementwise function of one entry, evaluated by one generic path of
  each context from the rules below (exp, log, sqrt, sin, cos, abs, relu, finite, erf, tanh);
- ``constant``: a nullary 1×1 value (π);
- ``arithmetic``: the field operations and powers (neg, add, sub, mul, div, pow), context
  methods ``op_<name>`` over the scalar operations ``s_add``, ``s_mul``, ...;
- ``structure``: matrix-level primitives (const, matmul, transpose, take, hcat, vcat,
  row_sum, row_max, stabilize, patch), context methods ``op_<name>``.

Rules given as a string name the library's own function: ``sympy.<name>`` (exact),
``flint.arb.<name>`` (ball), ``numpy.<name>`` (float). Rules given as a callable take the
context first. This package imports no other part of symattn but ``tensor`` and
``errors`` (and no SymPy, FLINT or NumPy at import time).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

KINDS = ("function", "constant", "arithmetic", "structure")
COSTS = ("entry", "function", "product")     # an evaluation's time per entry (size.estimate)


class _Refuse:
    """The −∞ rule of a function that has no value at −∞: a MaskError."""

    def __repr__(self) -> str:
        return "REFUSE"


REFUSE = _Refuse()


@dataclass(frozen=True)
class Tex:
    """How a function is written: ``fn`` before its parenthesised argument (``\\exp``),
    or ``wrap`` around it (``\\sqrt{%s}``); ``power`` for a scalar argument written as a
    power (``e^{%s}``); ``entry`` for one entry written out with numbers (default: as in
    symbols). For a matrix-level primitive ``fn`` is a template of its operands
    (``{0} {1}``), for reading only."""
    fn: str | None = None
    wrap: str | None = None
    power: str | None = None
    entry: str | None = None


@dataclass(frozen=True, eq=False)
class Primitive:
    """One primitive and every rule about it (see the module docstring)."""
    name: str
    arity: int | None                         # None: any number of operands (hcat, vcat)
    kind: str
    doc: str
    neg_inf: Any                              # a function: its value at −∞ or REFUSE;
                                              # otherwise the rule in words
    derivative: Callable                      # function: (bp, v, x, out, arg, i, j) -> adjoint
                                              # else: (bp, node, g, out, args, need) -> [adjoints]
    size: Callable                            # (node, sizes of the operands) -> tree size
    cost: str
    rational: bool | Callable                 # keeps rationals rational (or a test of the node)
    atom: bool                                # may be an unknown of the formal proof of zeros
    latex: Tex
    exact: Any = None                         # function/constant rules (see the docstring)
    ball: Any = None
    float: Any = None
    fold: Callable | tuple | None = None      # its exact rational value at a rational c (an
                                              # fmpq), or None; or (point, value) for one
                                              # point: the ball context's fmpq and the
                                              # formal context's constant folding
    domain: Callable | None = None            # (ctx, node, x): raise where undefined
    float_check: Callable | None = None       # (node, array): raise where undefined
    builder: str | None = None                # the name of its builder in symattn.ops
    method: str | None = None                 # arithmetic/structure: the context method

    def __post_init__(self):
        if self.kind not in KINDS or self.cost not in COSTS:
            raise ValueError(f"primitive {self.name}: kind {self.kind!r}, cost {self.cost!r}")
        if self.kind in ("arithmetic", "structure") and self.method is None:
            object.__setattr__(self, "method", "op_" + self.name)

    def folded(self, c):
        """The exact value at the rational ``c`` if the declaration gives one, else None."""
        f = self.fold
        if f is None:
            return None
        if type(f) is tuple:
            return f[1] if c == f[0] else None
        return f(c)

    def keeps_rational(self, node) -> bool:
        """Whether this node's value is rational when its operands' are."""
        r = self.rational
        return r(node) if callable(r) else r

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"


PRIMITIVES: dict[str, Primitive] = {}


def declare(**rules) -> Primitive:
    """Register one primitive (a name declared twice is an error)."""
    p = Primitive(**rules)
    if p.name in PRIMITIVES:
        raise ValueError(f"primitive {p.name} declared twice")
    PRIMITIVES[p.name] = p
    return p


def size_plus_one(node, a) -> int:
    """An elementwise function or power: one node above its operand's tree."""
    return a[0] + 1


def same_size(node, a) -> int:
    """A primitive that moves or keeps entries: its operand's tree."""
    return a[0]


def is_rational_entry(v) -> bool:
    """An entry of a constant that is an exact rational, or −∞."""
    from ..tensor import NEG_INF
    return v is NEG_INF or type(v) is Fraction


from . import arithmetic, functions, piecewise, constants, structure  # noqa: E402,F401  (registers)

# -- the tables every other module reads ------------------------------------------------
FUNCTIONS = tuple(p.name for p in PRIMITIVES.values() if p.kind == "function")
CONSTANTS = tuple(p.name for p in PRIMITIVES.values() if p.kind == "constant")
UNARY = tuple(p.name for p in PRIMITIVES.values()
              if p.arity == 1 and p.kind in ("function", "arithmetic") and p.name != "pow")
BINARY = tuple(p.name for p in PRIMITIVES.values() if p.arity == 2 and p.kind == "arithmetic")
ATOMS = frozenset(p.name for p in PRIMITIVES.values() if p.atom)
TRANSCENDENTAL = frozenset(p.name for p in PRIMITIVES.values() if p.cost == "function")
FUNCTION_TEX = {p.name: p.latex for p in PRIMITIVES.values() if p.kind == "function"}
CONSTANT_TEX = {p.name: p.latex for p in PRIMITIVES.values() if p.kind == "constant"}


def keeps_rational(node) -> bool:
    """Whether ``node`` is rational when its operands are (a constant: its entries are)."""
    return PRIMITIVES[node.op].keeps_rational(node)
