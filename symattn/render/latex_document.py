"""A rendered spec as Markdown (``$$ … $$`` blocks for KaTeX and MathJax) or as a standalone
LaTeX document that LuaLaTeX compiles with its Japanese labels (luatexja)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import deadline
from .latex_config import LatexConfig
from .latex_steps import SpecRenderer

# cancel.sty is in TeX Live's latex-extra collection; without it \cancel is drawn here.
TEX_PREAMBLE = r"""\documentclass[a4paper,10pt]{article}
\usepackage{luatexja}
\usepackage[margin=14mm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{xcolor}
\IfFileExists{cancel.sty}{\usepackage{cancel}}{}
\makeatletter
\providecommand{\cancel}[1]{\mathpalette\symattn@cancel{#1}}
\newcommand{\symattn@cancel}[2]{%
  \setbox0=\hbox{$\m@th#1#2$}\rlap{\rule[0.5ex]{\wd0}{0.5pt}}\box0}
\makeatother
\allowdisplaybreaks
\setlength{\parindent}{0pt}
\setlength{\parskip}{4pt}
"""


def tex_text(s: str) -> str:
    """Plain text for a LaTeX paragraph (special characters escaped)."""
    rep = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "%": r"\%",
           "&": r"\&", "#": r"\#", "$": r"\$", "^": r"\textasciicircum{}",
           "~": r"\textasciitilde{}", "−": "-", "∞": r"$\infty$", "≈": r"$\approx$",
           "·": r"$\cdot$", "×": r"$\times$", "√": r"$\surd$", "→": r"$\to$", "σ": r"$\sigma$",
           "μ": r"$\mu$", "ε": r"$\varepsilon$", "²": r"\textsuperscript{2}"}
    return "".join(rep.get(ch, ch) for ch in str(s))


def md_text(s: str) -> str:
    """Plain text for Markdown (characters that would start emphasis or code escaped)."""
    out = []
    for ch in str(s):
        if ch in "\\`*_[]<>#|$":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


@dataclass
class LatexDocument:
    """The rendered spec: a title and one block per step. ``formulas()`` lists every
    displayed formula; ``markdown()`` and ``tex()`` give the two output formats."""
    title: str
    subtitle: str
    blocks: list = field(default_factory=list)
    config: LatexConfig = field(default_factory=LatexConfig)

    def formulas(self) -> list[str]:
        return [d for b in self.blocks for d in b.displays]

    @property
    def wrong(self) -> list:
        return [r for b in self.blocks for r in b.wrong]

    def text(self) -> str:
        return self.tex() if self.config.format == "tex" else self.markdown()

    def markdown(self) -> str:
        out = [f"# {md_text(self.title)}", "", md_text(self.subtitle), ""]
        for b in self.blocks:
            out.append(f"## {md_text(b.title)}")
            out.append("")
            for n in b.remarks:
                out += [f"Note: {md_text(n)}", ""]
            for d in b.displays:
                out += ["$$", d, "$$", ""]
            if b.notes:
                out.append("Corrections:")
                out.append("")
                out += [f"- {md_text(n)}" for n in b.notes]
                out.append("")
        return "\n".join(out).rstrip("\n") + "\n"

    def tex(self) -> str:
        out = [TEX_PREAMBLE, r"\begin{document}", rf"\section*{{{tex_text(self.title)}}}",
               tex_text(self.subtitle), ""]
        for b in self.blocks:
            out.append(rf"\subsection*{{{tex_text(b.title)}}}")
            out += [rf"\noindent Note: {tex_text(n)}\par" for n in b.remarks]
            for d in b.displays:
                out += [r"\[", d, r"\]"]
            if b.notes:
                out.append(r"Corrections:")
                out.append(r"\begin{itemize}")
                out += [rf"\item {tex_text(n)}" for n in b.notes]
                out.append(r"\end{itemize}")
            out.append("")
        out.append(r"\end{document}")
        return "\n".join(out) + "\n"

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def __str__(self) -> str:
        return self.text()


def render_spec(spec, config: LatexConfig | None = None) -> LatexDocument:
    """Render a loaded :class:`~symattn.spec.load.Spec` (see :func:`symattn.render.latex.latex`);
    names with a ``latex`` key are typeset as the spec says."""
    from .latex_values import spec_names
    with spec_names(getattr(spec, "latex", {})):
        return _render(spec, config or LatexConfig())


def _render(spec, config: LatexConfig) -> LatexDocument:
    from ..errors import SpecError
    r = SpecRenderer(spec, config)
    names = [s.name for s in spec.steps]
    if config.steps is not None:
        unknown = [n for n in config.steps if n not in names]
        if unknown:
            from ..suggest import with_suggestion
            raise SpecError(f"no step named '{unknown[0]}'", where=spec.path,
                            hint=with_suggestion("steps: " + ", ".join(names), unknown[0], names)
                            if names else "the spec has no steps")
    title = spec.title or spec.id
    mode = spec.rounding
    how = ("closed forms (exact)" if config.exact else
           f"each step at the precision the article prints it (rounding {mode}), "
           f"else {config.digits} decimals; every digit certified")
    subtitle = f"Example {spec.id}" + (f" from {spec.source}" if spec.source else "") + \
               f". Numbers: {how}."
    doc = LatexDocument(title, subtitle, config=config)
    if config.inputs and config.steps is None and spec.inputs:
        doc.blocks.append(r.inputs_block())
    for s in spec.steps:
        if config.steps is None or s.name in config.steps:
            deadline.check()
            doc.blocks.append(r.step_block(s))
    return doc
