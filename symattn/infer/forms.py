"""The forms the search tries (:mod:`.search`): the spec language's own operators
(``A @ B``, ``A @ B.T``, ``A + B``, ``A / sqrt(k)``; the scaled scores
``Q @ K.T / sqrt(k)`` printed alone, only with a root the text before them states) and each
declared operation that carries a :class:`~symattn.ops.operation.Search`, with each
combination of its parameters' usual values (those the text states first, free of cost);
and the tuples of earlier blocks whose shapes fit a form's operands.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass

import numpy as np

from ..ops import OPERATIONS
from ..primitives import PRIMITIVES
from .blocks import Block, epsilons, stated

MOST = 3 / 4                # share of a block's entries (and of its non-zero ones) reproduced

# The spec language's operators (symattn/spec/expr.py), with their operands' shapes.
OPERATORS = (("{0} @ {1}", "n d, d m -> n m"), ("{0} @ {1}.T", "n d, m d -> n m"),
             ("{0} + {1}", "n d, n d -> n d"), ("{0} + {1}", "n d, 1 d -> n d"),
             ("{0} * {1}", "n d, n d -> n d"), ("{0}.T * {1}", "1 n, n d -> n d"),
             ("{0} / sum({0})", "n d -> n d"), ("sum({0})", "n d -> n 1"), ("mean({0})", "n d -> n 1"),
             ("{0} - mean({0})", "n d -> n d"),           # the deviations LayerNorm divides
             ("{0} / {1}", "n d, n 1 -> n d"),
             ("{0} / sqrt({k})", "n d -> n d"),
             ("{0} @ {1}.T / sqrt({k})", "n d, m d -> n m"))   # scaled scores printed alone
SCORES = "{0} @ {1}.T"
SAID = ("{0} @ {1}.T / sqrt({k})",)      # tried only with a root the text before the block states


@dataclass(frozen=True)
class Form:
    """An expression with operand slots ``{0}``, ``{1}``…, its shapes and its freedom."""
    template: str
    operands: tuple             # dimension names of each operand
    result: tuple
    cost: int                   # searched choices: 1 for the form, +1 per non-default value
    op: str = ""                # the declared operation ('' for an operator)
    sizes: tuple = ()           # (parameter, "rows"/"cols") filled from the block's shape
    scaled: bool = False        # the operand divided by sqrt(k)
    most: float = MOST          # the share of a block's entries it must reproduce
    onto: str | None = None     # a table added to a block: "inputs", to an uncomputed one only
    within: tuple | None = None  # the range of the result's entries: a block outside it, not tried
    scales: bool = False        # scaled by 1/√d_k itself: its mistakes tried where the text says so
    said: bool = False          # its {k} only as the text before the block states it (SAID)
    unsaid: str = ""            # the keyword of a value the text does not say (``, variance=…``):
    mistake: str = ""           # a block it reproduces is the default's, with this mistake
    last: bool = False          # tried after every other form
    unless: tuple = ()          # derivations (by their prefix) that, in the article, rule it out
    binary: tuple = ()          # operand positions that take blocks of 0s and 1s only (a mask)


@functools.cache
def elementwise() -> frozenset:
    """The forms of the elementwise functions declared searchable (``sin({0})``)."""
    return frozenset(f"{p.builder}({{0}})" for p in PRIMITIVES.values()
                     if p.search and p.kind == "function" and p.arity == 1)


def _shape(text: str) -> tuple:
    left, right = text.split("->")
    ops = tuple(tuple(p.split()) for p in left.split(",")) if left.strip() else ()
    return ops, tuple(right.split())


def forms(text: str, near: str = "") -> list[Form]:
    """Every form: the operators, and each declared operation with each combination of its
    parameters' values (those the ``text`` states first, free of cost; the ``near`` text
    before a block first of all: ``eps = 1e-5`` above the LayerNorm, ``1e-6`` above the
    RMSNorm)."""
    out = []
    for template, shapes in OPERATORS:
        out.append(Form(template, *_shape(shapes), cost=1 + ("{k}" in template), said=template in SAID))
    for p in PRIMITIVES.values():             # the elementwise functions declared searchable
        template = f"{p.builder}({{0}})"
        if template in elementwise():
            out.append(Form(template, (("n", "d"),), ("n", "d"), 1, p.builder, last=p.search == "last"))
    for name, op in OPERATIONS.items():
        s = op.search
        if s is None:
            continue
        ops, result = _shape(s.shapes)
        choices = []
        for p, usual in s.params.items():
            said = list(dict.fromkeys(_said(p, near, s.words[p]) + _said(p, text, s.words[p]))) \
                if s.words.get(p) else []
            if not said and p in s.by_hand and not _framework(text) and not _written(text, tuple(
                    v for v in usual if v != s.by_hand[p])):
                said = [s.by_hand[p]]
            if p == "base" and not said:      # as its formula writes it: 1000^{2i/d}
                from .positions import bases_written
                said = [b for b in bases_written(text)[:1] if b != usual[0]]   # the default: unwritten
            values = [(v, 0) for v in said[:1]] + [(v, int(k > 0 or bool(said))) for k, v in enumerate(usual)
                                                   if v not in said[:1]]   # what the text says, first
            choices.append([(p, v, c, k == 0 and not said) for k, (v, c) in enumerate(values)])
        for combo in itertools.product(*choices) if choices else [()]:
            if any(default and p in s.stated for p, _, _, default in combo):
                continue                      # a default the text must state to be taken
            kw = "".join(f", {p}={v}" for p, v, _, default in combo if not default)
            cost = 1 + sum(c for _, _, c, _ in combo)
            unsaid, mistake = _unsaid(s, combo, text)
            sizes = tuple(s.sizes.items())
            args = ", ".join([f"{{{i}}}" for i in range(len(ops))] + [f"{{{p}}}" for p, _ in sizes])
            template = f"{name}({args}{kw})"
            most = s.most or MOST
            out.append(Form(template, ops, result, cost, name, sizes, most=most, within=s.within,
                            scales=s.scales, unsaid=unsaid, mistake=mistake, last=s.last,
                            unless=s.unless, binary=s.binary))
            if s.absent:                      # without the operands an example may not have
                fewer, kept = _without(op, s.absent, len(ops), sizes, kw)
                out.append(Form(fewer, tuple(ops[i] for i in kept), result, cost, name, sizes, most=most,
                                within=s.within, scales=s.scales, unsaid=unsaid, mistake=mistake))
            if not ops:                       # a table of its own (positional encodings): added to a block
                out.append(Form(f"{{0}} + {template}", (result,), result, cost + 1, name, sizes,
                                most=most, onto=s.onto))
            if s.scaled and len(ops) == 1:
                scaled = template.replace("{0}", "{0} / sqrt({k})", 1)
                out.append(Form(scaled, ops, result, cost + 1, name, sizes, True))
    return sorted(out, key=lambda f: (not f.sizes, f.last))   # the tables first: a few tries, none starved


def _without(op, absent: dict, n: int, sizes: tuple, kw: str) -> tuple[str, list[int]]:
    """(the template of ``op`` with its ``absent`` operands written as their texts, the
    indices of the operands it keeps): ``ffn({0}, {1}, 0, {2}, 0)``."""
    names = [p.name for p in op.params][:n]
    kept = [i for i, name in enumerate(names) if name not in absent]
    slot = {i: f"{{{k}}}" for k, i in enumerate(kept)}
    args = ", ".join([slot.get(i) or absent[names[i]] for i in range(n)] + [f"{{{p}}}" for p, _ in sizes])
    return f"{op.name}({args}{kw})", kept


def _unsaid(s, combo: tuple, text: str) -> tuple[str, str]:
    """(the keyword text, the mistake) of a value in ``combo`` that is the operation's common
    mistake and that ``text`` does not say (``Search.unless_said``), or ('', '')."""
    for p, v, _, default in combo:
        rule = s.unless_said.get(p)
        if rule and not default and v == rule[0] and not _says(rule[1], text):
            return f", {p}={v}", rule[2]
    return "", ""


@functools.lru_cache(maxsize=64)
def _says(pattern: str, text: str) -> bool:
    return re.search(pattern, text, re.I) is not None


_FRAMEWORK = re.compile(r"\bimport\s+(?:torch|tensorflow|jax|paddle)\b|\b(?:torch|tf|keras|jnp|nn|F)\.\w")


@functools.lru_cache(maxsize=64)
def _framework(text: str) -> bool:
    """Does the article compute with a framework (``import torch``, ``nn.LayerNorm``), whose
    defaults its prints carry? Else its example is worked by hand (``Search.by_hand``)."""
    return _FRAMEWORK.search(text) is not None


@functools.lru_cache(maxsize=64)
def _written(text: str, values: tuple) -> bool:
    """Does the article print one of ``values`` anywhere (``plus 0.00001``, ``10^{-5}``)? Then
    its example need not be worked without it."""
    from ..article.source import Line
    from ..article.tokens import numbers_in
    from ..numbers import parse_exact
    want = {parse_exact(v) for v in values}
    return any(n.value in want for k, ln in enumerate(text.splitlines()) for n in numbers_in(Line(k + 1, ln)))


@functools.lru_cache(maxsize=512)
def _said(param: str, text: str, words: tuple) -> tuple:
    """The values ``text`` states for a parameter (an ε also under a root), read once per
    text: an article's forms are built again for each block's own context."""
    return tuple((epsilons if param == "eps" else stated)(text, words))


def _bind(dims: tuple, shape: tuple, env: dict) -> dict | None:
    env = dict(env)
    for d, n in zip(dims, shape):
        if "+" in d:                          # a sum of dimensions: checked once all are bound
            env["+"] = env.get("+", ()) + ((d, n),)
        elif d == "1":
            if n != 1:
                return None
        elif env.setdefault(d, n) != n:
            return None
    return env


def _operand_tuples(form: Form, shape: tuple, earlier: list[Block], rows: list[Block] = ()):
    """Tuples of earlier blocks whose shapes fit the form with a result of ``shape``, the
    nearest first; the ``rows`` of earlier blocks too where the form takes a row (``1 n``)
    or gives one."""
    env = _bind(form.result, shape, {})
    if env is None:
        return

    def go(i: int, env: dict, chosen: tuple):
        if i == len(form.operands):
            if all(sum(env.get(x, -1) for x in d.split("+")) == n for d, n in env.get("+", ())):
                yield chosen
            return
        pool = earlier + list(rows) if rows and (shape[0] == 1 or form.operands[i][0] == "1") \
            else earlier
        for b in pool:
            if i in form.binary and not bool(np.all((b.floats == 0) | (b.floats == 1))):
                continue
            e = _bind(form.operands[i], b.shape, env)
            if e is not None:
                yield from go(i + 1, e, chosen + (b,))
    yield from go(0, env, ())
