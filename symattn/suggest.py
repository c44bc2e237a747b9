""""Did you mean": the nearest known name to a mistyped one (``difflib``'s ratio, as
Python's own ``NameError`` suggestions), for step and input names, operations,
subcommands and options.

>>> did_you_mean("sofmax", ["softmax", "layer_norm"]), did_you_mean("zzz", ["softmax"])
("did you mean 'softmax'?", '')
"""

from __future__ import annotations

import difflib


def nearest(name: str, known) -> str | None:
    """The known name closest to ``name`` (None when none is close)."""
    got = difflib.get_close_matches(str(name), [str(k) for k in known], n=1, cutoff=0.5)
    return got[0] if got else None


def did_you_mean(name: str, known) -> str:
    """``did you mean 'x'?`` or the empty text."""
    from .numbers import shown
    near = nearest(name, known)
    return f"did you mean '{shown(near, 60)}'?" if near is not None and near != name else ""


def with_suggestion(hint: str | None, name: str, known) -> str | None:
    """``hint`` led by the suggestion, when there is one."""
    s = did_you_mean(name, known)
    return f"{s} {hint}" if s and hint else (s or hint)
