"""An operation declared once: everything symattn knows about it stands beside it.

As a JAX primitive carries its evaluation, shape, differentiation and lowering rules, an
:class:`Operation` carries, in the module that defines the operation:

- ``function``: the Python function (``symattn.layer_norm``), composed of primitives;
- ``params``: its signature as the spec language reads it: read from the function's own
  signature (names, positional or keyword-only, defaults), with ``convert`` naming the
  argument converter (:mod:`symattn.ops.arguments`) that turns a spec value (a
  ``Fraction``, a list, a label) into what the function takes;
- ``steps``: the function of the same arguments returning every named intermediate
  (:class:`~symattn.steps.Steps`); ``value`` the spec value when it is not ``function``'s;
- ``latex``: how the renderer shows those steps (:class:`Presentation`; the renderer in
  :mod:`symattn.render` supplies the layout, never the math);
- ``mistakes``: the common mistakes that belong to it: ``mistakes(call, spec)`` gives
  ``(description, rewritten call)`` pairs for a call node of a spec tree;
- ``groups``: families other modules ask for (``"attention"``, ``"softmax"``, ``"mask"``).

:mod:`symattn.ops` imports every module of its package and collects each declaration
(:data:`symattn.ops.OPERATIONS`): a new operation is one new module, listed nowhere else.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable

from . import arguments

EMPTY = inspect.Parameter.empty


@dataclass(frozen=True)
class Param:
    """One argument as the spec language reads it."""
    name: str
    default: object = EMPTY
    keyword_only: bool = False
    variadic: bool = False           # concat(a, b, c): the function takes them as one list
    convert: str | None = None       # a converter of symattn.ops.arguments, by name

    @property
    def required(self) -> bool:
        return self.default is EMPTY and not self.variadic


@dataclass(frozen=True)
class Presentation:
    """How the renderer shows an operation's steps in LaTeX.

    ``operator``: the operator name in formulas (``\\operatorname{LayerNorm}``);
    ``show(view, args)``: the displays of one step computed by this operation, written with
    the renderer's generic forms (``view``: :class:`symattn.render.step_view.StepView`;
    ``args``: parameter name -> the argument's node, as the declared signature matched
    them), or None to fall back to the generic formula/substitution/result display.
    """
    operator: str
    show: Callable | None = None


@dataclass(frozen=True)
class Operation:
    name: str
    function: Callable
    params: tuple = ()
    steps: Callable | None = None
    value: Callable | None = None
    latex: Presentation | None = None
    mistakes: Callable | None = None
    groups: frozenset = field(default_factory=frozenset)
    doc: str = ""

    def signature(self) -> inspect.Signature:
        """The spec language's signature (what ``name(...)`` accepts in an expression)."""
        kinds = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        out = []
        for p in self.params:
            kind = (inspect.Parameter.VAR_POSITIONAL if p.variadic else kinds[0] if p.keyword_only
                    else kinds[1])
            out.append(inspect.Parameter(p.name, kind, default=p.default))
        return inspect.Signature(out)

    def bind(self, args, kwargs: dict) -> dict:
        """Parameter name -> argument (a value or a spec node), matched by the signature;
        absent arguments are left out. Raises TypeError as ``Signature.bind`` does."""
        bound = self.signature().bind(*args, **kwargs)
        return dict(bound.arguments)

    def call(self, args, kwargs: dict):
        """The value of ``name(args, kwargs)`` in the spec language: arguments converted
        as declared, then ``value`` (or ``function``) applied."""
        given = self.bind(args, kwargs)
        pos, kw = [], {}
        for p in self.params:
            if p.name not in given:
                continue
            v = list(given[p.name]) if p.variadic else given[p.name]
            if p.convert is not None:
                v = getattr(arguments, p.convert)(v, p.name)
            if p.variadic:
                pos.append(v)
            else:
                kw[p.name] = v
        return (self.value or self.function)(*pos, **kw)


def declare(name: str, function: Callable, *, convert: dict | None = None,
            variadic: str | None = None, **fields) -> Operation:
    """An Operation whose spec signature is ``function``'s own, with converters by name.

    ``variadic``: the one parameter (a list in Python) the spec language spreads over its
    arguments, as ``concat(a, b)`` for ``concat([a, b])``.
    """
    convert = convert or {}
    params = []
    for p in inspect.signature(function).parameters.values():
        if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        params.append(Param(p.name, p.default, p.kind == p.KEYWORD_ONLY, p.name == variadic,
                            convert.get(p.name)))
    unknown = set(convert) - {p.name for p in params}
    if unknown:
        raise TypeError(f"{name}: converters for unknown parameters {sorted(unknown)}")
    return Operation(name, function, tuple(params), **fields)


def collect(namespace: dict) -> dict:
    """The operations declared in a module's namespace, by name."""
    return {v.name: v for v in namespace.values() if isinstance(v, Operation)}
