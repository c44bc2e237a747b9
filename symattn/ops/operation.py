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
- ``groups``: families other modules ask for (``"attention"``, ``"softmax"``, ``"mask"``);
- ``symbols``: the names articles write for what it computes (attention weights are also
  ``A``, ``α``, ``P``, ``attn_weights``): an article's label may name a step by them;
- ``search``: what inferring a worked example from its printed blocks needs to try it
  (:class:`Search`: operand shapes, parameters and their usual values; :mod:`symattn.infer`).

:mod:`symattn.ops` imports every module of its package and collects each declaration
(:data:`symattn.ops.OPERATIONS`): a new operation is one new module, listed nowhere else.
"""

from __future__ import annotations

from typing import Callable

from . import arguments


class _Empty:
    """No default: the argument is required (as ``inspect.Parameter.empty``)."""
    def __repr__(self):
        return "EMPTY"


EMPTY = _Empty()


class Param:
    """One argument as the spec language reads it: its name, default (EMPTY: required),
    whether it is keyword-only, whether it is ``variadic`` (``concat(a, b, c)``: the
    function takes them as one list), and ``convert``: the name of a converter of
    :mod:`symattn.ops.arguments`, or None."""

    __slots__ = ("name", "default", "keyword_only", "variadic", "convert")

    def __init__(self, name: str, default=EMPTY, keyword_only: bool = False,
                 variadic: bool = False, convert: str | None = None):
        self.name, self.default, self.keyword_only = name, default, keyword_only
        self.variadic, self.convert = variadic, convert

    def __repr__(self) -> str:
        return f"Param({self.name!r})"

    @property
    def required(self) -> bool:
        return self.default is EMPTY and not self.variadic


class Presentation:
    """How the renderer shows an operation's steps in LaTeX.

    ``operator``: the operator name in formulas (``\\operatorname{LayerNorm}``);
    ``show(view, args)``: the displays of one step computed by this operation, written with
    the renderer's generic forms (``view``: :class:`symattn.render.step_view.StepView`;
    ``args``: parameter name -> the argument's node, as the declared signature matched
    them), or None to fall back to the generic formula/substitution/result display;
    ``formula(show, args, f)``: the call in symbols when it is not ``operator(args)``
    (``show(node, restrict=True)``: an argument's Tex, restricted to the row shown;
    ``f``: :mod:`symattn.render.step_forms`);
    ``rows``: which arguments a row of the result needs: ``"first"`` (row i of the first),
    ``"all"``, or ``"none"`` (the whole of each).
    """

    __slots__ = ("operator", "show", "formula", "rows")

    def __init__(self, operator: str, show: Callable | None = None,
                 formula: Callable | None = None, rows: str = "none"):
        if rows not in ("first", "all", "none"):
            raise ValueError(f"rows={rows!r}: 'first', 'all' or 'none'")
        self.operator, self.show, self.formula, self.rows = operator, show, formula, rows


class Search:
    """How :mod:`symattn.infer` tries an operation as the derivation of a printed block.

    ``shapes``: the operands (the function's first parameters, in order) and the result as
    dimension names, ``"n d -> n d"``, ``"n d, d h, 1 h -> n h"`` (``1``: one row;
    ``a+b``: the sum of two, as heads concatenated);
    ``params``: parameter name -> the usual values tried (spec-language texts, the first
    the default, written nowhere in the expression); ``words``: parameter name -> the words
    an article states its value with (``ε``, ``eps``), read from the text before the
    block; ``sizes``: parameter name -> ``"rows"`` or ``"cols"`` of the result (the
    ``n, d`` of ``positional_encoding``); ``scaled``: the operand may be divided by
    ``sqrt(d_k)`` first (softmax over scaled scores); ``most``: the share of a block's
    entries a derivation by it must reproduce, when not the search's own (a table of closed
    forms of the position, each entry its own evidence, no operand's values mixed in: fewer
    suffice, the exact check calls the others wrong); None: the search's; ``onto``: for a
    table of its own (no operands), what it is added to: ``"inputs"`` (positional
    encodings: onto embeddings, a printed block no step computes), None (any block: a mask
    onto scores); ``within``: the range (low, high) of every entry of the result (weights:
    (0, 1)), a block with an entry outside it not tried; None: any; ``scales``: it scales by
    1/√d_k itself (weights), so where the text states that scaling its common mistakes
    (the scaling missing) are tried even when it reproduces nothing; ``unless_said``:
    parameter name -> (value, pattern, mistake): a usual value that is the operation's
    common mistake unless the article's text matches the pattern (LayerNorm's unbiased
    variance, unless the text says "unbiased" or ``n-1``): a block it reproduces is then
    derived by the default, the value its mistake; ``by_hand``: parameter name -> the value
    an example worked by hand implies when its text states none and no framework computes
    it (LayerNorm's ε: the author divided by √σ², not by a library's √(σ² + 10⁻⁵)).
    ``absent``: operand name -> the spec-language text written for it when the example has
    none (an FFN without biases: ``ffn(x, W1, 0, W2, 0)``); those operands are left out
    together, one more form. ``stated``: parameters whose default is never assumed: only a
    value the text states or one searched for (at its cost) is tried (a rotation by 0 is any
    identity matrix: only where the text says position 0). ``last``: tried after every other
    form (its many operand tuples spend no other form's share of a block's tries); ``unless``:
    prefixes of derivations that, found in the article, rule the form out (attention in one
    step, where the weights are printed: the context is then their product with V).
    ``binary``: the positions of the operands that are blocks of 0s and 1s only (dropout's
    mask), no other block tried there.
    """

    __slots__ = ("shapes", "params", "words", "sizes", "scaled", "most", "onto", "within", "scales",
                 "unless_said", "by_hand", "absent", "stated", "last", "unless", "binary")

    def __init__(self, shapes: str = "n d -> n d", params: dict | None = None,
                 words: dict | None = None, sizes: dict | None = None, scaled: bool = False,
                 most: float | None = None, onto: str | None = None, within: tuple | None = None,
                 scales: bool = False, unless_said: dict | None = None, by_hand: dict | None = None,
                 absent: dict | None = None, stated: tuple = (), last: bool = False,
                 unless: tuple = (), binary: tuple = ()):
        self.shapes, self.params = shapes, dict(params or {})
        self.words, self.sizes, self.scaled = dict(words or {}), dict(sizes or {}), scaled
        self.most, self.onto, self.within, self.scales = most, onto, within, scales
        self.unless_said, self.by_hand = dict(unless_said or {}), dict(by_hand or {})
        self.absent, self.stated, self.last = dict(absent or {}), tuple(stated), last
        self.unless, self.binary = tuple(unless), tuple(binary)

    @property
    def operands(self) -> list[list[str]]:
        """The operands' dimension names (``[["n", "d"], ["d", "h"]]``)."""
        left = self.shapes.split("->")[0].strip()
        return [part.split() for part in left.split(",")] if left else []

    @property
    def result(self) -> list[str]:
        return self.shapes.split("->")[1].split()


class Operation:
    """One operation of the articles, everything about it in one place (see the module)."""

    __slots__ = ("name", "function", "params", "steps", "value", "latex", "mistakes", "groups",
                 "symbols", "search")

    def __init__(self, name: str, function: Callable, params: tuple = (), *,
                 steps: Callable | None = None, value: Callable | None = None,
                 latex: Presentation | None = None, mistakes: Callable | None = None,
                 groups=frozenset(), symbols=(), search: Search | None = None):
        self.name, self.function, self.params = name, function, tuple(params)
        self.steps, self.value, self.latex, self.mistakes = steps, value, latex, mistakes
        self.groups, self.symbols = frozenset(groups), tuple(symbols)
        self.search = search

    def __repr__(self) -> str:
        return f"Operation({self.name!r})"

    def signature(self):
        """The spec language's signature (an ``inspect.Signature``: what ``name(...)``
        accepts in an expression)."""
        import inspect
        P = inspect.Parameter
        out = []
        for p in self.params:
            kind = (P.VAR_POSITIONAL if p.variadic else P.KEYWORD_ONLY if p.keyword_only
                    else P.POSITIONAL_OR_KEYWORD)
            out.append(P(p.name, kind, default=P.empty if p.default is EMPTY else p.default))
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
            if p.name not in given and not p.variadic:
                continue
            v = list(given.get(p.name, ())) if p.variadic else given[p.name]
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
    params = [Param(name, default, keyword_only, name == variadic, convert.get(name))
              for name, default, keyword_only in _parameters(function)]
    unknown = set(convert) - {p.name for p in params}
    if unknown:
        raise TypeError(f"{name}: converters for unknown parameters {sorted(unknown)}")
    return Operation(name, function, tuple(params), **fields)


def _parameters(function) -> list[tuple[str, object, bool]]:
    """(name, default or EMPTY, keyword-only) of each named parameter, read from the code
    object (``inspect`` costs milliseconds at ``import symattn``)."""
    code = function.__code__
    n, k = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames[:n + k]
    defaults = function.__defaults__ or ()
    kwdefaults = function.__kwdefaults__ or {}
    first_default = n - len(defaults)
    out = [(x, defaults[i - first_default] if i >= first_default else EMPTY, False)
           for i, x in enumerate(names[:n])]
    return out + [(x, kwdefaults.get(x, EMPTY), True) for x in names[n:]]


def collect(namespace: dict) -> dict:
    """The operations declared in a module's namespace, by name."""
    return {v.name: v for v in namespace.values() if isinstance(v, Operation)}
