"""Named intermediates: the steps of a computation, addressable by name, row and column.

Beside :mod:`symattn.tensor`, not in :mod:`symattn.ops`: the operations build Steps and
the renderer shows them, and neither needs the other for it.
"""

from __future__ import annotations

from typing import Iterator

from .errors import ShapeError
from .tensor import Tensor


class Steps:
    """An ordered record of named steps (Tensors or nested Steps).

    >>> s = Steps(scores=None)   # doctest: +SKIP
    ``steps["weights"]``, ``steps.weights`` and ``steps.at("weights", "love", "learning")``
    all address the same node.
    """

    def __init__(self, **items):
        self._items: dict[str, object] = {}
        for k, v in items.items():
            self[k] = v

    def __setitem__(self, name: str, value) -> None:
        if isinstance(value, Tensor) and value.name != name:   # a node shared by name stays one
            value = value.named(name)
        self._items[name] = value

    def __getitem__(self, name: str):
        try:
            return self._items[name]
        except KeyError:
            raise ShapeError(f"no step named '{name}' (steps: {', '.join(self._items)})") from None

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._items[name]
        except KeyError:
            raise AttributeError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __contains__(self, name) -> bool:
        return name in self._items

    def items(self):
        return self._items.items()

    def at(self, name: str, row, col=None) -> Tensor:
        """The row (or entry) of a step by label or 0-based index."""
        t = self[name]
        return t[row] if col is None else t[row, col]

    def flat(self, prefix: str = "") -> dict[str, Tensor]:
        """Every Tensor step, nested names joined with '.'."""
        out: dict[str, Tensor] = {}
        for k, v in self._items.items():
            key = prefix + k
            if isinstance(v, Steps):
                out.update(v.flat(key + "."))
            elif isinstance(v, (list, tuple)):
                for i, x in enumerate(v):
                    if isinstance(x, Steps):
                        out.update(x.flat(f"{key}.{i}."))
                    elif isinstance(x, Tensor):
                        out[f"{key}.{i}"] = x
            elif isinstance(v, Tensor):
                out[key] = v
        return out

    def __repr__(self) -> str:
        return f"Steps({', '.join(self._items)})"

    def _repr_latex_(self) -> str:
        from .render.latex_display import steps_latex
        return steps_latex(self)
