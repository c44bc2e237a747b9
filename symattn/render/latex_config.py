"""The options of ``symattn latex`` as one frozen value."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError

FORMATS = ("markdown", "tex")
ROWS = ("claimed", "all", "first")


@dataclass(frozen=True)
class LatexConfig:
    """How a spec is written as LaTeX.

    - ``format``: ``"markdown"`` (``$$ … $$`` blocks for KaTeX/MathJax) or ``"tex"`` (a
      standalone LuaLaTeX document).
    - ``digits``: decimals for a step that no claim prints (a printed step uses the
      precision and rounding mode of its claims).
    - ``exact``: closed forms (SymPy) instead of decimals; refused above ``max_exact_chars``.
    - ``corrections``: mark each printed number that ``symattn check`` finds wrong.
    - ``steps``: only these steps (None: every step).
    - ``rows``: which rows of a many-row step are written out term by term:
      ``"claimed"`` (the rows the article prints, in the order it prints them),
      ``"all"`` or ``"first"``; at most ``max_rows``.
    - ``inputs``: start with the stipulated inputs.
    """
    format: str = "markdown"
    digits: int = 4
    exact: bool = False
    corrections: bool = False
    steps: tuple | None = None
    rows: str = "claimed"
    max_rows: int = 4
    inputs: bool = True
    max_terms: int = 200           # leaves in one written-out row; larger rows are not expanded
    max_exact_chars: int = 4000    # LaTeX characters of one step's closed forms

    def __post_init__(self):
        if self.format not in FORMATS:
            raise InputError(f"format {self.format!r}: use one of {', '.join(FORMATS)}")
        if self.rows not in ROWS:
            raise InputError(f"rows {self.rows!r}: use one of {', '.join(ROWS)}")
        for name in ("digits", "max_rows", "max_terms", "max_exact_chars"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < (0 if name == "digits" else 1):
                raise InputError(f"{name}={v!r}: give a whole number"
                                 f"{' ≥ 0' if name == 'digits' else ' ≥ 1'}")
        if self.digits > 1000:
            raise InputError(f"digits={self.digits} is more than 1000")
        if self.steps is not None and not isinstance(self.steps, tuple):
            object.__setattr__(self, "steps", tuple(self.steps))
