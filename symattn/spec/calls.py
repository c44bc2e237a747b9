"""A call node of a spec tree, read and rewritten by keyword: what a mistake changes.

The common mistakes of an operation (its declaration's ``mistakes``) are variants of one
call, such as ``layer_norm(x, variance='unbiased')`` for ``layer_norm(x)``.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from . import expr as E

ONE, ZERO = E.Num(Fraction(1)), E.Num(Fraction(0))


def num(value) -> E.Num:
    return E.Num(Fraction(value))


def text(s: str) -> E.Str:
    return E.Str(s)


def get(call: E.Call, key: str):
    """The node given as keyword ``key``, or None."""
    return next((v for k, v in call.kwargs if k == key), None)


def has_kw(call: E.Call, key: str) -> bool:
    return any(k == key for k, _ in call.kwargs)


def with_kw(call: E.Call, key: str, value) -> E.Call:
    """The call with keyword ``key`` set to ``value`` (replacing any given)."""
    kwargs = tuple((k, v) for k, v in call.kwargs if k != key) + ((key, value),)
    return dataclasses.replace(call, kwargs=kwargs)
