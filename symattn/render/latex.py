"""``symattn latex`` from Python: every step of a spec as LaTeX with its numbers substituted.

>>> from symattn.render.latex import latex
>>> text = latex("examples/000-self-attention.toml", steps=["Q"])   # doctest: +SKIP

The same options as the command line: ``format`` (``"markdown"`` or ``"tex"``),
``digits``, ``exact``, ``corrections``, ``steps``. :func:`document` returns the
:class:`~symattn.render.latex_document.LatexDocument` (its ``formulas()``, ``markdown()``,
``tex()``; it shows itself in Jupyter).
"""

from __future__ import annotations

from .latex_config import LatexConfig
from .latex_document import LatexDocument, render_spec
from .latex_values import tensor_latex
from .latex_display import steps_latex

__all__ = ["latex", "document", "LatexConfig", "LatexDocument", "tensor_latex", "steps_latex"]


def document(spec, config: LatexConfig | None = None, **options) -> LatexDocument:
    """Render ``spec`` (a path or a loaded Spec) with a config or keyword options."""
    from ..spec.load import load, Spec
    if config is not None and options:
        raise TypeError("give a LatexConfig or keyword options, not both")
    config = config or LatexConfig(**options)
    if not isinstance(spec, Spec):
        spec = load(str(spec))
    return render_spec(spec, config)


def latex(spec, *, format: str = "markdown", digits: int = 4, exact: bool = False,
          corrections: bool = False, steps=None, **options) -> str:
    """The text ``symattn latex`` prints: Markdown with ``$$`` blocks, or a standalone
    LaTeX document (``format="tex"``)."""
    if isinstance(steps, str):
        steps = [steps]
    cfg = LatexConfig(format=format, digits=digits, exact=exact, corrections=corrections,
                      steps=tuple(steps) if steps is not None else None, **options)
    return document(spec, cfg).text()
