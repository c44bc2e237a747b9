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

from typing import Any, Callable

KINDS = ("function", "constant", "arithmetic", "structure")
COSTS = ("entry", "function", "product")     # an evaluation's time per entry (size.estimate)


class _Refuse:
    """The −∞ rule of a function that has no value at −∞: a MaskError."""

    def __repr__(self) -> str:
        return "REFUSE"


REFUSE = _Refuse()


class Tex:
    """How a function is written: ``fn`` before its parenthesised argument (``\\exp``),
    or ``wrap`` around it (``\\sqrt{%s}``); ``power`` for a scalar argument written as a
    power (``e^{%s}``); ``entry`` for one entry written out with numbers (default: as in
    symbols). For a matrix-level primitive ``fn`` is a template of its operands
    (``{0} {1}``), for reading only."""

    __slots__ = ("fn", "wrap", "power", "entry")

    def __init__(self, fn: str | None = None, wrap: str | None = None,
                 power: str | None = None, entry: str | None = None):
        self.fn, self.wrap, self.power, self.entry = fn, wrap, power, entry


# (a plain class, not a dataclass: it is built at ``import symattn``, which must stay fast)
class Primitive:
    """One primitive and every rule about it (see the module docstring).

    - ``name``, ``arity`` (None: any number of operands, as hcat), ``kind``, ``doc``;
    - ``neg_inf``: a function's value at −∞ (a Fraction) or REFUSE; otherwise the rule
      in words;
    - ``derivative``: a function's ``(bp, v, x, out, arg, i, j) -> adjoint of x``, else
      ``(bp, node, g, out, args, need) -> [adjoint of each operand]``;
    - ``size``: ``(node, sizes of the operands) -> tree size``; ``cost``: one of COSTS;
    - ``rational``: keeps rationals rational (a bool, or a test of the node);
    - ``atom``: may be an unknown of the formal proof of zeros; ``latex``: a :class:`Tex`;
    - ``exact``, ``ball``, ``float``: a function's or constant's rule in each context;
    - ``fold``: its exact rational value at a rational c (an fmpq) or None, or
      ``(point, value)`` for one point: the ball context's exact ``fmpq`` and the formal
      context's constant folding;
    - ``domain``: ``(ctx, node, x)`` raising where undefined; ``float_check``:
      ``(node, array)`` the same in floats;
    - ``builder``: its builder's name in :mod:`symattn.ops`; ``method``: the context
      method of an arithmetic or structure primitive (``op_<name>``);
    - ``search``: a function that inferring an example tries on a printed block
      (``exp``, ``relu``: :mod:`symattn.infer`); ``"last"``: after every other form
      (``sin``, ``cos``: a positional encoding's parts, rarer than a block's bias).
    """

    __slots__ = ("name", "arity", "kind", "doc", "neg_inf", "derivative", "size", "cost",
                 "rational", "atom", "latex", "exact", "ball", "float", "fold", "domain",
                 "float_check", "builder", "method", "search")

    def __init__(self, *, name: str, arity: int | None, kind: str, doc: str, neg_inf: Any,
                 derivative: Callable, size: Callable, cost: str, rational: bool | Callable,
                 atom: bool, latex: Tex, exact: Any = None, ball: Any = None,
                 float: Any = None, fold: Callable | tuple | None = None,
                 domain: Callable | None = None, float_check: Callable | None = None,
                 builder: str | None = None, method: str | None = None, search: bool | str = False):
        if kind not in KINDS or cost not in COSTS:
            raise ValueError(f"primitive {name}: kind {kind!r}, cost {cost!r}")
        if kind in ("arithmetic", "structure") and method is None:
            method = "op_" + name
        self.name, self.arity, self.kind, self.doc = name, arity, kind, doc
        self.neg_inf, self.derivative, self.size, self.cost = neg_inf, derivative, size, cost
        self.rational, self.atom, self.latex = rational, atom, latex
        self.exact, self.ball, self.float, self.fold = exact, ball, float, fold
        self.domain, self.float_check, self.builder, self.method = \
            domain, float_check, builder, method
        self.search = search

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
